// Predict.fun orders: the amounts, the EIP-712 order on the venue's CTF exchange on BNB Chain and its signature,
// written here with viem from the official SDK's published format (`@predictdotfun/sdk` Constants: the domain
// "predict.fun CTF Exchange" version "1", ORDER_STRUCTURE, AddressesByChainId; OrderBuilder.getLimitOrderAmounts,
// buildOrder, signTypedDataOrder). The simulator checks our orders with the SDK itself (ethers), so a misreading
// here cannot be mirrored there. The order hash is the order's id on the venue, known before sending.
import { type Address, concat, type Hex, hashTypedData, zeroAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { Decimal } from '../../domain/decimal.js';
import { AppError, validationError } from '../../errors/app-error.js';
import { CTF_ORDER_TYPES } from '../shared/ctf-order-types.js';
import { ECDSA_VALIDATOR, kernelWrappedHash, type PredictfunCredentials } from './auth.js';

/** The four exchanges a market may settle on, by `isNegRisk` and `isYieldBearing` (SDK AddressesByChainId). */
const EXCHANGES: Record<number, Record<'plain' | 'negRisk' | 'yield' | 'yieldNegRisk', Address>> = {
  56: {
    plain: '0x8BC070BEdAB741406F4B1Eb65A72bee27894B689',
    negRisk: '0x365fb81bd4A24D6303cd2F19c349dE6894D8d58A',
    yield: '0x6bEb5a40C032AFc305961162d8204CDA16DECFa5',
    yieldNegRisk: '0x8A289d458f5a134bA40015085A8F50Ffb681B41d',
  },
  97: {
    plain: '0x2A6413639BD3d73a20ed8C95F634Ce198ABbd2d7',
    negRisk: '0xd690b2bd441bE36431F6F6639D7Ad351e7B29680',
    yield: '0x8a6B4Fa700A1e310b106E7a48bAFa29111f66e89',
    yieldNegRisk: '0x95D5113bc50eD201e319101bbca3e0E250662fCC',
  },
};

export function exchangeAddress(chainId: number, isNegRisk: boolean, isYieldBearing: boolean): Address {
  const byChain = EXCHANGES[chainId];
  if (!byChain) throw new AppError('service_unavailable', `predictfun has no exchange on chain ${chainId}`);
  if (isNegRisk) return isYieldBearing ? byChain.yieldNegRisk : byChain.negRisk;
  return isYieldBearing ? byChain.yield : byChain.plain;
}

const ORDER_TYPES = CTF_ORDER_TYPES;

/** The order struct as the venue's JSON carries it: uint256 as decimal strings, side 0 BUY / 1 SELL. */
export interface PredictfunOrderStruct {
  salt: string;
  maker: Address;
  signer: Address;
  taker: Address;
  tokenId: string;
  makerAmount: string;
  takerAmount: string;
  expiration: string;
  nonce: string;
  feeRateBps: string;
  side: 0 | 1;
  /** 0: EOA, which the venue uses for Predict (Kernel) accounts too, verified through EIP-1271 (SDK). */
  signatureType: 0;
}

export interface SignedPredictfunOrder extends PredictfunOrderStruct {
  hash: Hex;
  signature: Hex;
}

const WEI = 10n ** 18n;
/** The SDK's smallest quantity (getLimitOrderAmounts throws InvalidQuantityError below 1e16 wei). */
const MIN_QUANTITY_WEI = 10n ** 16n;
/** What the SDK signs without an expiry ("an arbitrary date to represent an order without an expiration"). */
export const NO_EXPIRATION_SECONDS = Math.floor(Date.UTC(2100, 0, 1) / 1000);
/** Market orders live five minutes (SDK FIVE_MINUTES_SECONDS, buildOrder). */
export const MARKET_ORDER_LIFETIME_SECONDS = 300;
/**
 * Our salts are the order's creation time in ms × 1000 plus three random digits: the venue's order documents carry
 * no timestamp (ccxt: "the venue returns no order timestamps"), so this is where our own orders keep theirs. The
 * venue takes salts beyond the SDK's 2^31 default (ccxt signs with a millisecond counter).
 */
export function timedSalt(nowMs = Date.now()): bigint {
  return BigInt(nowMs) * 1000n + BigInt(Math.floor(Math.random() * 1000));
}

/** When an order of ours was created, read back from its salt; null for a salt that is not one of ours. */
export function saltCreatedAt(salt: string, nowMs = Date.now()): string | null {
  if (!/^\d{15,16}$/.test(salt)) return null;
  const ms = Number(BigInt(salt) / 1000n);
  return ms >= Date.UTC(2020, 0, 1) && ms <= nowMs + 86_400_000 ? new Date(ms).toISOString() : null;
}

/** A decimal as wei, exactly; null when it has more than 18 decimals. */
export function toWei(n: number): bigint | null {
  const d = Decimal.fromNumber(n);
  if (d.scale > 18) return null;
  return d.units * 10n ** BigInt(18 - d.scale);
}

/** The SDK's retainSignificantDigits: truncates a positive integer to its first `digits` significant digits. */
export function retainSignificantDigits(value: bigint, digits: number): bigint {
  const excess = value.toString().length - digits;
  if (value <= 0n || excess <= 0) return value;
  const divisor = 10n ** BigInt(excess);
  return (value / divisor) * divisor;
}

export interface OrderAmounts {
  pricePerShareWei: bigint;
  quantityWei: bigint;
  makerAmount: bigint;
  takerAmount: bigint;
}

/**
 * The SDK's limit amounts: a BUY offers price × quantity collateral for quantity shares, a SELL the reverse. The
 * venue keeps 3 significant digits of the price and 5 of the quantity; an order that would lose digits is refused
 * here rather than silently sent as a different order.
 */
export function orderAmounts(side: 'buy' | 'sell', price: number, size: number): OrderAmounts {
  const priceWei = toWei(price);
  const quantityWei = toWei(size);
  const problems: string[] = [];
  if (priceWei === null || retainSignificantDigits(priceWei, 3) !== priceWei) {
    problems.push('price: predictfun takes at most 3 significant digits');
  }
  if (quantityWei === null || retainSignificantDigits(quantityWei, 5) !== quantityWei) {
    problems.push('size: predictfun takes at most 5 significant digits');
  } else if (quantityWei < MIN_QUANTITY_WEI) {
    problems.push('size must be at least 0.01 shares on predictfun');
  }
  if (problems.length > 0 || priceWei === null || quantityWei === null) throw validationError(problems);
  const collateral = (priceWei * quantityWei) / WEI;
  return side === 'buy'
    ? { pricePerShareWei: priceWei, quantityWei, makerAmount: collateral, takerAmount: quantityWei }
    : { pricePerShareWei: priceWei, quantityWei, makerAmount: quantityWei, takerAmount: collateral };
}

export interface OrderToSign {
  tokenId: string;
  side: 'buy' | 'sell';
  amounts: OrderAmounts;
  feeRateBps: number;
  expiration: number;
  isNegRisk: boolean;
  isYieldBearing: boolean;
  /** Defaults to timedSalt(). */
  salt?: bigint;
  nonce?: bigint;
}

/**
 * Builds, hashes and signs an order. An EOA signs the EIP-712 typed data; a Predict account is both maker and
 * signer, and its owner key signs the order hash wrapped in the account's Kernel domain, sent as
 * 0x01 ‖ ECDSA validator ‖ signature (SDK signTypedDataOrder → signPredictAccountMessage).
 */
export async function signOrder(
  creds: PredictfunCredentials,
  chainId: number,
  input: OrderToSign,
): Promise<SignedPredictfunOrder> {
  if (!creds.privateKey) {
    throw new AppError(
      'validation_error',
      'predictfun orders are signed by the wallet: credentials.private_key is required to trade',
      { validationErrors: ['credentials.private_key is required to place orders (a jwt alone cannot sign)'] },
    );
  }
  const owner = privateKeyToAccount(creds.privateKey);
  const account = creds.predictAccount ?? owner.address;
  const salt = input.salt ?? timedSalt();
  const order: PredictfunOrderStruct = {
    salt: salt.toString(),
    maker: account,
    signer: account,
    taker: zeroAddress,
    tokenId: input.tokenId,
    makerAmount: input.amounts.makerAmount.toString(),
    takerAmount: input.amounts.takerAmount.toString(),
    expiration: String(input.expiration),
    nonce: (input.nonce ?? 0n).toString(),
    feeRateBps: String(input.feeRateBps),
    side: input.side === 'buy' ? 0 : 1,
    signatureType: 0,
  };
  const typed = {
    domain: {
      name: 'predict.fun CTF Exchange',
      version: '1',
      chainId,
      verifyingContract: exchangeAddress(chainId, input.isNegRisk, input.isYieldBearing),
    },
    types: ORDER_TYPES,
    primaryType: 'Order' as const,
    message: {
      ...order,
      salt,
      tokenId: BigInt(order.tokenId),
      makerAmount: input.amounts.makerAmount,
      takerAmount: input.amounts.takerAmount,
      expiration: BigInt(input.expiration),
      nonce: input.nonce ?? 0n,
      feeRateBps: BigInt(input.feeRateBps),
    },
  };
  const hash = hashTypedData(typed);
  let signature: Hex;
  if (creds.predictAccount) {
    const digest = kernelWrappedHash(hash, creds.predictAccount, chainId);
    signature = concat(['0x01', ECDSA_VALIDATOR, await owner.signMessage({ message: { raw: digest } })]);
  } else {
    signature = await owner.signTypedData(typed);
  }
  return { ...order, hash, signature };
}
