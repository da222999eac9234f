// Loopback server speaking Opinion's OpenAPI (/openapi paths, `apikey` on every call, the {errno, errmsg,
// result} envelope, page/limit lists as {total, list}) plus /__sim/*: markets, labels, books, prices, price
// history, a key holder's positions, trades, balance and identity (also by wallet address), and its orders: POST
// /order, GET /order, GET /order/{id}, POST /order/cancel (orders.ts). A paper account's trades are its orders'
// fills, seeded at creation, or made by POST /__sim/trade.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { handleControl, type SimClock, type SimControlHooks } from '../shared/control.js';
import type { SimFaults } from '../shared/faults.js';
import { parseJson, readBody, sendJson } from '../shared/http.js';
import type { OpinionAccount, OpinionAccounts } from './accounts.js';
import { decimal, lastTrade, yesPriceAt } from './book.js';
import {
  BSC_USDT,
  listedAt,
  type OpinionCatalogue,
  renderBinary,
  renderCategorical,
  renderRow,
  type TopLevel,
  type TradableMarket,
} from './catalogue.js';
import { type OpinionOrders, OrderRefusal } from './orders.js';
import { OPINION_LABELS } from './phrasing.js';
import { renderBalance, renderPosition, renderTrade } from './portfolio.js';

/** errno values: 11001/11002 are the exchange's own (ccxt's table); the 100xx ones are the simulator's choice. */
export const ERRNO = {
  invalidParam: 10001,
  notFound: 10002,
  noWallet: 11001,
  invalidKey: 11002,
} as const;

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errno: number,
    message: string,
  ) {
    super(message);
  }
}

const ok = (res: ServerResponse, result: unknown) => sendJson(res, 200, { errno: 0, errmsg: '', result });

function fail(res: ServerResponse, error: ApiError, headers: Record<string, string> = {}): void {
  sendJson(res, error.status, { errno: error.errno, errmsg: error.message, result: null }, headers);
}

/**
 * What a `marketType` number asks GET /market for. Opinion's own sources disagree (docs/venues/opinion.md): the
 * official SDK's TopicType (0 binary, 1 categorical, 2 all), which ccxt and pmxt also send against production, and
 * the generated OpenAPI client's text (0 all, 1 categorical, 2 binary). The simulator serves the SDK's reading by
 * default; `openapi` serves the other so a client can be proven to work under both.
 */
export type MarketTypeReading = 'sdk' | 'openapi';
type ListKind = 'binary' | 'categorical' | 'all';
const MARKET_TYPES: ReadonlyMap<MarketTypeReading, ReadonlyMap<number, ListKind>> = new Map([
  [
    'sdk',
    new Map<number, ListKind>([
      [0, 'binary'],
      [1, 'categorical'],
      [2, 'all'],
    ]),
  ],
  [
    'openapi',
    new Map<number, ListKind>([
      [0, 'all'],
      [1, 'categorical'],
      [2, 'binary'],
    ]),
  ],
]);

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const MAX_PAGE = 20;

export interface OpinionSimState {
  step: number;
}

export function createOpinionServer(
  catalogue: OpinionCatalogue,
  accounts: OpinionAccounts,
  faults: SimFaults,
  clock: SimClock,
  state: OpinionSimState,
  hooks: SimControlHooks,
  orders: OpinionOrders,
  marketTypeReading: MarketTypeReading = 'sdk',
): Server {
  const seed = catalogue.seed;
  const worldNow = catalogue.world.now;
  const control = { faults, clock, hooks };
  const types = MARKET_TYPES.get(marketTypeReading) ?? new Map<number, ListKind>();

  function intParam(url: URL, name: string, fallback: number, min = 0): number {
    const raw = url.searchParams.get(name);
    if (raw === null || raw === '') return fallback;
    if (!/^-?\d{1,12}$/.test(raw) || Number(raw) < min) {
      throw new ApiError(400, ERRNO.invalidParam, `invalid parameter: ${name}`);
    }
    return Number(raw);
  }

  function page<T>(url: URL, items: readonly T[], defaultLimit: number): { total: number; slice: T[] } {
    const pageNo = intParam(url, 'page', 1, 1);
    const limit = Math.min(MAX_PAGE, intParam(url, 'limit', defaultLimit, 1));
    return { total: items.length, slice: items.slice((pageNo - 1) * limit, pageNo * limit) };
  }

  function tokenOf(url: URL): { market: TradableMarket; side: 'yes' | 'no'; tokenId: string } {
    const tokenId = url.searchParams.get('token_id') ?? '';
    if (tokenId === '') throw new ApiError(400, ERRNO.invalidParam, 'token_id is required');
    const ref = catalogue.token(tokenId);
    if (!ref) throw new ApiError(400, ERRNO.notFound, 'token not found');
    return { ...ref, tokenId };
  }

  function holder(key: string): OpinionAccount {
    const account = accounts.account(key);
    if (!account)
      throw new ApiError(400, ERRNO.noWallet, 'This API Key has no related Opinion Login Wallet yet');
    return account;
  }

  function byWallet(raw: string): OpinionAccount | null {
    const address = decodeURIComponent(raw);
    if (!ADDRESS.test(address)) throw new ApiError(400, ERRNO.invalidParam, 'invalid wallet address');
    // A wallet that never traded has no positions or trades: an empty page, not an error.
    return accounts.byAddress(address) ?? null;
  }

  function marketFilter(url: URL): number {
    return intParam(url, 'marketId', 0, 0);
  }

  function positionsOf(url: URL, account: OpinionAccount | null) {
    const marketId = marketFilter(url);
    const all = (account?.positions ?? []).filter((p) => marketId === 0 || p.market.marketId === marketId);
    const { total, slice } = page(url, all, 10);
    return { list: slice.map((p) => renderPosition(seed, p, state.step)), total };
  }

  function tradesOf(url: URL, account: OpinionAccount | null) {
    const marketId = marketFilter(url);
    // Newest first; of two trades in the same second, the later one first.
    const all = (account?.trades ?? [])
      .filter((t) => marketId === 0 || t.market.marketId === marketId)
      .reverse()
      .sort((a, b) => b.createdAt - a.createdAt);
    const { total, slice } = page(url, all, 10);
    return { list: slice.map(renderTrade), total };
  }

  function marketList(url: URL) {
    const status = url.searchParams.get('status') ?? '';
    if (!['', 'activated', 'resolved'].includes(status)) {
      throw new ApiError(400, ERRNO.invalidParam, 'invalid parameter: status');
    }
    // [sim] Without marketType every row is listed; a value outside 0..2 is refused like any bad parameter.
    const marketType = url.searchParams.get('marketType') ?? '';
    const kind: ListKind | undefined =
      marketType === '' ? 'all' : types.get(intParam(url, 'marketType', 0, 0));
    if (kind === undefined) throw new ApiError(400, ERRNO.invalidParam, 'invalid parameter: marketType');
    const sortBy = intParam(url, 'sortBy', 0, 0);
    if (sortBy > 8) throw new ApiError(400, ERRNO.invalidParam, 'invalid parameter: sortBy');
    const order = catalogue.list({ status, kind, sortBy, labelId: intParam(url, 'labelId', 0, 0) });
    const pageNo = intParam(url, 'page', 1, 1);
    const limit = Math.min(MAX_PAGE, intParam(url, 'limit', 10, 1));
    const list: Record<string, unknown>[] = [];
    for (let i = (pageNo - 1) * limit; i < Math.min(order.length, pageNo * limit); i++) {
      list.push(renderRow(seed, worldNow, catalogue.rows[order[i] as number] as TopLevel));
    }
    return { list, total: order.length };
  }

  function marketById(raw: string, categoricalOnly: boolean): Record<string, unknown> {
    if (!/^\d{1,12}$/.test(raw)) throw new ApiError(400, ERRNO.invalidParam, 'invalid parameter: marketId');
    const id = Number(raw);
    const parent = catalogue.categorical.get(id);
    if (parent) return renderCategorical(seed, worldNow, parent);
    const market = categoricalOnly ? undefined : catalogue.tradable.get(id);
    if (!market) throw new ApiError(400, ERRNO.notFound, 'market not found');
    return renderBinary(seed, worldNow, market);
  }

  function priceHistory(url: URL) {
    const { market, side } = tokenOf(url);
    // Live, only 1h and 1d are recognised; any other interval silently falls back to 1d (ccxt, verified).
    const interval = url.searchParams.get('interval') === '1h' ? 3_600 : 86_400;
    const nowSec = Math.floor(clock.now() / 1000);
    const created = listedAt(market, worldNow);
    const tradingEnd = market.status === 2 ? nowSec : Math.floor(market.prop.closeTime.getTime() / 1000);
    const from = Math.max(created, intParam(url, 'start_at', created, 0));
    const to = Math.min(nowSec, tradingEnd, intParam(url, 'end_at', nowSec, 0));
    const history: Array<{ p: string; t: number }> = [];
    const first = Math.ceil(from / interval) * interval;
    const last = Math.floor(to / interval) * interval;
    for (let t = Math.max(first, last - 2_000 * interval); t <= last; t += interval) {
      const yes = yesPriceAt(seed, market, t);
      history.push({ p: decimal(side === 'yes' ? yes : 1 - yes, 3), t });
    }
    return { history };
  }

  const nowSec = () => Math.floor(clock.now() / 1000);

  /** The key holder's order `id`, or the API's "not found". */
  function ownOrder(account: OpinionAccount, id: string) {
    const order = orders.get(account, decodeURIComponent(id), nowSec());
    if (!order) throw new ApiError(400, ERRNO.notFound, 'order not found');
    return order;
  }

  function orderList(url: URL, account: OpinionAccount) {
    const marketId = marketFilter(url);
    // `status` is one code or a comma list of them (1 pending … 5 failed); none lists every order.
    const raw = url.searchParams.get('status') ?? '';
    if (raw !== '' && !/^[1-5](,[1-5])*$/.test(raw))
      throw new ApiError(400, ERRNO.invalidParam, 'invalid parameter: status');
    const statuses = new Set(raw === '' ? [] : raw.split(',').map(Number));
    const all = orders
      .list(account, nowSec())
      .filter(
        (o) =>
          (marketId === 0 || o.market.marketId === marketId) &&
          (statuses.size === 0 || statuses.has(o.status)),
      );
    const { total, slice } = page(url, all, 10);
    return { list: slice.map((o) => orders.render(o, false)), total };
  }

  async function post(req: IncomingMessage, res: ServerResponse, path: string, key: string): Promise<void> {
    let body: unknown;
    try {
      body = parseJson(await readBody(req));
    } catch {
      throw new ApiError(400, ERRNO.invalidParam, 'invalid request body');
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new ApiError(400, ERRNO.invalidParam, 'invalid request body');
    const fields = body as Record<string, unknown>;
    const account = holder(key);
    if (path === '/order') {
      try {
        const order = orders.place(account, fields, state.step, nowSec());
        return ok(res, { orderData: orders.render(order, false) });
      } catch (error) {
        if (error instanceof OrderRefusal) throw new ApiError(400, error.errno, error.message);
        throw error;
      }
    }
    if (path === '/order/cancel') {
      const id = fields.orderId;
      if (typeof id !== 'string' || id === '')
        throw new ApiError(400, ERRNO.invalidParam, 'orderId is required');
      return ok(res, { result: orders.cancel(ownOrder(account, id), nowSec()) });
    }
    throw new ApiError(404, 404, 'not found');
  }

  async function route(req: IncomingMessage, res: ServerResponse, url: URL, path: string): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'POST') throw new ApiError(404, 404, 'not found');
    const key = req.headers.apikey;
    if (typeof key !== 'string' || !accounts.knows(key))
      throw new ApiError(401, ERRNO.invalidKey, 'Invalid API key');
    if (req.method === 'POST') return post(req, res, path, key);
    const parts = path.split('/').slice(1);
    const [a, b, c] = parts;
    if (path === '/quoteToken') {
      return ok(res, {
        list: [
          {
            chainId: '56',
            ctfExchangeAddress: orders.exchangeAddress,
            decimal: 18,
            quoteTokenAddress: BSC_USDT,
            symbol: 'USDT',
          },
        ],
        total: 1,
      });
    }
    if (path === '/order') return ok(res, orderList(url, holder(key)));
    if (parts.length === 2 && a === 'order')
      return ok(res, { orderData: orders.render(ownOrder(holder(key), b ?? ''), true) });
    if (parts.length === 1 && a === 'market') return ok(res, marketList(url));
    if (parts.length === 2 && a === 'market') return ok(res, { data: marketById(b ?? '', false) });
    if (parts.length === 3 && a === 'market' && b === 'categorical') {
      return ok(res, { data: marketById(c ?? '', true) });
    }
    if (parts.length === 3 && a === 'market' && b === 'slug') {
      const found = catalogue.bySlug.get(decodeURIComponent(c ?? ''));
      if (!found) throw new ApiError(400, ERRNO.notFound, 'market not found');
      const data =
        found.kind === 'child'
          ? renderBinary(seed, worldNow, found.market)
          : renderRow(seed, worldNow, found);
      return ok(res, { data });
    }
    if (path === '/label') {
      const list = Object.values(OPINION_LABELS)
        .sort((x, y) => x.labelId - y.labelId)
        .map((l) => ({ ...l, imageUrl: '', imageMobileUrl: '' }));
      return ok(res, { list });
    }
    if (path === '/token/orderbook') {
      const { market, side, tokenId } = tokenOf(url);
      const book = orders.book(market, side, state.step, nowSec());
      const conditionId = renderBinary(seed, worldNow, market).conditionId;
      return ok(res, {
        asks: book.asks,
        bids: book.bids,
        market: conditionId,
        timestamp: clock.now(),
        tokenId,
      });
    }
    if (path === '/token/latest-price') {
      const { market, side, tokenId } = tokenOf(url);
      return ok(res, { ...lastTrade(seed, market, side, state.step), timestamp: clock.now(), tokenId });
    }
    if (path === '/token/price-history') return ok(res, priceHistory(url));
    if (path === '/positions') return ok(res, positionsOf(url, holder(key)));
    if (parts.length === 3 && a === 'positions' && b === 'user')
      return ok(res, positionsOf(url, byWallet(c ?? '')));
    if (path === '/trade') return ok(res, tradesOf(url, holder(key)));
    if (parts.length === 3 && a === 'trade' && b === 'user') return ok(res, tradesOf(url, byWallet(c ?? '')));
    if (path === '/user/balance') {
      const account = holder(key);
      const chain = url.searchParams.get('chain_id');
      if (chain === null || chain === '') throw new ApiError(400, ERRNO.invalidParam, 'chain_id is required');
      return ok(res, chain === '56' ? renderBalance(account) : { balances: [], chainId: chain });
    }
    if (path === '/user/auth') {
      const account = holder(key);
      return ok(res, { walletAddress: account.wallet, walletUsers: { '56': account.multisig } });
    }
    throw new ApiError(404, 404, 'not found');
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://sim');
    } catch {
      return fail(res, new ApiError(400, ERRNO.invalidParam, 'bad request'));
    }
    if (await handleControl(req, res, url.pathname, control)) return;
    if (!url.pathname.startsWith('/openapi/')) return fail(res, new ApiError(404, 404, 'not found'));
    // The target lets a test aim faults at one route (`only`).
    const target = { method: req.method ?? 'GET', path: url.pathname };
    const fault = await faults.gate(target);
    faults.malformResponse(res, target);
    faults.holdResponse(res, target);
    // Gateway-level refusals carry the HTTP status as errno (the real gateway's body is not documented).
    if (fault?.kind === 'rate_limited') {
      return fail(res, new ApiError(429, 429, 'Too Many Requests'), {
        'retry-after': String(fault.retryAfterSeconds),
      });
    }
    if (fault?.kind === 'error')
      return fail(res, new ApiError(fault.status, fault.status, 'Internal Server Error'));
    try {
      await route(req, res, url, url.pathname.slice('/openapi'.length));
    } catch (error) {
      if (error instanceof ApiError) return fail(res, error);
      throw error;
    }
  }

  return createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) fail(res, new ApiError(400, ERRNO.invalidParam, 'bad request'));
    });
  });
}
