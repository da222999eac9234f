// Test helpers for the Polymarket simulator: raw L2-signed requests, V2 orders signed with viem (so tests can tamper
// with them), market discovery through the manifest, and bounded waits. Written from the public protocol, not
// from the simulator's code.
import { createHmac } from 'node:crypto';
import { type Hex, hashTypedData } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import WebSocket from 'ws';
import type { PolymarketSim, PolymarketSimAccount } from '../../../sim/polymarket/index.js';

export const EXCHANGE_V2 = '0xE111180000d2663C0091e4f400237545B87B996B';
export const NEG_RISK_EXCHANGE_V2 = '0xe2222d279d744050d28e00520010520000310F59';
export const ZERO32 = `0x${'0'.repeat(64)}` as Hex;

export const ORDER_TYPES = {
  Order: [
    { name: 'salt', type: 'uint256' },
    { name: 'maker', type: 'address' },
    { name: 'signer', type: 'address' },
    { name: 'tokenId', type: 'uint256' },
    { name: 'makerAmount', type: 'uint256' },
    { name: 'takerAmount', type: 'uint256' },
    { name: 'side', type: 'uint8' },
    { name: 'signatureType', type: 'uint8' },
    { name: 'timestamp', type: 'uint256' },
    { name: 'metadata', type: 'bytes32' },
    { name: 'builder', type: 'bytes32' },
  ],
} as const;

export function hmac(secret: string, ts: string, method: string, path: string, body = ''): string {
  return createHmac('sha256', Buffer.from(secret, 'base64'))
    .update(`${ts}${method}${path}${body}`)
    .digest('base64')
    .replace(/\+/g, '-')
    .replace(/\//g, '_');
}

export interface Trader {
  account: PolymarketSimAccount;
  address: string;
  key: string;
  secret: string;
  passphrase: string;
  privateKey: Hex;
}

export async function trader(
  sim: PolymarketSim,
  opts?: { collateral?: string; approved?: boolean; kind?: 'legacy' | 'deposit' },
): Promise<Trader> {
  const account = await sim.createAccount(opts);
  const c = account.credentials;
  return {
    account,
    address: account.address,
    key: c.clob_api_key,
    secret: c.clob_api_secret,
    passphrase: c.clob_api_passphrase,
    privateKey: c.private_key as Hex,
  };
}

export function l2Headers(
  t: Trader,
  method: string,
  path: string,
  body = '',
  ts = String(Math.floor(Date.now() / 1000)),
) {
  return {
    POLY_ADDRESS: t.address,
    POLY_SIGNATURE: hmac(t.secret, ts, method, path, body),
    POLY_TIMESTAMP: ts,
    POLY_API_KEY: t.key,
    POLY_PASSPHRASE: t.passphrase,
  };
}

/** An L2-authenticated CLOB call; query goes in the URL but not in the signed path. */
export async function clob(
  sim: PolymarketSim,
  t: Trader,
  method: string,
  path: string,
  body?: unknown,
  query = '',
): Promise<{ status: number; json: unknown }> {
  const text = body === undefined ? '' : JSON.stringify(body);
  const res = await fetch(`${sim.urls.clob}${path}${query}`, {
    method,
    headers: { ...l2Headers(t, method, path, text), 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: text }),
  });
  return { status: res.status, json: await res.json() };
}

export async function getJson(url: string): Promise<{ status: number; json: unknown }> {
  const res = await fetch(url);
  return { status: res.status, json: await res.json() };
}

export interface MarketRef {
  conditionId: string;
  yes: string;
  no: string;
  tick: number;
  negRisk: boolean;
  market: Record<string, unknown>;
}

/** Active markets from the CLOB's /markets pages, optionally filtered. */
export async function activeMarkets(sim: PolymarketSim, negRisk?: boolean): Promise<MarketRef[]> {
  const out: MarketRef[] = [];
  let cursor = 'MA==';
  while (cursor !== 'LTE=') {
    const page = (await getJson(`${sim.urls.clob}/markets?next_cursor=${cursor}`)).json as {
      next_cursor: string;
      data: Array<Record<string, unknown>>;
    };
    for (const m of page.data) {
      const tokens = m.tokens as Array<{ token_id: string }>;
      if (!m.accepting_orders || (negRisk !== undefined && m.neg_risk !== negRisk)) continue;
      out.push({
        conditionId: String(m.condition_id),
        yes: tokens[0]?.token_id ?? '',
        no: tokens[1]?.token_id ?? '',
        tick: Number(m.minimum_tick_size),
        negRisk: Boolean(m.neg_risk),
        market: m,
      });
    }
    cursor = page.next_cursor;
  }
  return out;
}

export interface Book {
  market: string;
  asset_id: string;
  hash: string;
  timestamp: string;
  tick_size: string;
  bids: Array<{ price: string; size: string }>;
  asks: Array<{ price: string; size: string }>;
  last_trade_price: string;
}

export async function book(sim: PolymarketSim, token: string): Promise<Book> {
  return (await getJson(`${sim.urls.clob}/book?token_id=${token}`)).json as Book;
}

/** Best bid/ask of a REST book (levels arrive worst-first, best last). */
export function best(b: Book): { bid: number; ask: number } {
  const bids = b.bids.map((l) => Number(l.price));
  const asks = b.asks.map((l) => Number(l.price));
  return { bid: Math.max(...bids), ask: Math.min(...asks) };
}

export interface OrderSpec {
  tokenId: string;
  side: 'BUY' | 'SELL';
  /** Decimal price and share size, converted the way the SDK does for a limit order. */
  price: number;
  size: number;
  /** A market BUY as the SDK builds it: spend this many dollars (2 dp), shares = dollars ÷ price at 4 dp. */
  amount?: number;
  negRisk?: boolean;
  orderType?: 'GTC' | 'GTD' | 'FOK' | 'FAK';
  expiration?: number;
  postOnly?: boolean;
  salt?: number;
  domain?: { version?: string; verifyingContract?: Hex };
  /** Change the body after signing (tamper tests). */
  tamper?: (order: Record<string, unknown>) => void;
}

const units = (n: number) => BigInt(Math.round(n * 1_000_000));

/** A signed V2 order body as the SDK's orderToJsonV2 would produce it, plus its EIP-712 hash (the order id). */
export async function signedOrder(
  t: Trader,
  spec: OrderSpec,
): Promise<{ body: Record<string, unknown>; id: string }> {
  const account = privateKeyToAccount(t.privateKey);
  const shares =
    spec.amount === undefined ? units(spec.size) : units(Math.floor((spec.amount / spec.price) * 1e4) / 1e4);
  const collateral =
    spec.amount === undefined ? units(Math.round(spec.size * spec.price * 1e6) / 1e6) : units(spec.amount);
  const [makerAmount, takerAmount] = spec.side === 'BUY' ? [collateral, shares] : [shares, collateral];
  const salt = spec.salt ?? Math.floor(Math.random() * 1e12);
  const message = {
    salt: BigInt(salt),
    maker: account.address,
    signer: account.address,
    tokenId: BigInt(spec.tokenId),
    makerAmount,
    takerAmount,
    side: spec.side === 'BUY' ? 0 : 1,
    signatureType: 0,
    timestamp: BigInt(Date.now()),
    metadata: ZERO32,
    builder: ZERO32,
  };
  const domain = {
    name: 'Polymarket CTF Exchange',
    version: spec.domain?.version ?? '2',
    chainId: 137,
    verifyingContract:
      spec.domain?.verifyingContract ?? ((spec.negRisk ? NEG_RISK_EXCHANGE_V2 : EXCHANGE_V2) as Hex),
  };
  const typed = { domain, types: ORDER_TYPES, primaryType: 'Order' as const, message };
  const signature = await account.signTypedData(typed);
  const order: Record<string, unknown> = {
    salt,
    maker: account.address,
    signer: account.address,
    tokenId: spec.tokenId,
    makerAmount: makerAmount.toString(),
    takerAmount: takerAmount.toString(),
    side: spec.side,
    signatureType: 0,
    timestamp: message.timestamp.toString(),
    expiration: String(spec.expiration ?? 0),
    metadata: ZERO32,
    builder: ZERO32,
    signature,
  };
  spec.tamper?.(order);
  const body = {
    deferExec: false,
    postOnly: spec.postOnly ?? false,
    order,
    owner: t.key,
    orderType: spec.orderType ?? 'GTC',
  };
  return { body, id: hashTypedData(typed).toLowerCase() };
}

export async function post(sim: PolymarketSim, t: Trader, spec: OrderSpec) {
  const { body, id } = await signedOrder(t, spec);
  const res = await clob(sim, t, 'POST', '/order', body);
  return { ...res, id, body: res.json as Record<string, unknown> };
}

export async function control(sim: PolymarketSim, method: string, path: string, body?: unknown) {
  const res = await fetch(`${sim.control}${path}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

export async function balance(sim: PolymarketSim, t: Trader, assetType = 'COLLATERAL', tokenId?: string) {
  const query = `?asset_type=${assetType}${tokenId ? `&token_id=${tokenId}` : ''}`;
  const res = await clob(sim, t, 'GET', '/balance-allowance', undefined, query);
  return Number((res.json as { balance: string }).balance);
}

/** Polls until the predicate holds or the bound expires (no bare sleeps). */
export async function waitFor<T>(
  fn: () => T | undefined | false | Promise<T | undefined | false>,
  ms = 10_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A WebSocket that records every frame (arrays flattened) and text message. */
export interface Recorder {
  ws: WebSocket;
  events: Array<Record<string, unknown>>;
  texts: string[];
  closed: boolean;
  send(frame: unknown): void;
}

export async function connect(url: string): Promise<Recorder> {
  const ws = new WebSocket(url);
  const rec: Recorder = {
    ws,
    events: [],
    texts: [],
    closed: false,
    send: (frame) => ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame)),
  };
  ws.on('message', (data) => {
    const text = data.toString();
    try {
      const parsed = JSON.parse(text) as unknown;
      for (const e of Array.isArray(parsed) ? parsed : [parsed])
        rec.events.push(e as Record<string, unknown>);
    } catch {
      rec.texts.push(text);
    }
  });
  ws.on('close', () => {
    rec.closed = true;
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return rec;
}

/**
 * Every key of a recorded payload is present with the same JSON type (null in the recording accepts anything;
 * `except` lists documented gaps). Extra keys are allowed: real payloads grow.
 */
export function assertCovers(label: string, fixture: unknown, got: unknown, except: string[] = []): void {
  const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  if (kind(fixture) !== 'object' || kind(got) !== 'object') {
    throw new Error(`${label}: expected objects, got ${kind(fixture)} / ${kind(got)}`);
  }
  const f = fixture as Record<string, unknown>;
  const g = got as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of Object.keys(f)) {
    if (except.includes(key)) continue;
    if (!(key in g)) problems.push(`missing ${key}`);
    else if (f[key] !== null && kind(f[key]) !== kind(g[key]))
      problems.push(`${key}: ${kind(f[key])} vs ${kind(g[key])}`);
  }
  if (problems.length > 0) throw new Error(`${label}: ${problems.join('; ')}`);
}
