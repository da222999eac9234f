// Generation and hashing of API keys. Keys carry 256 bits of randomness, so a plain SHA-256 is a sound
// at-rest hash (no password stretching needed) and lets lookups go through a unique index.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const KEY_PREFIX = 'ob_';

export function generateApiKey(): string {
  return `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Constant-time equality of two hex digests of equal length. */
export function digestsEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'hex');
  const bb = Buffer.from(b, 'hex');
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

/** The part of a key safe to show in listings: enough to recognise it, far too little to use it. */
export function displayPrefix(key: string): string {
  return `${key.slice(0, 10)}…`;
}

export function randomId(prefix: string): string {
  return `${prefix}_${randomBytes(9).toString('base64url')}`;
}
