// Polymarket's two authentication levels. L1: an EIP-712 `ClobAuth` signature by the wallet, used only to create or
// derive CLOB API credentials (signed by the official SDK's header builder). L2: every private call carries an
// HMAC-SHA256 over `timestamp + METHOD + path + body` keyed by the base64url API secret. Secrets never leave here
// except inside the signed headers.
import { createHmac } from 'node:crypto';
import { createL1Headers } from '@polymarket/clob-client-v2';
import type { Hex, LocalAccount } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { secp256k1Key, secp256k1KeyMessage, secp256k1KeyProblem } from '../../domain/secp256k1-key.js';
import { AppError } from '../../errors/app-error.js';
import type { VenueSession } from '../port.js';
import { ParsedKeyCache } from '../shared/parsed-key-cache.js';

export interface PolymarketApiCreds {
  key: string;
  secret: string;
  passphrase: string;
}

export interface PolymarketSigner {
  /** The EOA that signs orders and owns the API key (signature type 0: it is also the maker). */
  address: Hex;
  account: LocalAccount;
  /**
   * The signer shape the official SDK accepts, a viem wallet client's `account` and `signTypedData`, over the local
   * key only: with no transport, nothing it does can reach a chain. A full `createWalletClient` cost 0.1–0.2 ms more
   * per call, paid on every per-request order.
   */
  wallet: SdkSigner;
}

export interface SdkSigner {
  account: LocalAccount;
  signTypedData: LocalAccount['signTypedData'];
}

const signers = new ParsedKeyCache<PolymarketSigner>(1024);

/** The session's signer; a stored or managed session's is kept (shared/parsed-key-cache.ts). */
export function signerFromSession(session: VenueSession): PolymarketSigner {
  const raw = session.credentials.private_key ?? '';
  const key = secp256k1Key(raw) as Hex | null;
  if (key === null) {
    const message = secp256k1KeyMessage('credentials.private_key', secp256k1KeyProblem(raw) ?? 'shape');
    throw new AppError('validation_error', message, { validationErrors: [message] });
  }
  return signers.parsed(session, key, () => signerOf(key));
}

function signerOf(key: Hex): PolymarketSigner {
  const account = privateKeyToAccount(key);
  // The SDK calls signTypedData({ account, domain, types, primaryType, message }); the account signs what it needs.
  const wallet = Object.freeze({ account, signTypedData: account.signTypedData });
  return Object.freeze({ address: account.address, account, wallet });
}

/** 0 EOA, 1 POLY_PROXY, 2 POLY_GNOSIS_SAFE, 3 POLY_1271 (deposit wallet), as the V2 SDK numbers them. */
export type PolymarketSignatureType = 0 | 1 | 2 | 3;

/** How the session trades: the signature type and the maker (funder) whose funds move, when known already. */
export interface PolymarketTradingWallet {
  signatureType: PolymarketSignatureType;
  /** The maker: the EOA (0), its proxy (1) or Safe (2), or its deposit wallet (3); null = look it up (type 3). */
  funder: Hex | null;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * Reads `signature_type` ("0".."3", default "0") and `funder_address`. The funder is required for 1 and 2 (the
 * proxy or Safe that holds the funds); for 3 it may be left out and is then found through the relayer; for 0 the
 * maker is the signer itself, so a different funder is a mistake rather than something to honour.
 */
export function tradingWalletFromSession(session: VenueSession, signer: Hex): PolymarketTradingWallet {
  const rawType = session.credentials.signature_type ?? '';
  const rawFunder = session.credentials.funder_address ?? '';
  const problems: string[] = [];
  if (rawType !== '' && !/^[0-3]$/.test(rawType))
    problems.push('credentials.signature_type must be "0", "1", "2" or "3"');
  if (rawFunder !== '' && !ADDRESS.test(rawFunder))
    problems.push('credentials.funder_address must be a 0x-prefixed 20-byte hex address');
  const signatureType = (rawType === '' ? 0 : Number(rawType)) as PolymarketSignatureType;
  const funder = rawFunder === '' ? null : (rawFunder as Hex);
  if (problems.length === 0 && (signatureType === 1 || signatureType === 2) && funder === null) {
    problems.push(
      `credentials.funder_address is required for signature_type ${signatureType} (the ${signatureType === 1 ? 'proxy wallet' : 'Safe'} that holds the funds)`,
    );
  }
  if (
    problems.length === 0 &&
    signatureType === 0 &&
    funder &&
    funder.toLowerCase() !== signer.toLowerCase()
  ) {
    problems.push(
      'credentials.funder_address must be the signer itself (or omitted) for signature_type 0; use 1, 2 or 3 for a wallet that holds the funds',
    );
  }
  if (problems.length > 0)
    throw new AppError('validation_error', problems[0] as string, { validationErrors: problems });
  return { signatureType, funder: signatureType === 0 ? signer : funder };
}

/** The CLOB API credentials sent with the session, or null when the caller sent only the private key. */
export function apiCredsFromSession(session: VenueSession): PolymarketApiCreds | null {
  const { clob_api_key: key, clob_api_secret: secret, clob_api_passphrase: passphrase } = session.credentials;
  const given = [key, secret, passphrase].filter((v) => v !== undefined && v !== '');
  if (given.length === 0) return null;
  if (given.length !== 3 || !key || !secret || !passphrase) {
    throw new AppError(
      'validation_error',
      'clob_api_key, clob_api_secret and clob_api_passphrase go together',
      {
        validationErrors: [
          'credentials: send all three CLOB API fields, or none to derive them from private_key',
        ],
      },
    );
  }
  return { key, secret, passphrase };
}

/** L2 headers for one request; `path` is the bare path the venue signs (no query string). */
export function l2Headers(
  address: string,
  creds: PolymarketApiCreds,
  method: string,
  path: string,
  body: string | undefined,
  nowSeconds = Math.floor(Date.now() / 1000),
): Record<string, string> {
  const timestamp = String(nowSeconds);
  return {
    POLY_ADDRESS: address,
    POLY_SIGNATURE: hmacSignature(creds.secret, `${timestamp}${method}${path}${body ?? ''}`),
    POLY_TIMESTAMP: timestamp,
    POLY_API_KEY: creds.key,
    POLY_PASSPHRASE: creds.passphrase,
  };
}

/** Builder headers for one relayer request (the builder credentials sign it the way L2 headers are signed). */
export function builderHeaders(
  creds: PolymarketApiCreds,
  method: string,
  path: string,
  body: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): Record<string, string> {
  const timestamp = String(nowSeconds);
  return {
    POLY_BUILDER_API_KEY: creds.key,
    POLY_BUILDER_PASSPHRASE: creds.passphrase,
    POLY_BUILDER_TIMESTAMP: timestamp,
    POLY_BUILDER_SIGNATURE: hmacSignature(creds.secret, `${timestamp}${method}${path}${body}`),
  };
}

/** base64url(HMAC-SHA256(base64decode(secret), message)), padding kept, as the official clients compute it. */
export function hmacSignature(secret: string, message: string): string {
  // Node's base64 decoder accepts the url-safe alphabet too, which is how Polymarket issues secrets.
  const digest = createHmac('sha256', Buffer.from(secret, 'base64')).update(message).digest('base64');
  return digest.replace(/\+/g, '-').replace(/\//g, '_');
}

export async function l1Headers(
  signer: PolymarketSigner,
  chainId: number,
  nonce = 0,
): Promise<Record<string, string>> {
  const headers = await createL1Headers(signer.wallet as never, chainId, nonce);
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, String(value)]));
}
