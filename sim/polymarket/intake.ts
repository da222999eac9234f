// Turns a POST /order body into a placed order the way the CLOB validates it: payload shape, owner and signer
// against the API key, the V2 EIP-712 signature (domain by neg-risk), market state, duplicates, expiration,
// amount precision and tick by the SDK's rounding config and minimum size; then (admit) duplicate, allowance and
// free balance. The order id is the EIP-712 order hash, so a client can compute it before sending.
import { type Hex, hashTypedData, recoverAddress } from 'viem';
import { type Accounts, type ApiKey, reservedCollateral, reservedTokens } from './accounts.js';
import { type Catalogue, MIN_ORDER_SIZE } from './catalogue.js';
import { CHAIN_ID, CONTRACTS, ORDER_DOMAIN_NAME, ORDER_DOMAIN_VERSION, ORDER_TYPES } from './contracts.js';
import {
  allowanceError,
  amountsError,
  balanceError,
  CLOB_ERRORS,
  duplicatedError,
  marketableBuyMinError,
  minSizeError,
  tickError,
} from './errors.js';
import type { Exchange } from './exchange.js';
import type { OrderType, PmOrder } from './order.js';
import { takerFee } from './settlement.js';
import { decimalsOf, fmtUnits, ONE, tickDecimals } from './units.js';

export type Intake =
  | { ok: true; order: PmOrder; postOnly: boolean }
  | { ok: false; status: number; error: string };

interface SignedOrder {
  salt: bigint;
  maker: Hex;
  signer: Hex;
  tokenId: string;
  makerAmount: number;
  takerAmount: number;
  side: 'BUY' | 'SELL';
  signatureType: number;
  timestamp: bigint;
  expiration: number;
  metadata: Hex;
  builder: Hex;
  signature: Hex;
}

const ORDER_TYPES_ACCEPTED = new Set(['GTC', 'GTD', 'FOK', 'FAK']);
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const DIGITS = /^\d{1,78}$/;

function parseSigned(raw: unknown): SignedOrder | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const o = raw as Record<string, unknown>;
  const salt = typeof o.salt === 'number' && Number.isSafeInteger(o.salt) ? String(o.salt) : o.salt;
  const amounts = [o.makerAmount, o.takerAmount];
  const expiration = o.expiration ?? '0';
  if (
    typeof salt !== 'string' ||
    !DIGITS.test(salt) ||
    typeof o.maker !== 'string' ||
    !ADDRESS.test(o.maker) ||
    typeof o.signer !== 'string' ||
    !ADDRESS.test(o.signer) ||
    typeof o.tokenId !== 'string' ||
    !DIGITS.test(o.tokenId) ||
    amounts.some((a) => typeof a !== 'string' || !/^\d{1,15}$/.test(a) || Number(a) === 0) ||
    (o.side !== 'BUY' && o.side !== 'SELL') ||
    typeof o.signatureType !== 'number' ||
    !Number.isInteger(o.signatureType) ||
    typeof o.timestamp !== 'string' ||
    !DIGITS.test(o.timestamp) ||
    typeof expiration !== 'string' ||
    !/^\d{1,12}$/.test(expiration) ||
    typeof o.metadata !== 'string' ||
    !BYTES32.test(o.metadata) ||
    typeof o.builder !== 'string' ||
    !BYTES32.test(o.builder) ||
    typeof o.signature !== 'string' ||
    !/^0x[0-9a-fA-F]{130,}$/.test(o.signature)
  ) {
    return null;
  }
  return {
    salt: BigInt(salt),
    maker: o.maker as Hex,
    signer: o.signer as Hex,
    tokenId: o.tokenId,
    makerAmount: Number(o.makerAmount),
    takerAmount: Number(o.takerAmount),
    side: o.side,
    signatureType: o.signatureType,
    timestamp: BigInt(o.timestamp),
    expiration: Number(expiration),
    metadata: o.metadata as Hex,
    builder: o.builder as Hex,
    signature: o.signature as Hex,
  };
}

/** The EIP-712 hash the order id is: V2 struct, V2 exchange (or its neg-risk twin) on Polygon. */
export function orderHash(o: SignedOrder, negRisk: boolean): Hex {
  return hashTypedData({
    domain: {
      name: ORDER_DOMAIN_NAME,
      version: ORDER_DOMAIN_VERSION,
      chainId: CHAIN_ID,
      verifyingContract: negRisk ? CONTRACTS.negRiskExchangeV2 : CONTRACTS.exchangeV2,
    },
    types: ORDER_TYPES,
    primaryType: 'Order',
    message: {
      salt: o.salt,
      maker: o.maker,
      signer: o.signer,
      tokenId: BigInt(o.tokenId),
      makerAmount: BigInt(o.makerAmount),
      takerAmount: BigInt(o.takerAmount),
      side: o.side === 'BUY' ? 0 : 1,
      signatureType: o.signatureType,
      timestamp: o.timestamp,
      metadata: o.metadata,
      builder: o.builder,
    },
  });
}

const fail = (status: number, error: string): Intake => ({ ok: false, status, error });

/**
 * The order's price in micro units: exact for limit orders (maker/taker must divide to a whole micro), and for
 * market (FOK/FAK) orders, whose amounts come from dollars ÷ price, the ratio rounded to two decimals past the tick.
 */
function limitPrice(collateral: number, shares: number, marketDecimals: number | null): number | null {
  const numerator = BigInt(collateral) * BigInt(ONE);
  if (marketDecimals === null) {
    return numerator % BigInt(shares) === 0n ? Number(numerator / BigInt(shares)) : null;
  }
  const scale = 10 ** marketDecimals;
  return Math.round(Math.round((collateral / shares) * scale) * (ONE / scale));
}

export async function intakeOrder(
  body: unknown,
  key: ApiKey,
  deps: { cat: Catalogue; exchange: Exchange; nowMs: number },
): Promise<Intake> {
  const { cat, exchange } = deps;
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return fail(400, CLOB_ERRORS.invalidOrderPayload);
  const b = body as Record<string, unknown>;
  const signed = parseSigned(b.order);
  const orderType = b.orderType;
  const postOnly = b.postOnly ?? false;
  if (
    !signed ||
    typeof b.owner !== 'string' ||
    typeof orderType !== 'string' ||
    !ORDER_TYPES_ACCEPTED.has(orderType) ||
    typeof postOnly !== 'boolean'
  ) {
    return fail(400, CLOB_ERRORS.invalidOrderPayload);
  }
  if (b.owner !== key.key) return fail(400, CLOB_ERRORS.ownerMismatch);
  if (signed.signatureType === 1 || signed.signatureType === 2)
    return fail(400, CLOB_ERRORS.depositWalletOnly);
  if (signed.signatureType !== 0) return fail(400, CLOB_ERRORS.invalidSignature);
  if (signed.signer.toLowerCase() !== key.address) return fail(400, CLOB_ERRORS.signerMismatch);
  const found = cat.byToken(signed.tokenId);
  if (!found) return fail(404, CLOB_ERRORS.marketNotFound);
  const { market, outcome } = found;
  const id = orderHash(signed, market.event.negRisk);
  let recovered: string;
  try {
    recovered = await recoverAddress({ hash: id, signature: signed.signature });
  } catch {
    return fail(400, CLOB_ERRORS.invalidSignature);
  }
  if (recovered.toLowerCase() !== signed.signer.toLowerCase() || signed.maker.toLowerCase() !== key.address) {
    return fail(400, CLOB_ERRORS.invalidSignature);
  }
  const view = exchange.view(market);
  if (!view) return fail(400, CLOB_ERRORS.marketNotReady);
  if (exchange.order(id)) return fail(400, duplicatedError(id));
  const nowS = Math.floor(deps.nowMs / 1000);
  if (orderType === 'GTD' ? signed.expiration <= nowS + 60 : signed.expiration !== 0) {
    return fail(400, CLOB_ERRORS.invalidExpiration);
  }
  const marketable = orderType === 'FOK' || orderType === 'FAK';
  if (postOnly && marketable) return fail(400, CLOB_ERRORS.invalidOrderPayload);

  const { makerAmount, takerAmount, side } = signed;
  const tick = view.tick;
  const priceDp = tickDecimals(tick);
  const amountDp = priceDp + 2;
  const [kind, makerDp, takerDp] =
    side === 'SELL'
      ? (['sell', 2, amountDp] as const)
      : marketable
        ? (['market buy', 2, amountDp] as const)
        : (['buy', amountDp, 2] as const);
  if (decimalsOf(makerAmount) > makerDp || decimalsOf(takerAmount) > takerDp) {
    return fail(400, amountsError(kind, makerDp, takerDp));
  }
  const [collateral, shares] = side === 'BUY' ? [makerAmount, takerAmount] : [takerAmount, makerAmount];
  const implied = collateral / shares;
  if (implied <= 0 || implied >= 1) return fail(400, CLOB_ERRORS.invalidPriceRange);
  const price = limitPrice(collateral, shares, marketable ? priceDp + 2 : null);
  if (price === null || price % tick !== 0 || price < tick || price > ONE - tick) {
    return fail(400, tickError(id, String(implied), fmtUnits(tick)));
  }
  if (side === 'BUY' && marketable) {
    if (collateral < ONE) return fail(400, marketableBuyMinError((collateral / ONE).toFixed(2)));
  } else if (shares < MIN_ORDER_SIZE * ONE) {
    return fail(400, minSizeError(id, fmtUnits(shares), String(MIN_ORDER_SIZE)));
  }

  const order: PmOrder = {
    id: id.toLowerCase(),
    seq: exchange.nextSeq(),
    house: false,
    ownerKey: key.key,
    makerAddress: signed.maker,
    account: key.address,
    market,
    outcome,
    side,
    price,
    size: shares,
    matched: 0,
    makerAmount,
    takerAmount,
    orderType: orderType as OrderType,
    expiration: signed.expiration,
    createdAt: nowS,
    status: 'LIVE',
    tradeIds: [],
  };
  return { ok: true, order, postOnly };
}

/**
 * The checks that read mutable state — duplicate, allowance, free balance — run again here, synchronously right
 * before the order is submitted, so two concurrent posts (or a retried one) cannot both pass them.
 */
export function admit(
  order: PmOrder,
  deps: { cat: Catalogue; exchange: Exchange; accounts: Accounts },
): string | null {
  const { cat, exchange, accounts } = deps;
  if (exchange.order(order.id)) return duplicatedError(order.id);
  const wallet = accounts.wallet(order.account);
  if (!wallet.approved) return allowanceError(order.makerAmount);
  const m = order.market;
  if (order.side === 'BUY') {
    const reserved = reservedCollateral(wallet);
    const need = order.makerAmount + takerFee(m.feeRate, m.feeExp, order.price, order.size);
    return wallet.collateral - reserved < need ? balanceError(wallet.collateral, reserved, need) : null;
  }
  const held = wallet.positions.get(cat.tokenId(m, order.outcome))?.size ?? 0;
  const reserved = reservedTokens(wallet, m, order.outcome);
  return held - reserved < order.makerAmount ? balanceError(held, reserved, order.makerAmount) : null;
}
