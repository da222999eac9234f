// HTTP plumbing the four Polymarket listeners share: one request context, a small route table, query parsing,
// the CLOB's base64 offset cursors and how an injected fault is rendered in each service's own style.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { handleControl, type SimControl } from '../shared/control.js';
import { BodyTooLargeError, readBody, sendJson } from '../shared/http.js';
import { CLOB_ERRORS, GAMMA_ERRORS } from './errors.js';

export interface Ctx {
  req: IncomingMessage;
  res: ServerResponse;
  method: string;
  path: string;
  query: URLSearchParams;
  /** Raw body text, exactly as received (HMAC is computed over it). */
  body: string;
  params: string[];
}

export type Handler = (ctx: Ctx) => unknown;

export interface Route {
  method: string;
  path: string | RegExp;
  handler: Handler;
}

export type Service = 'clob' | 'gamma' | 'data' | 'relayer';

export function send(ctx: Ctx, status: number, body: unknown, headers: Record<string, string> = {}): void {
  sendJson(ctx.res, status, body, headers);
}

export function fail(ctx: Ctx, status: number, error: string): void {
  sendJson(ctx.res, status, { error });
}

/** Builds a request listener: /__sim/* first, then the fault gate, then the routes; never a 500 on bad input. */
export function listener(service: Service, routes: Route[], control: SimControl) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    dispatch(service, routes, control, req, res).catch(() => {
      if (!res.headersSent) notFoundOrBad(service, res, 400);
      else res.end();
    });
  };
}

async function dispatch(
  service: Service,
  routes: Route[],
  control: SimControl,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://sim');
  const path = url.pathname;
  if (await handleControl(req, res, path, control)) return;
  const method = req.method ?? 'GET';
  control.requests?.record(method, path, service);
  let body = '';
  if (method !== 'GET' && method !== 'HEAD') {
    try {
      body = await readBody(req);
    } catch (error) {
      if (error instanceof BodyTooLargeError)
        return sendJson(res, 413, { error: 'request entity too large' });
      throw error;
    }
  }
  const target = { method, path };
  const fault = await control.faults.gate(target);
  control.faults.holdResponse(res, target);
  control.faults.malformResponse(res, target);
  if (fault?.kind === 'rate_limited') return rateLimited(res, fault.retryAfterSeconds);
  if (fault?.kind === 'error') return injected(service, res, fault.status);
  for (const route of routes) {
    if (route.method !== method) continue;
    const params = matchPath(route.path, path);
    if (!params) continue;
    await route.handler({ req, res, method, path, query: url.searchParams, body, params });
    return;
  }
  notFoundOrBad(service, res, 404);
}

function matchPath(pattern: string | RegExp, path: string): string[] | null {
  if (typeof pattern === 'string') return pattern === path ? [] : null;
  const m = pattern.exec(path);
  return m ? m.slice(1).map((p) => decodeURIComponent(p ?? '')) : null;
}

/** Cloudflare's edge answers throttled requests itself, in its own plain-text style. */
function rateLimited(res: ServerResponse, retryAfter: number): void {
  const text = 'error code: 1015';
  res.writeHead(429, {
    'content-type': 'text/plain; charset=UTF-8',
    'content-length': String(Buffer.byteLength(text)),
    'retry-after': String(retryAfter),
    server: 'cloudflare',
    'cf-ray': `${Date.now().toString(16)}-IAD`,
  });
  res.end(text);
}

function injected(service: Service, res: ServerResponse, status: number): void {
  if (service === 'gamma') sendJson(res, status, GAMMA_ERRORS.internal);
  else if (status === 503) sendJson(res, status, { error: CLOB_ERRORS.tradingDisabled });
  else sendJson(res, status, { error: CLOB_ERRORS.internal });
}

function notFoundOrBad(service: Service, res: ServerResponse, status: number): void {
  if (service !== 'gamma') {
    sendJson(res, status, { error: status === 404 ? 'not found' : 'bad request' });
  } else {
    sendJson(
      res,
      status,
      status === 404 ? { type: 'not found error', error: 'not found' } : GAMMA_ERRORS.idInvalid,
    );
  }
}

/** Values of a filter given either repeated (`id=1&id=2`) or comma-separated (`id=1,2`). */
export function listParam(query: URLSearchParams, name: string): string[] {
  return query
    .getAll(name)
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v.length > 0);
}

/** `true`/`false` → boolean, absent → undefined, anything else → null (invalid). */
export function boolParam(query: URLSearchParams, name: string): boolean | undefined | null {
  const v = query.get(name);
  if (v === null) return undefined;
  if (v === 'true') return true;
  if (v === 'false') return false;
  return null;
}

/** Non-negative integer parameter; undefined when absent, null when malformed. */
export function intParam(query: URLSearchParams, name: string): number | undefined | null {
  const v = query.get(name);
  if (v === null || v === '') return undefined;
  return /^\d{1,12}$/.test(v) ? Number(v) : null;
}

export function numParam(query: URLSearchParams, name: string): number | undefined | null {
  const v = query.get(name);
  if (v === null || v === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

export const START_CURSOR = 'MA==';
export const END_CURSOR = 'LTE=';

/** The CLOB's cursor is the base64 of a decimal offset; "LTE=" (-1) marks the end. */
export function decodeCursor(cursor: string | null): number | null {
  if (cursor === null || cursor === '') return 0;
  const text = Buffer.from(cursor, 'base64').toString('utf8');
  return /^\d{1,12}$/.test(text) ? Number(text) : null;
}

export function cursorPage<T>(items: readonly T[], offset: number, limit: number) {
  const data = items.slice(offset, offset + limit);
  const next =
    offset + limit < items.length ? Buffer.from(String(offset + limit)).toString('base64') : END_CURSOR;
  return { limit, count: data.length, next_cursor: next, data };
}

export function parseBody(ctx: Ctx): unknown {
  if (ctx.body.trim() === '') return undefined;
  return JSON.parse(ctx.body);
}
