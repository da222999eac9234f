// Limitless CLOB orders: the amounts, the EIP-712 typed data and its signature, written with viem. The rules are
// those of @limitless-exchange/sdk 1.1.0 (src/orders/builder.ts, src/orders/signer.ts): domain "Limitless CTF
// Exchange" version "1" on Base (chain 8453), verifying contract = the market's `venue.exchange`; prices on a
// 0.001 tick; shares and USDC both 6-decimal integers; a limit order's shares a multiple of 1e6 / tick (1000 raw
// units, i.e. 0.001 share) and its USDC shares × price rounded up for a BUY, down for a SELL. The SDK itself signs
// the same orders in test/unit/venues/limitless/signing.test.ts and the two are held equal.
import { type Hex, hashTypedData } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { AppError } from '../../errors/app-error.js';
import { CTF_ORDER_TYPES } from '../shared/ctf-order-types.js';

export const LIMITLESS_CHAIN_ID = 8453;
export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
const SCALE = 1_000_000n;
/** 0.001 in 1e6 units. */
const TICK_UNITS = 1_000n;
/** Shares step for a limit order: 1e6 / tick (SDK `sharesStep`). */
const SHARES_STEP = SCALE / TICK_UNITS;

export const LIMITLESS_ORDER_TYPES = CTF_ORDER_TYPES;

/** The order as POST /orders carries it (`order`), before its signature; numbers as the SDK sends them. */
export interface LimitlessUnsignedOrder {
  salt: number;
  maker: string;
  signer: string;
  taker: string;
  tokenId: string;
  makerAmount: number;
  takerAmount: number;
  expiration: string;
  nonce: number;
  feeRateBps: number;
  /** 0 BUY, 1 SELL. */
  side: 0 | 1;
  /** 0 EOA: Limitless API orders are signed by the wallet's own key. */
  signatureType: 0;
  price: number;
}

export interface LimitlessSignedOrder extends LimitlessUnsignedOrder {
  signature: Hex;
}

/** A decimal number as 1e6 units, exactly (no float multiplication). */
function units(value: number): bigint {
  const s = value.toFixed(6);
  const [int, frac = ''] = s.split('.');
  return BigInt(int ?? '0') * SCALE + BigInt(frac.padEnd(6, '0').slice(0, 6));
}

/**
 * Maker and taker amounts of a limit (GTC/FAK) order, as the SDK's calculateGTCAmountsTickAligned computes them;
 * a price off the 0.001 tick or a size that is not a multiple of 0.001 share is refused (the SDK never rounds).
 */
export function limitAmounts(
  side: 'buy' | 'sell',
  price: number,
  size: number,
): { makerAmount: bigint; takerAmount: bigint } {
  const priceUnits = units(price);
  const shares = units(size);
  const problems: string[] = [];
  if (priceUnits <= 0n || priceUnits >= SCALE) problems.push('price must be inside (0, 1)');
  if (priceUnits % TICK_UNITS !== 0n) problems.push('limitless prices are on a 0.001 tick');
  if (shares <= 0n) problems.push('size must be positive');
  if (shares % SHARES_STEP !== 0n) problems.push('limitless sizes are multiples of 0.001 share');
  if (Math.abs(Number(priceUnits) / 1e6 - price) > 1e-9 || Math.abs(Number(shares) / 1e6 - size) > 1e-9) {
    problems.push('price and size carry at most 6 decimals');
  }
  if (problems.length > 0) {
    throw new AppError('validation_error', problems.join('; '), { validationErrors: problems });
  }
  const numerator = shares * priceUnits;
  const collateral = side === 'buy' ? (numerator + SCALE - 1n) / SCALE : numerator / SCALE;
  return side === 'buy'
    ? { makerAmount: collateral, takerAmount: shares }
    : { makerAmount: shares, takerAmount: collateral };
}

/** Unique per order: wall time in µs plus a sub-ms offset plus a day, the SDK's own pattern (generateSalt). */
export function newSalt(nowMs: number = Date.now()): number {
  const nanoOffset = Math.floor(performance.now() * 1e3) % 1e6;
  return nowMs * 1e3 + nanoOffset + 86_400_000;
}

export function domainOf(exchange: string, chainId: number = LIMITLESS_CHAIN_ID) {
  return {
    name: 'Limitless CTF Exchange',
    version: '1',
    chainId,
    verifyingContract: exchange as Hex,
  } as const;
}

function messageOf(order: LimitlessUnsignedOrder) {
  return {
    salt: BigInt(order.salt),
    maker: order.maker as Hex,
    signer: order.signer as Hex,
    taker: order.taker as Hex,
    tokenId: BigInt(order.tokenId),
    makerAmount: BigInt(order.makerAmount),
    takerAmount: BigInt(order.takerAmount),
    expiration: BigInt(order.expiration),
    nonce: BigInt(order.nonce),
    feeRateBps: BigInt(order.feeRateBps),
    side: order.side,
    signatureType: order.signatureType,
  };
}

/** The EIP-712 digest the exchange contract checks (the on-chain order hash). */
export function limitlessOrderHash(order: LimitlessUnsignedOrder, exchange: string, chainId?: number): Hex {
  return hashTypedData({
    domain: domainOf(exchange, chainId),
    types: LIMITLESS_ORDER_TYPES,
    primaryType: 'Order',
    message: messageOf(order),
  });
}

export async function signLimitlessOrder(
  privateKey: Hex,
  order: LimitlessUnsignedOrder,
  exchange: string,
  chainId?: number,
): Promise<LimitlessSignedOrder> {
  const account = privateKeyToAccount(privateKey);
  if (account.address.toLowerCase() !== order.signer.toLowerCase()) {
    throw new AppError('validation_error', 'limitless: the order signer is not the private key’s address');
  }
  const signature = await account.signTypedData({
    domain: domainOf(exchange, chainId),
    types: LIMITLESS_ORDER_TYPES,
    primaryType: 'Order',
    message: messageOf(order),
  });
  return { ...order, signature };
}

/** The address of a 0x-prefixed 32-byte key; 400 for anything else. */
export function addressOfKey(privateKey: string): { key: Hex; address: string } {
  if (!/^0x[0-9a-fA-F]{64}$/.test(privateKey)) {
    throw new AppError('validation_error', 'limitless private_key must be 0x followed by 64 hex digits', {
      validationErrors: ['credentials.private_key must be a 0x-prefixed 32-byte hex key'],
    });
  }
  try {
    return { key: privateKey as Hex, address: privateKeyToAccount(privateKey as Hex).address };
  } catch {
    throw new AppError('validation_error', 'limitless private_key is not a valid secp256k1 key', {
      validationErrors: ['credentials.private_key is not a valid secp256k1 key'],
    });
  }
}
