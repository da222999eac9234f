// Limitless request authentication from a session's credentials: a scoped API token signs every request
// (lmts-api-key, lmts-timestamp ISO-8601, lmts-signature = base64 HMAC-SHA256 under the base64-decoded secret of
// `{timestamp}\n{METHOD}\n{path with query}\n{body}`), or a legacy API key goes in X-API-Key. Never logs a secret.
import { createHmac } from 'node:crypto';
import { AppError } from '../../errors/app-error.js';
import type { VenueSession } from '../port.js';

export type LimitlessCredentials =
  | { kind: 'hmac'; tokenId: string; secret: string }
  | { kind: 'api_key'; apiKey: string };

/** Scoped token first (the current scheme; the SDK prefers it too), the legacy API key otherwise. */
export function credentialsOf(session: VenueSession): LimitlessCredentials {
  const { token_id: tokenId, secret, api_key: apiKey } = session.credentials;
  if (tokenId && secret) return { kind: 'hmac', tokenId, secret };
  if (tokenId || secret) {
    throw new AppError('validation_error', 'limitless credentials need both token_id and secret', {
      validationErrors: ['credentials.token_id and credentials.secret go together'],
    });
  }
  if (apiKey) return { kind: 'api_key', apiKey };
  throw new AppError('credentials_required', 'limitless needs token_id + secret (or a legacy api_key)');
}

export function limitlessMessage(
  timestamp: string,
  method: string,
  pathWithQuery: string,
  body: string,
): string {
  return `${timestamp}\n${method.toUpperCase()}\n${pathWithQuery}\n${body}`;
}

export function limitlessSignature(
  secret: string,
  timestamp: string,
  method: string,
  pathWithQuery: string,
  body: string,
): string {
  return createHmac('sha256', Buffer.from(secret, 'base64'))
    .update(limitlessMessage(timestamp, method, pathWithQuery, body))
    .digest('base64');
}

/** Headers for one request; built per attempt so a retry carries a fresh timestamp (the venue allows 30 s). */
export function authHeaders(
  credentials: LimitlessCredentials,
  method: string,
  pathWithQuery: string,
  body: string,
  now: Date = new Date(),
): Record<string, string> {
  if (credentials.kind === 'api_key') return { 'x-api-key': credentials.apiKey };
  const timestamp = now.toISOString();
  return {
    'lmts-api-key': credentials.tokenId,
    'lmts-timestamp': timestamp,
    'lmts-signature': limitlessSignature(credentials.secret, timestamp, method, pathWithQuery, body),
  };
}
