// Turns a POST /order body into a placed order the way the CLOB validates it: payload shape, owner and signer
// against the API key, the V2 EIP-712 signature (domain by neg-risk), market state, duplicates, expiration,
// amount precision and tick by the SDK's rounding config and minimum size; then (admit) duplicate, allowance and
// free balance. The order id is the EIP-712 order hash, so a client can compute it before sending.
import type { Hex } from 'viem';
import { type Accounts, type ApiKey, reservedCollateral, reservedTokens } from './accounts.js';
import { type Catalogue, MIN_ORDER_SIZE } from './catalogue.js';
import type { SimChain } from './chain.js';
import { CONTRACTS, ORDER_DOMAIN_VERSION } from './contracts.js';
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
import { newOrder, type OrderType, type PmOrder } from './order.js';
import { depositWalletAccepts, orderDigest, recoverOrderSigner } from './order-signature.js';
import { takerFee } from './settlement.js';
import { exchangeFor } from './settlement-chain.js';
import { decimalsOf, fmtUnits, ONE, tickDecimals } from './units.js';
import type { WalletRegistry } from './wallet-registry.js';

/** The funder's balance and allowance on the sandbox chain, for a market listed there (SimChain.tradingFunds). */
export interface ChainFunds {
  balance: bigint;
  allowance: bigint;
}

export type Intake =
  | { ok: true; order: PmOrder; postOnly: boolean; chainFunds: ChainFunds | null }
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
  return orderDigest(o, exchangeDomain(negRisk)) as Hex;
}

function exchangeDomain(negRisk: boolean) {
  return {
    version: ORDER_DOMAIN_VERSION,
    verifyingContract: negRisk ? CONTRACTS.negRiskExchangeV2 : CONTRACTS.exchangeV2,
  };
}

/**
 * Who may sign for which maker (sources in docs/venues/polymarket-sim.md): an account created after the cutover
 * only through its deposit wallet; types 0–2 sign with the API key's own address for the EOA, its proxy or its
 * Safe; type 3 names the deposit wallet as both maker and signer, and that wallet must belong to the key's address.
 */
function makerRule(signed: SignedOrder, key: ApiKey, wallets: WalletRegistry): Intake | null {
  const type = signed.signatureType;
  const signer = signed.signer.toLowerCase();
  const maker = signed.maker.toLowerCase();
  if (type < 0 || type > 3) return fail(400, CLOB_ERRORS.invalidSignature);
  if (type !== 3 && wallets.postCutover(key.address)) return fail(400, CLOB_ERRORS.depositWalletOnly);
  if (type === 3) {
    if (signer !== maker) return fail(400, CLOB_ERRORS.invalidSignature);
    const owner = wallets.ownerOf(maker);
    if (owner?.kind !== 'deposit' || owner.owner !== key.address)
      return fail(400, CLOB_ERRORS.signerMismatch);
    // Refused upstream for some accounts although key and wallet are right (py-clob-client-v2 #70, #103).
    if (wallets.depositOrdersAreRefused(key.address)) return fail(400, CLOB_ERRORS.signerMismatch);
    return null;
  }
  if (signer !== key.address) return fail(400, CLOB_ERRORS.signerMismatch);
  // The exchange only honours an EOA signature for the EOA itself, its proxy (1) or its Safe (2).
  if (maker !== wallets.walletFor(key.address, type)) return fail(400, CLOB_ERRORS.invalidSignature);
  return null;
}

/**
 * The exchange's signature check. Type 3 (POLY_1271) asks the deposit wallet: with the sandbox chain, the wallet
 * contract's own `isValidSignature(orderHash, signature)` (an eth_call; the digest is ours in ethers, the check the
 * contract's in Solidity); without a chain, the in-simulator stand-in of the same ERC-7739 check.
 */
async function signatureValid(
  signed: SignedOrder,
  negRisk: boolean,
  wallets: WalletRegistry,
  chain: SimChain | null,
): Promise<boolean> {
  const domain = exchangeDomain(negRisk);
  if (signed.signatureType === 3) {
    const owner = wallets.ownerOf(signed.maker);
    if (!owner) return false;
    if (chain)
      return chain.acceptsSignature(signed.maker, orderDigest(signed, domain) as Hex, signed.signature);
    return depositWalletAccepts(signed, domain, signed.maker, owner.owner, signed.signature);
  }
  return recoverOrderSigner(orderDigest(signed, domain), signed.signature) === signed.signer.toLowerCase();
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
  deps: {
    cat: Catalogue;
    exchange: Exchange;
    wallets: WalletRegistry;
    nowMs: number;
    /** The sandbox chain, when there is one: type-3 signatures are then checked by the wallet contract. */
    chain: SimChain | null;
  },
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
  const refused = makerRule(signed, key, deps.wallets);
  if (refused) return refused;
  const found = cat.byToken(signed.tokenId);
  if (!found) return fail(404, CLOB_ERRORS.marketNotFound);
  const { market, outcome } = found;
  // A Protocol-V2 market settles on ExchangeV3, whose orders are signed in its own domain (version "3"): an order
  // signed for a V2 exchange does not verify there. The simulator does not take ExchangeV3 orders at all.
  if (market.protocolV2) return fail(400, CLOB_ERRORS.invalidSignature);
  const id = orderHash(signed, market.event.negRisk);
  if (!(await signatureValid(signed, market.event.negRisk, deps.wallets, deps.chain)))
    return fail(400, CLOB_ERRORS.invalidSignature);
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

  const order = newOrder({
    id: id.toLowerCase(),
    seq: exchange.nextSeq(),
    house: false,
    ownerKey: key.key,
    makerAddress: signed.maker.toLowerCase(),
    // The maker's funds move: the EOA itself, or the proxy, Safe or deposit wallet it signs for.
    account: signed.maker.toLowerCase(),
    market,
    outcome,
    side,
    price,
    size: shares,
    makerAmount,
    takerAmount,
    orderType: orderType as OrderType,
    expiration: signed.expiration,
    createdAt: nowS,
  });
  // A market listed on the sandbox chain settles there, so, as the real CLOB does, the funder's balance and
  // allowance are read from the chain (collateral for a buy, the outcome token for a sell).
  const chainFunds =
    deps.chain && cat.isOnChain(market)
      ? await deps.chain.tradingFunds(
          order.account,
          exchangeFor(market.event.negRisk),
          side === 'BUY' ? null : signed.tokenId,
        )
      : null;
  return { ok: true, order, postOnly, chainFunds };
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const units = (v: bigint): number => Number(v > MAX_SAFE ? MAX_SAFE : v);

/**
 * The checks that read mutable state — duplicate, allowance, free balance — run again here, synchronously right
 * before the order is submitted, so two concurrent posts (or a retried one) cannot both pass them. With
 * `chainFunds` (a market on the sandbox chain) the balance and allowance are the chain's, less what the funder's
 * live orders already hold back; otherwise the ledger's.
 */
export function admit(
  order: PmOrder,
  deps: { cat: Catalogue; exchange: Exchange; accounts: Accounts },
  chainFunds: ChainFunds | null = null,
): string | null {
  const { cat, exchange, accounts } = deps;
  if (exchange.order(order.id)) return duplicatedError(order.id);
  const wallet = accounts.wallet(order.account);
  // The ledger's approval flag stands in for the chain's only where there is no chain to read.
  if (!chainFunds && !wallet.approved) return allowanceError(order.makerAmount);
  const m = order.market;
  const [reserved, need, ledgerBalance] =
    order.side === 'BUY'
      ? [
          reservedCollateral(wallet),
          order.makerAmount + takerFee(m.feeRate, m.feeExp, order.price, order.size),
          wallet.collateral,
        ]
      : [
          reservedTokens(wallet, m, order.outcome),
          order.makerAmount,
          wallet.positions.get(cat.tokenId(m, order.outcome))?.size ?? 0,
        ];
  if (chainFunds && chainFunds.allowance < BigInt(reserved + need))
    return allowanceError(order.makerAmount, units(chainFunds.allowance));
  const balance = chainFunds ? units(chainFunds.balance) : ledgerBalance;
  return balance - reserved < need ? balanceError(balance, reserved, need) : null;
}
