// Builds and signs Opinion limit orders with viem: the 12-field CTF-exchange `Order` struct in the domain "OPINION
// CTF Exchange" v1 on BNB Chain (56) at the quote token's exchange contract, maker = the user's Safe, signer = the
// EOA, signatureType 2, nonce/feeRateBps/expiration 0, amounts in the quote token's base units (18 decimals for BSC
// USDT) with the price exact to 6 decimals, as the official SDK builds them (@opinion-labs/opinion-clob-sdk 0.6.1
// `client.ts` placeOrder, `chain/order_utils/{order_builder,utils}.ts`). Our own code, not the SDK's: the SDK is
// held to it on its vectors (test/unit/venues/opinion/signing.test.ts) and the simulator checks with ethers.
import { type Hex, hashTypedData, keccak256, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { Decimal } from '../../domain/decimal.js';
import { AppError } from '../../errors/app-error.js';
import { CTF_ORDER_TYPES } from '../shared/ctf-order-types.js';

export const OPINION_CHAIN_ID = 56;
export const OPINION_ORDER_DOMAIN = { name: 'OPINION CTF Exchange', version: '1' } as const;
/** The SDK's SignatureType.POLY_GNOSIS_SAFE: the Safe is the maker, its owner EOA signs. */
export const SAFE_SIGNATURE_TYPE = 2;
/** The price is carried as a fraction over 10^6 (SDK calculateOrderAmounts). */
const PRICE_DECIMALS = 6;
const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

export const OPINION_ORDER_TYPES = CTF_ORDER_TYPES;

export interface OpinionOrderStruct {
  salt: bigint;
  maker: Hex;
  signer: Hex;
  taker: Hex;
  tokenId: bigint;
  makerAmount: bigint;
  takerAmount: bigint;
  expiration: bigint;
  nonce: bigint;
  feeRateBps: bigint;
  /** 0 BUY, 1 SELL (SDK OrderSide). */
  side: number;
  signatureType: number;
}

export interface OrderToSign {
  marketId: number;
  tokenId: string;
  side: 'buy' | 'sell';
  price: number;
  size: number;
  /** Unix seconds; gtd only (`orderExpTime`, the venue's automatic cancellation). */
  expiresAt?: number;
  maker: Hex;
  exchange: Hex;
  quoteToken: Hex;
  decimals: number;
  /** Fixed in tests (the SDK's saltGenerator); random otherwise. */
  salt?: bigint;
  /** Unix seconds of signing; now otherwise. */
  timestamp?: number;
}

export interface SignedOpinionOrder {
  /** The exact JSON body of `POST /order`. */
  body: string;
  struct: OpinionOrderStruct;
  signature: Hex;
  /** The EIP-712 digest the signature is over (the exchange contract's order hash). */
  orderHash: Hex;
}

/** The SDK's generateSalt: keccak256 of 32 random bytes. */
export function randomSalt(): bigint {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return BigInt(keccak256(toHex(bytes)));
}

/**
 * The order's amounts in quote-token base units. Shares are `size` × 10^decimals; the price is n / 10^6. The SDK
 * makes both amounts multiples of one lot k (BUY: maker k·n quote, taker k·10^6 shares; SELL: maker k·10^6 shares,
 * taker k·n quote), so that maker/taker is the price exactly; with k = shares / 10^6 nothing is rounded away, which
 * needs a size with at most decimals − 6 places (12 for USDT).
 */
export function orderAmounts(
  side: 'buy' | 'sell',
  price: number,
  size: number,
  decimals: number,
): { makerAmount: bigint; takerAmount: bigint } {
  const problems = amountProblems(price, size, decimals);
  if (problems.length > 0)
    throw new AppError('validation_error', problems[0] as string, { validationErrors: problems });
  const numerator = baseUnits(Decimal.fromNumber(price), PRICE_DECIMALS);
  const lot = baseUnits(Decimal.fromNumber(size), decimals - PRICE_DECIMALS);
  const shares = lot * 10n ** BigInt(PRICE_DECIMALS);
  const quote = lot * numerator;
  return side === 'buy'
    ? { makerAmount: quote, takerAmount: shares }
    : { makerAmount: shares, takerAmount: quote };
}

/** The price and size rules the amounts need (SDK parsePrice / calculateOrderAmounts / calculateMakerAmount). */
export function amountProblems(price: number, size: number, decimals: number): string[] {
  const problems: string[] = [];
  if (!(price > 0 && price < 1)) problems.push('price must be strictly between 0 and 1');
  else if (Decimal.fromNumber(price).places > PRICE_DECIMALS)
    problems.push(`opinion prices carry at most ${PRICE_DECIMALS} decimals`);
  // The SDK refuses an amount under 1 (shares for a limit order given in shares).
  if (!(size >= 1)) problems.push('opinion orders are at least 1 share');
  else if (Decimal.fromNumber(size).places > decimals - PRICE_DECIMALS)
    problems.push(`opinion order sizes carry at most ${decimals - PRICE_DECIMALS} decimals`);
  return problems;
}

/** `d` in units of 10^-places (d must have at most that many decimals). */
function baseUnits(d: Decimal, places: number): bigint {
  return d.units * 10n ** BigInt(places - d.places);
}

export function orderHash(struct: OpinionOrderStruct, exchange: Hex): Hex {
  return hashTypedData({
    domain: { ...OPINION_ORDER_DOMAIN, chainId: OPINION_CHAIN_ID, verifyingContract: exchange },
    types: OPINION_ORDER_TYPES,
    primaryType: 'Order',
    message: struct,
  });
}

/** Signs a limit order for `privateKey` (the Safe's owner) and renders the body the SDK posts. */
export async function signOpinionOrder(privateKey: Hex, order: OrderToSign): Promise<SignedOpinionOrder> {
  const account = privateKeyToAccount(privateKey);
  const { makerAmount, takerAmount } = orderAmounts(order.side, order.price, order.size, order.decimals);
  const struct: OpinionOrderStruct = {
    salt: order.salt ?? randomSalt(),
    maker: order.maker,
    signer: account.address,
    taker: ZERO_ADDRESS,
    tokenId: BigInt(order.tokenId),
    makerAmount,
    takerAmount,
    // The signed expiration stays 0 as the SDK leaves it; a gtd order's end is `orderExpTime` (the API's
    // "automatic cancellation" field).
    expiration: 0n,
    nonce: 0n,
    feeRateBps: 0n,
    side: order.side === 'buy' ? 0 : 1,
    signatureType: SAFE_SIGNATURE_TYPE,
  };
  const domain = { ...OPINION_ORDER_DOMAIN, chainId: OPINION_CHAIN_ID, verifyingContract: order.exchange };
  const signature = await account.signTypedData({
    domain,
    types: OPINION_ORDER_TYPES,
    primaryType: 'Order',
    message: struct,
  });
  const body = {
    salt: struct.salt.toString(),
    topicId: order.marketId,
    maker: struct.maker,
    signer: struct.signer,
    taker: struct.taker,
    tokenId: struct.tokenId.toString(),
    makerAmount: struct.makerAmount.toString(),
    takerAmount: struct.takerAmount.toString(),
    expiration: struct.expiration.toString(),
    nonce: struct.nonce.toString(),
    feeRateBps: struct.feeRateBps.toString(),
    side: String(struct.side),
    signatureType: String(struct.signatureType),
    signature,
    sign: signature,
    contractAddress: '',
    currencyAddress: order.quoteToken,
    price: Decimal.fromNumber(order.price).toString(),
    tradingMethod: 2,
    timestamp: order.timestamp ?? Math.floor(Date.now() / 1000),
    safeRate: '0',
    orderExpTime: String(order.expiresAt ?? 0),
  };
  return { body: JSON.stringify(body), struct, signature, orderHash: orderHash(struct, order.exchange) };
}
