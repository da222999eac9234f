// Loopback HTTP server speaking Limitless's public REST API (api.limitless.exchange): markets, groups, search,
// books, price history, the trade feed, and portfolios (own ones behind HMAC / X-API-Key, public ones by address).
// Errors are NestJS-shaped, as the real API's are: `{ message, error?, statusCode }`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimClock } from '../shared/control.js';
import type { SimFaults } from '../shared/faults.js';
import { readBody, sendJson } from '../shared/http.js';
import type { LimitlessAccounts } from './auth.js';
import type { SimCatalog, SimMarket } from './catalog.js';
import type { LimitlessExchange } from './exchange.js';
import { HISTORY_INTERVALS, type HistoryInterval, historyPoints } from './history.js';
import { AUTOMATION_TYPES, type SimListing, SORT_BY, TRADE_TYPES } from './listing.js';
import { groupPayload, marketPayload, orderbookPayload, type PayloadContext } from './payloads.js';
import { pnlChartDocument, positionsDocument, profileDocument, tradedVolumeDocument } from './portfolio.js';
import { type SimTape, TRADERS, tapeNewestFirst } from './tape.js';
import { liveOrders, TradingProblem, tradingRoute } from './trading-routes.js';

export interface LimitlessSimState {
  catalog: SimCatalog;
  listing: SimListing;
  accounts: LimitlessAccounts;
  tape: SimTape;
  faults: SimFaults;
  clock: SimClock;
  /** The world's own clock: world.now moved by the time the simulator has run and been advanced. */
  worldNowMs(): number;
  exchange: LimitlessExchange;
  /** Told of a market whose book an order or cancel changed (the feed pushes it). */
  bookChanged(slug: string): void;
}

type Query = URLSearchParams;

class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(String(body.message));
  }
}

const notFound = (message: string) => new HttpProblem(404, { message, error: 'Not Found', statusCode: 404 });
const badRequest = (messages: string[]) =>
  new HttpProblem(400, { message: messages, error: 'Bad Request', statusCode: 400 });
const UNAUTHORIZED = new HttpProblem(401, { message: 'Unauthorized', statusCode: 401 });

export async function handleLimitlessRequest(
  state: LimitlessSimState,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  // The target lets a test aim faults at one route (`only`).
  const target = { method: req.method ?? 'GET', path: (req.url ?? '/').split('?')[0] ?? '/' };
  // The body is read first: a request held by a latency fault is processed from it even if its client is gone.
  const method = req.method ?? 'GET';
  const body = method === 'POST' || method === 'DELETE' ? await readBody(req) : '';
  const fault = await state.faults.gate(target);
  state.faults.malformResponse(res, target);
  state.faults.holdResponse(res, target);
  if (fault?.kind === 'rate_limited') {
    return sendJson(
      res,
      429,
      { statusCode: 429, message: 'ThrottlerException: Too Many Requests' },
      { 'retry-after': String(fault.retryAfterSeconds) },
    );
  }
  if (fault?.kind === 'error') {
    return sendJson(res, fault.status, { statusCode: fault.status, message: 'Internal server error' });
  }
  const raw = req.url ?? '/';
  const url = requestUrl(raw);
  try {
    const parts = url.pathname
      .split('/')
      .filter((p) => p.length > 0)
      .map(safeDecode);
    if (parts[0] === 'orders' || (parts[0] === 'markets' && parts[2] === 'user-orders')) {
      const auth = state.accounts.authenticate(req.headers, method, raw, body);
      if (auth.kind === 'refused') throw UNAUTHORIZED;
      const answer = await tradingRoute(
        { catalog: state.catalog, exchange: state.exchange, changed: (slug) => state.bookChanged(slug) },
        auth.kind === 'ok' ? auth.account : null,
        method,
        parts,
        url.searchParams,
        body,
      );
      if (answer) return sendJson(res, answer.status, answer.body);
    }
    sendJson(res, 200, route(state, req, raw, url.pathname, url.searchParams));
  } catch (error) {
    if (error instanceof TradingProblem) return sendJson(res, error.status, error.body);
    if (!(error instanceof HttpProblem)) throw error;
    sendJson(res, error.status, error.body);
  }
}

function route(state: LimitlessSimState, req: IncomingMessage, raw: string, path: string, q: Query): unknown {
  const method = req.method ?? 'GET';
  const ctx: PayloadContext = { step: state.tape.step, worldNowMs: state.worldNowMs() };
  const parts = path
    .split('/')
    .filter((p) => p.length > 0)
    .map(safeDecode);
  if (method === 'GET' && parts[0] === 'markets') {
    if (parts.length === 2 && parts[1] === 'active') return activeMarkets(state, q, ctx);
    if (parts.length === 2 && parts[1] === 'search') return search(state, q, ctx);
    if (parts.length === 2) return marketOrGroup(state, parts[1] as string, ctx);
    if (parts.length === 3) {
      const slug = parts[1] as string;
      switch (parts[2]) {
        case 'orderbook': {
          const m = clobMarket(state, slug);
          return orderbookPayload(m, ctx, state.exchange.book(m));
        }
        case 'historical-price':
          return historicalPrice(state, slug, q);
        case 'events':
          return feedEvents(state, slug, q);
      }
    }
  }
  if (method === 'GET' && parts[0] === 'profiles' && parts.length === 2) {
    if (parts[1] === 'me') {
      const auth = state.accounts.authenticate(req.headers, method, raw, '');
      if (auth.kind !== 'ok') throw UNAUTHORIZED;
      return profileDocument(auth.account);
    }
    const address = parts[1] as string;
    if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw badRequest(['Invalid address']);
    const account = state.accounts.findByAddress(address);
    if (!account) throw notFound('Profile not found');
    return profileDocument(account);
  }
  if (method === 'GET' && parts[0] === 'portfolio') {
    const portfolio = { step: ctx.step, worldNowMs: ctx.worldNowMs, nowMs: state.clock.now() };
    if (parts.length === 2 && (parts[1] === 'positions' || parts[1] === 'pnl-chart')) {
      const auth = state.accounts.authenticate(req.headers, method, raw, '');
      if (auth.kind !== 'ok') throw UNAUTHORIZED;
      if (parts[1] === 'positions') {
        return positionsDocument(
          auth.account,
          state.catalog,
          portfolio,
          liveOrders(state.exchange, auth.account),
        );
      }
      return pnlChart(state, auth.account, q, portfolio);
    }
    if (parts.length === 3) {
      const address = parts[1] as string;
      if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw badRequest(['Invalid address']);
      const account = state.accounts.findByAddress(address);
      switch (parts[2]) {
        case 'positions':
          return positionsDocument(account, state.catalog, portfolio);
        case 'traded-volume':
          return tradedVolumeDocument(account);
        case 'pnl-chart':
          return pnlChart(state, account, q, portfolio);
      }
    }
  }
  throw notFound(`Cannot ${method} ${path}`);
}

/**
 * The request target as a URL. `new URL(raw, base)` would read `//host/x` as another host (and throw on a bad one),
 * so the target is appended to a fixed origin instead; anything unparsable is the root.
 */
export function requestUrl(raw: string): URL {
  try {
    return new URL(`http://sim${raw.startsWith('/') ? raw : `/${raw}`}`);
  } catch {
    return new URL('http://sim/');
  }
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

function intParam(q: Query, name: string, fallback: number, min: number, max: number): number {
  const raw = q.get(name);
  if (raw === null || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n))
    throw badRequest([`${name} must be a number conforming to the specified constraints`]);
  if (n < min) throw badRequest([`${name} must not be less than ${min}`]);
  if (n > max) throw badRequest([`${name} must not be greater than ${max}`]);
  return n;
}

function enumParam(q: Query, name: string, values: readonly string[]): string | null {
  const raw = q.get(name);
  if (raw === null || raw === '') return null;
  if (!values.includes(raw)) {
    throw badRequest([`${name} must be one of the following values: ${values.join(', ')}`]);
  }
  return raw;
}

/** GET /markets/active: page-number pagination (from 1, at most 25 rows), groups as one row with `markets`. */
function activeMarkets(state: LimitlessSimState, q: Query, ctx: PayloadContext): unknown {
  const page = intParam(q, 'page', 1, 1, 1_000_000);
  const limit = intParam(q, 'limit', 25, 1, 25);
  const rows = state.listing.activeRows(
    {
      sortBy: enumParam(q, 'sortBy', SORT_BY),
      tradeType: enumParam(q, 'tradeType', TRADE_TYPES),
      automationType: enumParam(q, 'automationType', AUTOMATION_TYPES),
    },
    ctx.worldNowMs,
  );
  const data = rows.slice((page - 1) * limit, page * limit).map((r) => rowPayload(r, ctx));
  return { data, totalMarketsCount: rows.length };
}

function rowPayload(r: SimCatalog['rows'][number], ctx: PayloadContext): Record<string, unknown> {
  return r.kind === 'group' ? groupPayload(r, ctx) : marketPayload(r, ctx);
}

/** GET /markets/search: `{ markets }` only, no total; a short page means the last one. */
function search(state: LimitlessSimState, q: Query, ctx: PayloadContext): unknown {
  const query = q.get('query');
  if (query === null || query.trim() === '')
    throw badRequest(['query should not be empty', 'query must be a string']);
  const limit = intParam(q, 'limit', 10, 1, 50);
  const page = intParam(q, 'page', 1, 1, 1_000_000);
  const thresholdRaw = q.get('similarityThreshold');
  const threshold = thresholdRaw === null ? 0.5 : Number(thresholdRaw);
  if (!Number.isFinite(threshold) || threshold < 0 || threshold > 1) {
    throw badRequest(['similarityThreshold must not be greater than 1']);
  }
  const rows = state.listing.search(query, threshold);
  return { markets: rows.slice((page - 1) * limit, page * limit).map((r) => rowPayload(r, ctx)) };
}

function marketOrGroup(state: LimitlessSimState, slug: string, ctx: PayloadContext): unknown {
  const row = state.catalog.bySlug.get(slug);
  if (!row) throw notFound('Market not found');
  return row.kind === 'group' ? groupPayload(row, ctx) : marketPayload(row, ctx);
}

function clobMarket(state: LimitlessSimState, slug: string): SimMarket {
  const row = state.catalog.bySlug.get(slug);
  if (row?.kind !== 'market') throw notFound('Market not found');
  return row;
}

function timeParam(q: Query, name: string): number | null {
  const raw = q.get(name);
  if (raw === null || raw === '') return null;
  const ms = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw);
  if (Number.isNaN(ms)) throw badRequest([`${name} must be a valid ISO 8601 date string`]);
  return ms;
}

/** A market answers one `{ title, prices, marketStatus }`; a group answers one `{ title, prices }` per option. */
function historicalPrice(state: LimitlessSimState, slug: string, q: Query): unknown {
  const row = state.catalog.bySlug.get(slug);
  if (!row) throw notFound('Market not found');
  const interval = (enumParam(q, 'interval', HISTORY_INTERVALS) ?? '1d') as HistoryInterval;
  const query = { interval, fromMs: timeParam(q, 'from'), toMs: timeParam(q, 'to') };
  const now = state.clock.now();
  const worldNow = state.worldNowMs();
  if (row.kind === 'group') {
    return row.children.map((c) => ({ title: c.title, prices: historyPoints(c, query, now, worldNow) }));
  }
  const status = marketPayload(row, { step: state.tape.step, worldNowMs: worldNow }).status;
  return { title: row.title, prices: historyPoints(row, query, now, worldNow), marketStatus: status };
}

/** GET /markets/{slug}/events: the matched-trade feed, newest first, page-number pagination. */
function feedEvents(state: LimitlessSimState, slug: string, q: Query): unknown {
  const row = state.catalog.bySlug.get(slug);
  if (!row) throw notFound('Market not found');
  const page = intParam(q, 'page', 1, 1, 1_000_000);
  const limit = intParam(q, 'limit', 10, 1, 100);
  const markets = row.kind === 'group' ? row.children : [row];
  const worldNow = state.worldNowMs();
  const all = markets
    .flatMap((m) => [...tapeNewestFirst(m, state.tape, worldNow)].map((t) => ({ m, t })))
    .sort((a, b) => b.t.createdMs - a.t.createdMs);
  const events = all.slice((page - 1) * limit, page * limit).map(({ m, t }) => {
    const trader = TRADERS[t.traderIndex] ?? TRADERS[0];
    const collateral = String(Math.round(t.size * t.price));
    return {
      createdAt: new Date(t.createdMs).toISOString(),
      makerAmount: collateral,
      matchedSize: String(t.size),
      price: String(t.price),
      profile: {
        id: trader?.id,
        account: trader?.account,
        username: trader?.username,
        displayName: trader?.username,
        pfpUrl: null,
        socialUrl: null,
        rankName: 'Bronze',
      },
      side: t.side,
      takerAmount: collateral,
      title: row.kind === 'group' ? m.title : '',
      tokenId: t.tokenId,
      txHash: t.txHash,
    };
  });
  return { events, limit, page, totalPages: Math.ceil(all.length / limit), totalRows: all.length };
}

function pnlChart(
  state: LimitlessSimState,
  account: Parameters<typeof pnlChartDocument>[0],
  q: Query,
  ctx: Parameters<typeof pnlChartDocument>[2],
): unknown {
  const timeframe = q.get('timeframe') ?? '7d';
  const doc = pnlChartDocument(account, state.catalog, ctx, timeframe);
  if (!doc) throw badRequest(['timeframe must be one of the following values: 1d, 7d, 30d, all']);
  return doc;
}
