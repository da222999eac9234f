// Opaque list cursors: the keyset position plus a fingerprint of the query it belongs to, so a cursor replayed
// with other filters is refused (400) instead of silently skipping or repeating rows.
import { createHash } from 'node:crypto';
import { validationError } from '../../errors/app-error.js';

export function queryFingerprint(parts: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 12);
}

export function encodeCursor(fingerprint: string, position: readonly (string | number | null)[]): string {
  return Buffer.from(JSON.stringify([1, fingerprint, ...position])).toString('base64url');
}

/** The position stored in `cursor`, checked against the query; `arity` is the number of position fields. */
export function decodeCursor(cursor: string, fingerprint: string, arity: number): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = null;
  }
  if (!Array.isArray(parsed) || parsed[0] !== 1 || parsed.length !== arity + 2) {
    throw validationError(['cursor is not a cursor this server issued']);
  }
  if (parsed[1] !== fingerprint) {
    throw validationError([
      'cursor belongs to a different query: repeat the same filters, or start without cursor',
    ]);
  }
  return parsed.slice(2);
}
