// Predict.fun's JSON envelope: `{success: true, data, cursor?}` on success and
// `{success: false, code, error: <slug>, message, timestamp, trace}` on failure (the shape of the recorded
// POST /v1/orders errors). Knows nothing of routes.
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { sendJson } from '../shared/http.js';

export function ok(res: ServerResponse, data: unknown, cursor?: string | null): void {
  // List endpoints always carry `cursor` (null on the last page); single objects carry none.
  sendJson(res, 200, cursor === undefined ? { success: true, data } : { success: true, cursor, data });
}

/** Error slugs seen on the wire (ccxt's exact table): unauthorized, bad_request, not_found, create_order_*. */
export type PredictErrorSlug =
  | 'unauthorized'
  | 'bad_request'
  | 'not_found'
  | 'too_many_requests'
  | 'internal_server_error'
  | `create_order_${string}`;

export function fail(
  res: ServerResponse,
  status: number,
  error: PredictErrorSlug,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(
    res,
    status,
    {
      success: false,
      code: status,
      error,
      message,
      timestamp: new Date().toISOString(),
      trace: randomBytes(16).toString('hex'),
    },
    headers,
  );
}

/** Thrown by request parsing; rendered as 400 bad_request with its message. */
export class BadRequest extends Error {}

/** `first` is "a string that will be parsed into a number" (docs); 100 is the page size clients use. */
export function parseFirst(raw: string | null, fallback = 10): number {
  if (raw === null || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new BadRequest('first must be a positive integer');
  const n = Number(raw);
  if (n < 1 || n > 100) throw new BadRequest('first must be between 1 and 100');
  return n;
}

/** Cursors are opaque base64 strings; ours carry an offset into a stable ordering. */
export function encodeCursor(value: Record<string, number | string>): string {
  return Buffer.from(JSON.stringify(value)).toString('base64');
}

export function decodeCursor(raw: string | null): Record<string, unknown> | null {
  if (raw === null || raw === '') return null;
  try {
    const value = JSON.parse(Buffer.from(raw, 'base64').toString('utf8')) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      return value as Record<string, unknown>;
    }
  } catch {
    // fall through
  }
  throw new BadRequest('Invalid cursor');
}

export function cursorOffset(raw: string | null): number {
  const c = decodeCursor(raw);
  if (c === null) return 0;
  const offset = c.offset;
  if (typeof offset !== 'number' || !Number.isInteger(offset) || offset < 0) {
    throw new BadRequest('Invalid cursor');
  }
  return offset;
}
