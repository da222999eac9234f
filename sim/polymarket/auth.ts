// CLOB authentication as the exchange checks it. L1: an EIP-712 ClobAuth signature by POLY_ADDRESS over
// (address, timestamp, nonce, message), used only to create or derive API keys. L2: HMAC-SHA256 keyed by the
// base64url secret over timestamp + METHOD + path (no query) + raw body, base64url with padding, compared in
// constant time. Both timestamps are checked against the wall clock, not the simulator's clock.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { type Hex, recoverTypedDataAddress } from 'viem';
import { ownValue } from '../shared/own-key.js';
import type { Accounts, ApiKey } from './accounts.js';
import { CHAIN_ID, CLOB_AUTH_MESSAGE, CLOB_AUTH_TYPES } from './contracts.js';

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = ownValue(headers, name.toLowerCase());
  return Array.isArray(value) ? value[0] : value;
}

function fresh(timestamp: string | undefined, windowSeconds: number): boolean {
  if (!timestamp || !/^\d{1,12}$/.test(timestamp)) return false;
  return Math.abs(Date.now() / 1000 - Number(timestamp)) <= windowSeconds;
}

export interface L1Identity {
  address: string;
  nonce: string;
}

export async function verifyL1(
  headers: IncomingHttpHeaders,
  windowSeconds: number,
): Promise<L1Identity | null> {
  const address = header(headers, 'POLY_ADDRESS');
  const signature = header(headers, 'POLY_SIGNATURE');
  const timestamp = header(headers, 'POLY_TIMESTAMP');
  const nonce = header(headers, 'POLY_NONCE') ?? '0';
  if (!address || !/^0x[0-9a-fA-F]{40}$/.test(address) || !signature || !/^0x[0-9a-fA-F]+$/.test(signature)) {
    return null;
  }
  if (!/^\d{1,78}$/.test(nonce) || !fresh(timestamp, windowSeconds)) return null;
  try {
    const signer = await recoverTypedDataAddress({
      domain: { name: 'ClobAuthDomain', version: '1', chainId: CHAIN_ID },
      types: CLOB_AUTH_TYPES,
      primaryType: 'ClobAuth',
      message: {
        address: address as Hex,
        timestamp: timestamp as string,
        nonce: BigInt(nonce),
        message: CLOB_AUTH_MESSAGE,
      },
      signature: signature as Hex,
    });
    return signer.toLowerCase() === address.toLowerCase() ? { address: address.toLowerCase(), nonce } : null;
  } catch {
    return null;
  }
}

/** The HMAC a client must send for a request (exported for tests and for the simulator's own tooling). */
export function l2Signature(
  secret: string,
  timestamp: string,
  method: string,
  path: string,
  body: string,
): string {
  return createHmac('sha256', Buffer.from(secret, 'base64'))
    .update(`${timestamp}${method}${path}${body}`)
    .digest('base64')
    .replace(/\+/g, '-')
    .replace(/\//g, '_');
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

export function verifyL2(
  headers: IncomingHttpHeaders,
  method: string,
  path: string,
  body: string,
  accounts: Accounts,
  windowSeconds: number,
): ApiKey | null {
  const address = header(headers, 'POLY_ADDRESS');
  const signature = header(headers, 'POLY_SIGNATURE');
  const timestamp = header(headers, 'POLY_TIMESTAMP');
  const apiKey = header(headers, 'POLY_API_KEY');
  const passphrase = header(headers, 'POLY_PASSPHRASE');
  if (!address || !signature || !timestamp || !apiKey || !passphrase) return null;
  const key = accounts.key(apiKey);
  if (!key || !sameText(passphrase, key.passphrase) || address.toLowerCase() !== key.address) return null;
  if (!fresh(timestamp, windowSeconds)) return null;
  return sameText(signature, l2Signature(key.secret, timestamp, method, path, body)) ? key : null;
}
