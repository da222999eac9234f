// A minimal signed client for the Kalshi simulator, written from the exchange's docs (not from src/): RSA-PSS
// signatures over timestamp + METHOD + path, JSON in and out. Tests use it to speak the wire protocol directly.
import assert from 'node:assert/strict';
import { constants, sign } from 'node:crypto';
import type { KalshiSim } from '../../../sim/kalshi/index.js';

export interface Account {
  api_key_id: string;
  private_key: string;
}

export interface Answer {
  status: number;
  body: unknown;
  text: string;
  headers: Headers;
}

export function signHeaders(
  account: Account,
  method: string,
  path: string,
  tsMs = Date.now(),
): Record<string, string> {
  const ts = String(tsMs);
  const signature = sign('sha256', Buffer.from(`${ts}${method}${path}`), {
    key: account.private_key,
    padding: constants.RSA_PKCS1_PSS_PADDING,
    saltLength: constants.RSA_PSS_SALTLEN_DIGEST,
  }).toString('base64');
  return {
    'KALSHI-ACCESS-KEY': account.api_key_id,
    'KALSHI-ACCESS-TIMESTAMP': ts,
    'KALSHI-ACCESS-SIGNATURE': signature,
  };
}

export async function call(
  sim: KalshiSim,
  method: string,
  pathAndQuery: string,
  options: { account?: Account; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const url = new URL(`${sim.url}${pathAndQuery}`);
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.account) Object.assign(headers, signHeaders(options.account, method, url.pathname));
  const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // plain-text answers (404 page not found) stay text
  }
  return { status: res.status, body: parsed, text, headers: res.headers };
}

export async function account(sim: KalshiSim, balanceCents?: number): Promise<Account> {
  const { credentials } = await sim.createAccount(balanceCents === undefined ? undefined : { balanceCents });
  return { api_key_id: credentials.api_key_id ?? '', private_key: credentials.private_key ?? '' };
}

export async function control(
  sim: KalshiSim,
  method: string,
  path: string,
  body?: unknown,
): Promise<unknown> {
  const res = await fetch(`${sim.control}/__sim/${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`control ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

export type Json = Record<string, unknown>;

/** An active market with a two-sided book, and its best YES bid / ask in dollars. */
export async function liquid(
  sim: KalshiSim,
): Promise<{ ticker: string; bid: number; ask: number; askSize: number }> {
  const page = (await call(sim, 'GET', '/markets?status=open&limit=1')).body as { markets: Json[] };
  const ticker = page.markets[0]?.ticker as string;
  const book = (await call(sim, 'GET', `/markets/${ticker}/orderbook`)).body as {
    orderbook_fp: { yes_dollars: string[][]; no_dollars: string[][] };
  };
  const bestYes = book.orderbook_fp.yes_dollars.at(-1) as string[];
  const bestNo = book.orderbook_fp.no_dollars.at(-1) as string[];
  return {
    ticker,
    bid: Number(bestYes[0]),
    ask: Math.round((1 - Number(bestNo[0])) * 100) / 100,
    askSize: Number(bestNo[1]),
  };
}

/** Every item of a cursor-paged list (`key` in each page), walking Kalshi's `cursor` until it comes back empty. */
export async function walkPages(sim: KalshiSim, path: string, key: string, limit: number): Promise<Json[]> {
  const out: Json[] = [];
  let cursor = '';
  for (let i = 0; i < 1000; i++) {
    const sep = path.includes('?') ? '&' : '?';
    const res = await call(sim, 'GET', `${path}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    assert.equal(res.status, 200, res.text);
    const body = res.body as Json;
    out.push(...(body[key] as Json[]));
    cursor = body.cursor as string;
    if (cursor === '') return out;
  }
  assert.fail(`${path} did not end`);
}
