// Public CLOB REST: markets (cursor pages), books, prices, midpoints, spreads, last trades, tick size, neg-risk,
// fee rate, price history, time and version. Error texts and statuses follow Polymarket's error-code reference.
import { assetDepth, bookSummary, clobMarketInfoJson, clobMarketJson } from './clob-payloads.js';
import type { PmContext } from './context.js';
import { CLOB_ERRORS } from './errors.js';
import { parseHistoryQuery, priceHistory } from './history.js';
import {
  type Ctx,
  cursorPage,
  decodeCursor,
  fail,
  listParam,
  parseBody,
  type Route,
  send,
} from './http-util.js';
import { fmtUnits, ONE } from './units.js';

/** Minutes: the finest `/prices-history` fidelity a market that stopped trading is answered at. */
const CLOSED_MARKET_MIN_FIDELITY = 720;

export const MARKETS_PAGE = 100;
const BATCH_LIMIT = 500;

type Resolved = { market: import('./catalogue.js').PmMarket; outcome: 0 | 1 };

export function publicClobRoutes(pm: PmContext): Route[] {
  const { cat, exchange } = pm;

  /** token id → market, answering 400/404 the way /book does when it cannot. */
  const token = (ctx: Ctx, id: string | null, missing: string = CLOB_ERRORS.noOrderbook): Resolved | null => {
    if (!id || !/^\d{1,78}$/.test(id)) {
      fail(ctx, 400, CLOB_ERRORS.invalidTokenId);
      return null;
    }
    const found = cat.byToken(id);
    if (!found) {
      fail(ctx, 404, missing);
      return null;
    }
    return found;
  };

  const side = (r: Resolved) => {
    const view = exchange.view(r.market);
    return view ? { view, depth: assetDepth(view, r.outcome) } : null;
  };

  const priceOf = (r: Resolved, s: 'BUY' | 'SELL'): string | null => {
    const v = side(r);
    if (!v) return null;
    // GET /price answers with the best bid for BUY and the best ask for SELL (checked live by third parties).
    const level = s === 'BUY' ? v.depth.bids[0] : v.depth.asks[0];
    return level ? fmtUnits(level[0]) : '0';
  };

  const midOf = (r: Resolved): string | null => {
    const v = side(r);
    if (!v) return null;
    const bid = v.depth.bids[0]?.[0];
    const ask = v.depth.asks[0]?.[0];
    if (bid === undefined || ask === undefined) return fmtUnits(bid ?? ask ?? 0);
    return fmtUnits(Math.round((bid + ask) / 2));
  };

  const spreadOf = (r: Resolved): string | null => {
    const v = side(r);
    if (!v) return null;
    const bid = v.depth.bids[0]?.[0];
    const ask = v.depth.asks[0]?.[0];
    return bid === undefined || ask === undefined ? '0' : fmtUnits(ask - bid);
  };

  const lastOf = (r: Resolved): { price: string; side: string } => {
    const view = exchange.view(r.market);
    if (!view?.last) return { price: '0.5', side: '' };
    const yes = view.last.price;
    const takerSide = view.last.takerSide;
    return r.outcome === 0
      ? { price: fmtUnits(yes), side: takerSide }
      : { price: fmtUnits(ONE - yes), side: takerSide === 'BUY' ? 'SELL' : 'BUY' };
  };

  const one = (answer: (r: Resolved) => unknown) => (ctx: Ctx) => {
    const r = token(ctx, ctx.query.get('token_id'));
    if (!r) return;
    const body = answer(r);
    if (body === null) return fail(ctx, 404, CLOB_ERRORS.noOrderbook);
    send(ctx, 200, body);
  };

  /** POST batch of {token_id, side?}; unknown or bookless tokens are left out of the answer. */
  const batch = (ctx: Ctx): Array<{ token: string; r: Resolved; side?: string }> | null => {
    let items: unknown;
    try {
      items = parseBody(ctx);
    } catch {
      fail(ctx, 400, CLOB_ERRORS.invalidPayload);
      return null;
    }
    if (!Array.isArray(items) || items.some((i) => typeof i?.token_id !== 'string')) {
      fail(ctx, 400, CLOB_ERRORS.invalidPayload);
      return null;
    }
    if (items.length > BATCH_LIMIT) {
      fail(ctx, 400, CLOB_ERRORS.payloadLimit);
      return null;
    }
    const out: Array<{ token: string; r: Resolved; side?: string }> = [];
    for (const item of items as Array<{ token_id: string; side?: unknown }>) {
      const r = cat.byToken(item.token_id);
      if (r)
        out.push({ token: item.token_id, r, ...(typeof item.side === 'string' ? { side: item.side } : {}) });
    }
    return out;
  };

  /** GET variants of the batch endpoints take comma-separated token_ids (and sides). */
  const queryBatch = (ctx: Ctx) => {
    const tokens = listParam(ctx.query, 'token_ids');
    const sides = listParam(ctx.query, 'sides');
    return tokens.flatMap((t, i) => {
      const r = cat.byToken(t);
      return r ? [{ token: t, r, side: sides[i] ?? sides[0] }] : [];
    });
  };

  const prices = (items: Array<{ token: string; r: Resolved; side?: string }> | null, ctx: Ctx) => {
    if (!items) return;
    const out = new Map<string, Record<string, string>>();
    for (const { token: t, r, side: s } of items) {
      if (s !== 'BUY' && s !== 'SELL') return fail(ctx, 400, CLOB_ERRORS.invalidSide);
      const p = priceOf(r, s);
      if (p !== null) out.set(t, { ...(out.get(t) ?? {}), [s]: p });
    }
    send(ctx, 200, Object.fromEntries(out));
  };

  const keyed =
    (fn: (r: Resolved) => string | null) =>
    (items: Array<{ token: string; r: Resolved }> | null, ctx: Ctx) => {
      if (!items) return;
      const out = new Map<string, string>();
      for (const { token: t, r } of items) {
        const v = fn(r);
        if (v !== null) out.set(t, v);
      }
      send(ctx, 200, Object.fromEntries(out));
    };
  const midpoints = keyed(midOf);
  const spreads = keyed(spreadOf);

  const market = (ctx: Ctx, render: (m: import('./catalogue.js').PmMarket) => unknown) => {
    const id = ctx.params[0] ?? '';
    if (!/^0x[0-9a-fA-F]{64}$/.test(id)) return fail(ctx, 400, CLOB_ERRORS.invalidMarket);
    const m = cat.byConditionId(id);
    if (!m) return fail(ctx, 404, CLOB_ERRORS.marketNotFound);
    send(ctx, 200, render(m));
  };

  return [
    { method: 'GET', path: '/', handler: (ctx) => send(ctx, 200, 'OK') },
    { method: 'GET', path: '/ok', handler: (ctx) => send(ctx, 200, 'OK') },
    { method: 'GET', path: '/time', handler: (ctx) => send(ctx, 200, Math.floor(pm.clock.now() / 1000)) },
    { method: 'GET', path: '/version', handler: (ctx) => send(ctx, 200, { version: 2 }) },
    {
      method: 'GET',
      path: '/markets',
      handler: (ctx) => {
        const offset = decodeCursor(ctx.query.get('next_cursor'));
        if (offset === null) return fail(ctx, 400, 'invalid next_cursor');
        const page = cursorPage(cat.markets, offset, MARKETS_PAGE);
        send(ctx, 200, { ...page, data: page.data.map((m) => clobMarketJson(cat, exchange, m)) });
      },
    },
    {
      method: 'GET',
      path: /^\/markets\/([^/]+)$/,
      handler: (ctx) => market(ctx, (m) => clobMarketJson(cat, exchange, m)),
    },
    {
      method: 'GET',
      path: /^\/clob-markets\/([^/]+)$/,
      handler: (ctx) => market(ctx, (m) => clobMarketInfoJson(cat, exchange, m)),
    },
    {
      method: 'GET',
      path: /^\/markets-by-token\/([^/]+)$/,
      handler: (ctx) => {
        const r = token(ctx, ctx.params[0] ?? null, CLOB_ERRORS.marketNotFound);
        if (r) send(ctx, 200, { condition_id: cat.conditionId(r.market) });
      },
    },
    {
      method: 'GET',
      path: '/book',
      handler: one((r) => {
        const view = exchange.view(r.market);
        return view ? bookSummary(cat, r.market, r.outcome, view) : null;
      }),
    },
    {
      method: 'POST',
      path: '/books',
      handler: (ctx) => {
        const items = batch(ctx);
        if (!items) return;
        const books = items.flatMap(({ r }) => {
          const view = exchange.view(r.market);
          return view ? [bookSummary(cat, r.market, r.outcome, view)] : [];
        });
        send(ctx, 200, books);
      },
    },
    {
      method: 'GET',
      path: '/price',
      handler: (ctx) => {
        const s = ctx.query.get('side');
        const r = token(ctx, ctx.query.get('token_id'));
        if (!r) return;
        if (s !== 'BUY' && s !== 'SELL') return fail(ctx, 400, CLOB_ERRORS.invalidSide);
        const p = priceOf(r, s);
        if (p === null) return fail(ctx, 404, CLOB_ERRORS.noOrderbook);
        send(ctx, 200, { price: p });
      },
    },
    { method: 'POST', path: '/prices', handler: (ctx) => prices(batch(ctx), ctx) },
    { method: 'GET', path: '/prices', handler: (ctx) => prices(queryBatch(ctx), ctx) },
    { method: 'GET', path: '/midpoint', handler: one((r) => (midOf(r) === null ? null : { mid: midOf(r) })) },
    { method: 'POST', path: '/midpoints', handler: (ctx) => midpoints(batch(ctx), ctx) },
    { method: 'GET', path: '/midpoints', handler: (ctx) => midpoints(queryBatch(ctx), ctx) },
    {
      method: 'GET',
      path: '/spread',
      handler: one((r) => (spreadOf(r) === null ? null : { spread: spreadOf(r) })),
    },
    { method: 'POST', path: '/spreads', handler: (ctx) => spreads(batch(ctx), ctx) },
    { method: 'GET', path: '/spreads', handler: (ctx) => spreads(queryBatch(ctx), ctx) },
    { method: 'GET', path: '/last-trade-price', handler: one(lastOf) },
    {
      method: 'POST',
      path: '/last-trades-prices',
      handler: (ctx) => {
        const items = batch(ctx);
        if (items)
          send(
            ctx,
            200,
            items.map(({ token: t, r }) => ({ token_id: t, ...lastOf(r) })),
          );
      },
    },
    {
      method: 'GET',
      path: '/last-trades-prices',
      handler: (ctx) =>
        send(
          ctx,
          200,
          queryBatch(ctx).map(({ token: t, r }) => ({ token_id: t, ...lastOf(r) })),
        ),
    },
    {
      method: 'GET',
      path: '/tick-size',
      handler: (ctx) => {
        const r = token(ctx, ctx.query.get('token_id'), CLOB_ERRORS.marketNotFound);
        if (!r) return;
        const tick = exchange.view(r.market)?.tick ?? r.market.baseTick;
        send(ctx, 200, { minimum_tick_size: tick / ONE });
      },
    },
    {
      method: 'GET',
      path: '/neg-risk',
      handler: (ctx) => {
        const r = token(ctx, ctx.query.get('token_id'), CLOB_ERRORS.marketNotFound);
        if (r) send(ctx, 200, { neg_risk: r.market.event.negRisk });
      },
    },
    {
      method: 'GET',
      path: '/fee-rate',
      handler: (ctx) => {
        const r = token(ctx, ctx.query.get('token_id'), CLOB_ERRORS.marketNotFound);
        if (r) send(ctx, 200, { base_fee: r.market.feeRate > 0 ? 1000 : 0 });
      },
    },
    {
      method: 'GET',
      path: '/prices-history',
      handler: (ctx) => {
        const id = ctx.query.get('market');
        if (!id || !/^\d{1,78}$/.test(id)) return fail(ctx, 400, CLOB_ERRORS.invalidTokenId);
        const r = cat.byToken(id);
        const nowS = Math.floor(pm.clock.now() / 1000);
        const openS = r ? Math.floor(r.market.event.opened.getTime() / 1000) : nowS;
        const req = parseHistoryQuery(ctx.query, nowS, openS);
        if (!req.ok) return fail(ctx, 400, req.error);
        // A market no longer trading answers only at 12-hour fidelity or coarser: finer requests get an empty
        // history although the data exists (py-clob-client #216, "returns empty data for resolved markets at
        // granularities below 12 hours").
        const closed = r !== undefined && r.market.status !== 'active';
        if (closed && req.fidelity < CLOSED_MARKET_MIN_FIDELITY) return send(ctx, 200, { history: [] });
        send(ctx, 200, { history: r ? priceHistory(r.market, r.outcome, exchange, req) : [] });
      },
    },
  ];
}
