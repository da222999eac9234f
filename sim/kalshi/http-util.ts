// Request plumbing shared by the simulator's routes: the exchange's three error-body shapes (nested
// `{"error":{…}}`, the flat JSON-decoding error and the bare `{"msg"}` parameter-validation error, all recorded on
// the demo exchange), query-parameter checks in the same wording, and opaque page cursors.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from '../shared/http.js';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`HTTP ${status}`);
  }
}

/** `{"error":{"code","message","details"?,"service"?}}` — the exchange's usual refusal. */
export function nestedError(status: number, code: string, details?: string, service?: string): HttpError {
  const error: Record<string, string> = { code, message: code.replace(/_/g, ' ') };
  if (details !== undefined) error.details = details;
  if (service !== undefined) error.service = service;
  return new HttpError(status, { error });
}

/** The flat shape the exchange answers JSON-decoding failures with. */
export function decodeError(details: string): HttpError {
  return new HttpError(400, { code: 'bad_request', message: 'bad request', details });
}

/** The bare `{"msg"}` shape of query-parameter validation failures. */
export function paramError(operation: string, field: string, tag: string): HttpError {
  return new HttpError(400, {
    msg: `Parameter validation failed for ${operation}: Key: '${operation}Params.${field}' Error:Field validation for '${field}' failed on the '${tag}' tag`,
  });
}

export interface Ctx {
  req: IncomingMessage;
  res: ServerResponse;
  method: string;
  /** Path after /trade-api/v2, for routing. */
  path: string;
  /** The full path the client signed (/trade-api/v2/…, no query). */
  signedPath: string;
  query: URLSearchParams;
}

export function send(ctx: Ctx, status: number, body: unknown): void {
  sendJson(ctx.res, status, body);
}

/** An integer query parameter within bounds; absent → fallback. */
export function intParam(
  ctx: Ctx,
  operation: string,
  name: string,
  field: string,
  bounds: { min: number; max: number; fallback: number },
): number {
  const raw = ctx.query.get(name);
  if (raw === null || raw === '') return bounds.fallback;
  const n = Number(raw);
  if (!Number.isInteger(n)) throw paramError(operation, field, 'number');
  if (n > bounds.max) throw paramError(operation, field, 'lte');
  if (n < bounds.min) throw paramError(operation, field, 'gte');
  return n;
}

export function optionalInt(ctx: Ctx, operation: string, name: string, field: string): number | null {
  const raw = ctx.query.get(name);
  if (raw === null || raw === '') return null;
  const n = Number(raw);
  if (!Number.isInteger(n)) throw paramError(operation, field, 'number');
  return n;
}

export function listParam(ctx: Ctx, name: string): string[] | null {
  const raw = ctx.query.get(name);
  if (raw === null || raw === '') return null;
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** Cursors are opaque base64url tokens; an unreadable one reads as the first page (the recorded behaviour). */
export function readCursor(ctx: Ctx): number[] {
  const raw = ctx.query.get('cursor');
  if (!raw) return [];
  try {
    const text = Buffer.from(raw, 'base64url').toString('utf8');
    if (!/^-?\d+(,-?\d+)*$/.test(text)) return [];
    return text.split(',').map(Number);
  } catch {
    return [];
  }
}

export function writeCursor(...values: number[]): string {
  return Buffer.from(values.join(','), 'utf8').toString('base64url');
}

/** One page of an array by offset, with the next cursor ("" on the last page). */
export function pageOf<T>(items: readonly T[], ctx: Ctx, limit: number): { page: T[]; cursor: string } {
  const [offset = 0] = readCursor(ctx);
  const start = Math.max(0, offset);
  const page = items.slice(start, start + limit);
  return { page, cursor: start + limit < items.length ? writeCursor(start + limit) : '' };
}
