// Kalshi API-key signing: KALSHI-ACCESS-KEY (key id), KALSHI-ACCESS-TIMESTAMP (ms) and KALSHI-ACCESS-SIGNATURE =
// base64 RSA-PSS (SHA-256, MGF1-SHA-256, salt = digest length) over timestamp + METHOD + path, the path starting at
// /trade-api and without the query string (docs; kalshi-typescript auth.ts). The PEM arrives per call and is never
// logged or echoed; a stored or managed session's parsed key is kept (shared/parsed-key-cache.ts).
import { constants, createPrivateKey, type KeyObject, sign } from 'node:crypto';
import { AppError } from '../../errors/app-error.js';
import type { VenueSession } from '../port.js';
import { ParsedKeyCache } from '../shared/parsed-key-cache.js';

export interface KalshiKey {
  keyId: string;
  privateKey: KeyObject;
}

const parsedKeys = new ParsedKeyCache<KeyObject>(1024);

/** The session's key id and parsed private key; a PEM that is not an RSA private key is the client's error. */
export function kalshiKey(
  session: Pick<VenueSession, 'credentials'> & Partial<Pick<VenueSession, 'source'>>,
): KalshiKey {
  const keyId = session.credentials.api_key_id;
  const pem = session.credentials.private_key;
  if (!keyId || !pem) {
    throw new AppError(
      'credentials_required',
      'kalshi needs credentials.api_key_id and credentials.private_key',
    );
  }
  return { keyId, privateKey: parsedKeys.parsed(session, pem, () => parseRsaKey(pem)) };
}

function parseRsaKey(pem: string): KeyObject {
  let privateKey: KeyObject;
  try {
    // Keys pasted into JSON often arrive with literal "\n" sequences instead of line breaks.
    privateKey = createPrivateKey(pem.includes('\\n') ? pem.replace(/\\n/g, '\n') : pem);
  } catch {
    throw new AppError('validation_error', 'credentials.private_key is not a PEM private key', {
      validationErrors: ['credentials.private_key must be the PEM private key of the Kalshi API key'],
    });
  }
  if (privateKey.asymmetricKeyType !== 'rsa') {
    throw new AppError('validation_error', 'credentials.private_key must be an RSA key', {
      validationErrors: ['credentials.private_key must be an RSA private key'],
    });
  }
  return privateKey;
}

export function signature(key: KeyObject, timestampMs: string, method: string, path: string): string {
  return sign('sha256', Buffer.from(`${timestampMs}${method}${path}`), {
    key,
    padding: constants.RSA_PKCS1_PSS_PADDING,
    saltLength: constants.RSA_PSS_SALTLEN_DIGEST,
  }).toString('base64');
}

/** Fresh headers for one request (built per attempt, so a retry carries a new timestamp). */
export function authHeaders(
  key: KalshiKey,
  method: string,
  path: string,
  nowMs = Date.now(),
): Record<string, string> {
  const ts = String(nowMs);
  return {
    'KALSHI-ACCESS-KEY': key.keyId,
    'KALSHI-ACCESS-TIMESTAMP': ts,
    'KALSHI-ACCESS-SIGNATURE': signature(key.privateKey, ts, method, path.split('?')[0] ?? path),
  };
}
