// The loopback HTTP server: trade API v2 under /trade-api/v2 (public market data, signed portfolio), the WebSocket
// upgrade, and the shared /__sim/* control surface plus five Kalshi-specific test controls: `GET
// /__sim/kalshi/subscriptions` (every live stream subscription: {channel, sid, market_tickers}), `POST
// /__sim/kalshi/skip-seq` ({market_ticker?}: the next book message skips a sequence number), `POST
// /__sim/kalshi/auth-skew` ({skew_ms}: the exchange's signature clock runs ahead, so clients look stale), `POST
// /__sim/kalshi/shard` ({market_ticker, exchange_index}: the market moves to that exchange shard) and `POST
// /__sim/kalshi/historical-cutoff` ({market_settled_ts?, trades_created_ts?, orders_updated_ts?,
// market_positions_last_updated_ts?, all?}: unix seconds or RFC 3339; records older move to /historical/*).
// Every exchange request passes the fault gate first, rendered as the exchange renders its own refusals
// (a 429 is `{"error": "too many requests"}` without Retry-After, as the rate-limit docs say).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { handleControl, type SimControl } from '../shared/control.js';
import { BodyTooLargeError, parseJson, readBody, sendJson } from '../shared/http.js';
import type { KalshiKeys } from './auth.js';
import type { SimExchange, SimUser } from './exchange.js';
import { cutoffFromBody, historicalRoutes } from './historical.js';
import { type Ctx, HttpError, nestedError } from './http-util.js';
import { portfolioRoutes } from './routes-portfolio.js';
import { publicRoutes } from './routes-public.js';
import type { KalshiHub } from './ws.js';

export const API_PREFIX = '/trade-api/v2';

type Handler = (ctx: Ctx, match: RegExpExecArray, user: SimUser | null, body: string) => void;

interface Route {
  method: string;
  pattern: RegExp;
  auth: boolean;
  handle: Handler;
}

export interface KalshiServerDeps {
  ex: SimExchange;
  hub: KalshiHub;
  keys: KalshiKeys;
  control: SimControl;
}

export function createKalshiServer(deps: KalshiServerDeps): Server {
  const { ex, hub, keys, control } = deps;
  const pub = publicRoutes(ex);
  const port = portfolioRoutes(ex);
  const hist = historicalRoutes(ex);
  const id = (m: RegExpExecArray, i = 1) => decodeURIComponent(m[i] ?? '');
  const me = (user: SimUser | null): SimUser => {
    if (!user) throw new Error('route needs a user');
    return user;
  };
  const retired: Handler = () => {
    throw nestedError(410, 'deprecated_v1_order_endpoint', 'use /trade-api/v2/portfolio/events/orders');
  };
  const routes: Route[] = [
    { method: 'GET', pattern: /^\/exchange\/status$/, auth: false, handle: (c) => pub.exchangeStatus(c) },
    { method: 'GET', pattern: /^\/series$/, auth: false, handle: (c) => pub.seriesList(c) },
    {
      method: 'GET',
      pattern: /^\/series\/([^/]+)\/markets\/([^/]+)\/candlesticks$/,
      auth: false,
      handle: (c, m) => pub.candlesticks(c, id(m, 1), id(m, 2)),
    },
    { method: 'GET', pattern: /^\/series\/([^/]+)$/, auth: false, handle: (c, m) => pub.series(c, id(m)) },
    { method: 'GET', pattern: /^\/events$/, auth: false, handle: (c) => pub.events(c) },
    { method: 'GET', pattern: /^\/events\/([^/]+)$/, auth: false, handle: (c, m) => pub.event(c, id(m)) },
    { method: 'GET', pattern: /^\/markets$/, auth: false, handle: (c) => pub.markets(c) },
    { method: 'GET', pattern: /^\/markets\/trades$/, auth: false, handle: (c) => pub.trades(c) },
    { method: 'GET', pattern: /^\/markets\/orderbooks$/, auth: false, handle: (c) => pub.orderbooks(c) },
    {
      method: 'GET',
      pattern: /^\/markets\/candlesticks$/,
      auth: false,
      handle: (c) => pub.batchCandlesticks(c),
    },
    {
      method: 'GET',
      pattern: /^\/markets\/([^/]+)\/orderbook$/,
      auth: false,
      handle: (c, m) => pub.orderbook(c, id(m)),
    },
    { method: 'GET', pattern: /^\/markets\/([^/]+)$/, auth: false, handle: (c, m) => pub.market(c, id(m)) },
    { method: 'GET', pattern: /^\/historical\/cutoff$/, auth: false, handle: (c) => hist.cutoff(c) },
    { method: 'GET', pattern: /^\/historical\/markets$/, auth: false, handle: (c) => hist.markets(c) },
    {
      method: 'GET',
      pattern: /^\/historical\/markets\/([^/]+)\/candlesticks$/,
      auth: false,
      handle: (c, m) => hist.candlesticks(c, id(m)),
    },
    {
      method: 'GET',
      pattern: /^\/historical\/markets\/([^/]+)$/,
      auth: false,
      handle: (c, m) => hist.market(c, id(m)),
    },
    {
      method: 'GET',
      pattern: /^\/historical\/fills$/,
      auth: true,
      handle: (c, _m, u) => hist.fills(c, me(u)),
    },
    {
      method: 'GET',
      pattern: /^\/historical\/orders$/,
      auth: true,
      handle: (c, _m, u) => hist.orders(c, me(u)),
    },
    {
      method: 'GET',
      pattern: /^\/historical\/positions$/,
      auth: true,
      handle: (c, _m, u) => hist.positions(c, me(u)),
    },
    {
      method: 'GET',
      pattern: /^\/portfolio\/balance$/,
      auth: true,
      handle: (c, _m, u) => port.balance(c, me(u)),
    },
    {
      method: 'GET',
      pattern: /^\/portfolio\/positions$/,
      auth: true,
      handle: (c, _m, u) => port.positions(c, me(u)),
    },
    {
      method: 'GET',
      pattern: /^\/portfolio\/fills$/,
      auth: true,
      handle: (c, _m, u) => port.fills(c, me(u)),
    },
    {
      method: 'GET',
      pattern: /^\/portfolio\/orders$/,
      auth: true,
      handle: (c, _m, u) => port.orders(c, me(u)),
    },
    {
      method: 'GET',
      pattern: /^\/portfolio\/orders\/([^/]+)$/,
      auth: true,
      handle: (c, m, u) => port.order(c, me(u), id(m)),
    },
    {
      method: 'POST',
      pattern: /^\/portfolio\/events\/orders$/,
      auth: true,
      handle: (c, _m, u, b) => port.create(c, me(u), b),
    },
    {
      method: 'DELETE',
      pattern: /^\/portfolio\/events\/orders$/,
      auth: true,
      handle: (c, _m, u) => port.cancelAll(c, me(u)),
    },
    {
      method: 'POST',
      pattern: /^\/portfolio\/events\/orders\/([^/]+)\/amend$/,
      auth: true,
      handle: (c, m, u, b) => port.amend(c, me(u), id(m), b),
    },
    {
      method: 'POST',
      pattern: /^\/portfolio\/events\/orders\/([^/]+)\/decrease$/,
      auth: true,
      handle: (c, m, u, b) => port.decrease(c, me(u), id(m), b),
    },
    {
      method: 'DELETE',
      pattern: /^\/portfolio\/events\/orders\/([^/]+)$/,
      auth: true,
      handle: (c, m, u) => port.cancel(c, me(u), id(m)),
    },
    {
      method: 'GET',
      pattern: /^\/portfolio\/settlements$/,
      auth: true,
      handle: (c) => sendJson(c.res, 200, { cursor: '', settlements: [] }),
    },
    {
      method: 'GET',
      pattern: /^\/account\/limits$/,
      auth: true,
      handle: (c) =>
        sendJson(c.res, 200, {
          grants: [],
          read: { bucket_capacity: 200, refill_rate: 200 },
          usage_tier: 'basic',
          write: { bucket_capacity: 100, refill_rate: 100 },
        }),
    },
    // The legacy order writes were retired in favour of /portfolio/events/orders (410 observed July 2026).
    { method: 'POST', pattern: /^\/portfolio\/orders$/, auth: true, handle: retired },
    { method: 'POST', pattern: /^\/portfolio\/orders\/batched$/, auth: true, handle: retired },
    { method: 'DELETE', pattern: /^\/portfolio\/orders\/([^/]+)$/, auth: true, handle: retired },
    {
      method: 'POST',
      pattern: /^\/portfolio\/orders\/([^/]+)\/(amend|decrease)$/,
      auth: true,
      handle: retired,
    },
  ];

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sim');
    const method = req.method ?? 'GET';
    if (url.pathname === '/__sim/kalshi/subscriptions' && method === 'GET') {
      sendJson(res, 200, { subscriptions: hub.subscriptions() });
      return;
    }
    if (url.pathname === '/__sim/kalshi/skip-seq' && method === 'POST') {
      const body = (parseJson(await readBody(req)) ?? {}) as { market_ticker?: unknown };
      const ticker = typeof body.market_ticker === 'string' ? body.market_ticker : null;
      sendJson(res, 200, { subscriptions: hub.skipSeq(ticker) });
      return;
    }
    if (url.pathname === '/__sim/kalshi/shard' && method === 'POST') {
      const body = (parseJson(await readBody(req)) ?? {}) as {
        market_ticker?: unknown;
        exchange_index?: unknown;
      };
      const market =
        typeof body.market_ticker === 'string'
          ? ex.catalog.marketByTicker.get(body.market_ticker)
          : undefined;
      const index = body.exchange_index;
      if (!market || typeof index !== 'number' || !Number.isInteger(index) || index < 0)
        return sendJson(res, 400, {
          error: 'market_ticker of a listed market and exchange_index ≥ 0 required',
        });
      market.exchangeIndex = index;
      sendJson(res, 200, { market_ticker: market.ticker, exchange_index: index });
      return;
    }
    if (url.pathname === '/__sim/kalshi/historical-cutoff' && method === 'POST') {
      const body = (parseJson(await readBody(req)) ?? {}) as Record<string, unknown>;
      const values = cutoffFromBody(body);
      if (!values) return sendJson(res, 400, { error: 'cutoffs are unix seconds or RFC 3339 timestamps' });
      ex.cutoff.set(values);
      sendJson(res, 200, ex.cutoff.json());
      return;
    }
    if (url.pathname === '/__sim/kalshi/auth-skew' && method === 'POST') {
      const body = (parseJson(await readBody(req)) ?? {}) as { skew_ms?: unknown };
      keys.skewMs = typeof body.skew_ms === 'number' && Number.isFinite(body.skew_ms) ? body.skew_ms : 0;
      sendJson(res, 200, { skew_ms: keys.skewMs });
      return;
    }
    if (await handleControl(req, res, url.pathname, control)) return;
    control.requests?.record(method, url.pathname);
    // The request arrives whole before the exchange works on it: a client that times out during an injected delay
    // has still sent its order, which is then processed (the case our order-outcome policy reconciles).
    const body = method === 'GET' || method === 'DELETE' ? '' : await readBody(req);
    const fault = await control.faults.gate({ method, path: url.pathname });
    control.faults.malformResponse(res, { method, path: url.pathname });
    if (fault?.kind === 'rate_limited') return sendJson(res, 429, { error: 'too many requests' });
    if (fault?.kind === 'error') {
      const code = fault.status === 503 ? 'service_unavailable' : 'internal_server_error';
      return sendJson(res, fault.status, { error: { code, message: code.replace(/_/g, ' ') } });
    }
    if (!url.pathname.startsWith(`${API_PREFIX}/`)) return notFound(res);
    const path = url.pathname.slice(API_PREFIX.length);
    const ctx: Ctx = { req, res, method, path, signedPath: url.pathname, query: url.searchParams };
    const candidates = routes.filter((r) => r.pattern.test(path));
    if (candidates.length === 0) return notFound(res);
    const route = candidates.find((r) => r.method === method);
    if (!route) {
      res.writeHead(405, { 'content-type': 'text/plain; charset=utf-8' }).end('405 method not allowed');
      return;
    }
    let user: SimUser | null = null;
    if (route.auth) {
      const auth = keys.verify(req.headers, method, ctx.signedPath);
      if (!auth.ok) return sendJson(res, 401, auth.body);
      user = ex.users.get(auth.userId) ?? null;
    }
    route.handle(ctx, route.pattern.exec(path) as RegExpExecArray, user, body);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) return void res.end();
      if (error instanceof HttpError) return sendJson(res, error.status, error.body);
      if (error instanceof BodyTooLargeError)
        return sendJson(res, 413, { error: { code: 'request_too_large', message: 'request too large' } });
      if (error instanceof SyntaxError) return sendJson(res, 400, { error: 'invalid JSON' });
      sendJson(res, 400, {
        code: 'bad_request',
        message: 'bad request',
        details: String((error as Error)?.message ?? error),
      });
    });
  });
  hub.attach(server);
  return server;
}

function notFound(res: ServerResponse): void {
  res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('404 page not found');
}
