// Kalshi's API-key authentication as the exchange checks it: KALSHI-ACCESS-KEY (key id), -TIMESTAMP (ms) and
// -SIGNATURE (base64 RSA-PSS, SHA-256, MGF1-SHA-256, salt = digest length) over timestamp + METHOD + path, where
// the path starts at /trade-api and excludes the query string. Refusals are 401 with the bodies recorded on the
// demo exchange (2026-06-11).
import { constants, createPublicKey, generateKeyPair, type KeyObject, verify } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { promisify } from 'node:util';
import { ownValue } from '../shared/own-key.js';

const generate = promisify(generateKeyPair);

/** Recorded: −5 s and +5 s pass, −30 s and ±5 min fail; the exact window is not published. */
export const PAST_TOLERANCE_MS = 15_000;
export const FUTURE_TOLERANCE_MS = 60_000;

export interface ApiKey {
  keyId: string;
  userId: string;
  publicKey: KeyObject;
}

export type AuthResult = { ok: true; userId: string } | { ok: false; body: unknown };

const refusal = (code: string, message: string, details?: string): AuthResult => ({
  ok: false,
  body: { error: details === undefined ? { code, message } : { code, message, details } },
});

export class KalshiKeys {
  private readonly keys = new Map<string, ApiKey>();
  /**
   * Test control: how far the exchange's clock runs ahead of the wall clock when it checks signatures, so a
   * client can be made to look stale. Signatures are checked against wall time, not the simulator's movable
   * clock: that one moves market time, a client's clock stays where it is.
   */
  skewMs = 0;

  /** Creates an RSA key pair for a user; the exchange keeps the public half and hands out the private PEM once. */
  async issue(keyId: string, userId: string): Promise<{ keyId: string; privateKeyPem: string }> {
    // Kalshi's key download is a PKCS#1 "RSA PRIVATE KEY" PEM.
    const { publicKey, privateKey } = await generate('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    });
    this.keys.set(keyId, { keyId, userId, publicKey: createPublicKey(publicKey) });
    return { keyId, privateKeyPem: privateKey };
  }

  verify(headers: IncomingHttpHeaders, method: string, path: string): AuthResult {
    const nowMs = Date.now() + this.skewMs;
    const keyId = header(headers, 'kalshi-access-key');
    const timestamp = header(headers, 'kalshi-access-timestamp');
    const signature = header(headers, 'kalshi-access-signature');
    // Only the missing-signature body was recorded; the other two follow its pattern.
    if (!keyId) return refusal('api_key_is_missing_from_headers', 'api key is missing from headers');
    if (!timestamp) return refusal('timestamp_is_missing_from_headers', 'timestamp is missing from headers');
    if (!signature) return refusal('signature_is_missing_from_headers', 'signature is missing from headers');
    const ts = /^\d{1,16}$/.test(timestamp) ? Number(timestamp) : Number.NaN;
    if (!(ts >= nowMs - PAST_TOLERANCE_MS && ts <= nowMs + FUTURE_TOLERANCE_MS)) {
      return refusal('header_timestamp_expired', 'header timestamp expired');
    }
    const key = this.keys.get(keyId);
    if (!key) return refusal('authentication_error', 'authentication_error', 'NOT_FOUND');
    return checkSignature(key.publicKey, `${timestamp}${method}${path}`, signature)
      ? { ok: true, userId: key.userId }
      : refusal('authentication_error', 'authentication_error', 'INCORRECT_API_KEY_SIGNATURE');
  }
}

function checkSignature(publicKey: KeyObject, message: string, signature: string): boolean {
  try {
    return verify(
      'sha256',
      Buffer.from(message),
      {
        key: publicKey,
        padding: constants.RSA_PKCS1_PSS_PADDING,
        saltLength: constants.RSA_PSS_SALTLEN_DIGEST,
      },
      Buffer.from(signature, 'base64'),
    );
  } catch {
    return false;
  }
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = ownValue(headers, name);
  const value = Array.isArray(v) ? v[0] : v;
  return value === undefined || value === '' ? undefined : value;
}
