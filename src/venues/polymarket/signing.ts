// Builds and signs CLOB V2 orders with the official SDK's order builder (its amount rounding per tick is the
// exchange's own), and computes the order hash, which is the order id the exchange assigns: knowing it before
// sending is what lets an order whose answer was lost be reconciled instead of re-sent.
import {
  getContractConfig,
  OrderBuilder,
  type OrderType,
  orderToJsonV2,
  Side,
  SignatureTypeV2,
} from '@polymarket/clob-client-v2';
import { type Hex, hashTypedData } from 'viem';
import { AppError } from '../../errors/app-error.js';
import type { PolymarketSignatureType, PolymarketSigner } from './auth.js';

/** Tick sizes the V2 order builder has rounding rules for. */
const TICK_SIZES = ['0.1', '0.01', '0.005', '0.0025', '0.001', '0.0001'] as const;
type TickSize = (typeof TICK_SIZES)[number];

export type PolymarketOrderType = 'GTC' | 'GTD' | 'FOK' | 'FAK';

export interface OrderToSign {
  tokenId: string;
  price: number;
  size: number;
  side: 'buy' | 'sell';
  tickSize: number;
  negRisk: boolean;
  orderType: PolymarketOrderType;
  /** Unix seconds; GTD only. */
  expiration?: number;
  /** The caller's CLOB API key: the order's `owner`. */
  owner: string;
}

export interface SignedOrder {
  /** The exact JSON body of `POST /order`. */
  body: string;
  orderHash: Hex;
  /** The shares the signed order names (its taker amount on a BUY, maker amount on a SELL), human units. */
  shares: number;
  /** The pUSD it names (maker amount on a BUY, taker amount on a SELL), human units. */
  collateral: number;
}

/** FOK and FAK orders are market orders to the CLOB, whose amounts the SDK builds on its market-order path. */
export const isMarketOrderType = (t: PolymarketOrderType): boolean => t === 'FOK' || t === 'FAK';

const MICRO = 1_000_000n;
const CENT_MICROS = 10_000n;
const micros = (n: number): bigint => BigInt(Math.round(n * 1e6));

/**
 * The SDK's market-order `amount` for `size` shares at `price`: shares for a SELL, and for a BUY the dollars
 * size × price rounded down to whole cents, since a market BUY's maker amount carries at most 2 decimals
 * (ROUNDING_CONFIG size: 2; getMarketOrderRawAmounts rounds it down). Rounding down never spends more than
 * size × price, so the BUY asks for slightly fewer shares when size × price is not whole cents.
 */
export function marketOrderAmount(side: 'buy' | 'sell', price: number, size: number): number {
  if (side === 'sell') return size;
  const cost = (micros(size) * micros(price)) / MICRO;
  return Number(cost - (cost % CENT_MICROS)) / 1e6;
}

/** The V2 `Order` struct, field order as the exchange contract hashes it. */
const ORDER_V2_TYPES = {
  Order: [
    { name: 'salt', type: 'uint256' },
    { name: 'maker', type: 'address' },
    { name: 'signer', type: 'address' },
    { name: 'tokenId', type: 'uint256' },
    { name: 'makerAmount', type: 'uint256' },
    { name: 'takerAmount', type: 'uint256' },
    { name: 'side', type: 'uint8' },
    { name: 'signatureType', type: 'uint8' },
    { name: 'timestamp', type: 'uint256' },
    { name: 'metadata', type: 'bytes32' },
    { name: 'builder', type: 'bytes32' },
  ],
} as const;

export function exchangeAddress(chainId: number, negRisk: boolean): Hex {
  const contracts = getContractConfig(chainId);
  return (negRisk ? contracts.negRiskExchangeV2 : contracts.exchangeV2) as Hex;
}

export function tickSizeKey(tick: number): TickSize {
  const key = TICK_SIZES.find((t) => Math.abs(Number(t) - tick) < 1e-12);
  if (!key)
    throw new AppError('bad_request', `polymarket market has tick size ${tick}, which orders cannot use`);
  return key;
}

/** The exchange's own price and size rules, checked here so a client gets a precise 400 before any signing. */
export function checkOrderTerms(price: number, size: number, tick: number): void {
  const problems: string[] = [];
  const steps = price / tick;
  if (Math.abs(steps - Math.round(steps)) > 1e-9)
    problems.push(`price ${price} is not a multiple of the tick ${tick}`);
  if (price < tick - 1e-12 || price > 1 - tick + 1e-12) {
    problems.push(`price ${price} must be between ${tick} and ${Number((1 - tick).toFixed(6))}`);
  }
  if (Math.abs(size * 100 - Math.round(size * 100)) > 1e-6)
    problems.push(`size ${size} has more than 2 decimals`);
  if (problems.length > 0)
    throw new AppError('validation_error', problems[0] as string, { validationErrors: problems });
}

/** Who signs for whom: the EOA for itself (0), for its proxy (1) or Safe (2), or for its deposit wallet (3). */
export interface SigningWallet {
  signatureType: PolymarketSignatureType;
  maker: Hex;
}

const SDK_SIGNATURE_TYPES: Record<PolymarketSignatureType, SignatureTypeV2> = {
  0: SignatureTypeV2.EOA,
  1: SignatureTypeV2.POLY_PROXY,
  2: SignatureTypeV2.POLY_GNOSIS_SAFE,
  3: SignatureTypeV2.POLY_1271,
};

/**
 * Signs through the SDK's order builder, which sets maker = funder and signer = EOA for types 0-2, and
 * maker = signer = the deposit wallet for type 3 with the ERC-7739 `TypedDataSign` envelope (domain
 * "DepositWallet" v1) the wallet's isValidSignature expects.
 */
export async function signOrder(
  signer: PolymarketSigner,
  chainId: number,
  order: OrderToSign,
  wallet: SigningWallet = { signatureType: 0, maker: signer.address },
): Promise<SignedOrder> {
  checkOrderTerms(order.price, order.size, order.tickSize);
  const builder = new OrderBuilder(
    signer.wallet as never,
    chainId,
    SDK_SIGNATURE_TYPES[wallet.signatureType],
    wallet.signatureType === 0 ? undefined : wallet.maker,
  );
  const side = order.side === 'buy' ? Side.BUY : Side.SELL;
  const options = { tickSize: tickSizeKey(order.tickSize), negRisk: order.negRisk };
  // FOK/FAK go through the SDK's market-order builder (its createMarketOrder path): the CLOB refuses a market
  // order whose amounts carry the limit-order precision (py-clob-client #121, py-clob-client-v2 #99).
  const signed = isMarketOrderType(order.orderType)
    ? await builder.buildMarketOrder(
        {
          tokenID: order.tokenId,
          price: order.price,
          amount: marketOrderAmount(order.side, order.price, order.size),
          side,
          orderType: order.orderType as OrderType.FOK | OrderType.FAK,
        },
        options,
        2,
      )
    : await builder.buildOrder(
        {
          tokenID: order.tokenId,
          price: order.price,
          size: order.size,
          side,
          ...(order.expiration !== undefined ? { expiration: order.expiration } : {}),
        },
        options,
        2,
      );
  const s = signed as unknown as {
    salt: string;
    maker: Hex;
    signer: Hex;
    tokenId: string;
    makerAmount: string;
    takerAmount: string;
    side: string;
    signatureType: number;
    timestamp: string;
    metadata: Hex;
    builder: Hex;
  };
  const orderHash = hashTypedData({
    domain: {
      name: 'Polymarket CTF Exchange',
      version: '2',
      chainId,
      verifyingContract: exchangeAddress(chainId, order.negRisk),
    },
    types: ORDER_V2_TYPES,
    primaryType: 'Order',
    message: {
      salt: BigInt(s.salt),
      maker: s.maker,
      signer: s.signer,
      tokenId: BigInt(s.tokenId),
      makerAmount: BigInt(s.makerAmount),
      takerAmount: BigInt(s.takerAmount),
      side: s.side === 'BUY' ? 0 : 1,
      signatureType: s.signatureType,
      timestamp: BigInt(s.timestamp),
      metadata: s.metadata,
      builder: s.builder,
    },
  });
  const payload = orderToJsonV2(signed as never, order.owner, order.orderType as OrderType, false, false);
  const [collateral, shares] =
    s.side === 'BUY' ? [s.makerAmount, s.takerAmount] : [s.takerAmount, s.makerAmount];
  return {
    body: JSON.stringify(payload),
    orderHash,
    shares: Number(shares) / 1e6,
    collateral: Number(collateral) / 1e6,
  };
}
