// Kalshi's historical tier (docs.kalshi.com "Historical data"; kalshi-typescript 3.30.0 HistoricalApi): records
// older than the cutoffs of GET /historical/cutoff leave the live endpoints and are served only under
// /historical/*. Markets settled before `market_settled_ts` (and their candlesticks), fills before
// `trades_created_ts`, and orders cancelled or fully executed before `orders_updated_ts` (resting orders never);
// settled positions archived before `market_positions_last_updated_ts` (whole events at a time). Old events and
// series stay on their live endpoints. The real cutoffs trail the present by about three months; the simulator's
// start at the epoch (nothing archived, so the generated catalogue stays live) and `POST
// /__sim/kalshi/historical-cutoff` moves them so tests archive records deterministically.
import type { SimMarket } from './catalog.js';
import type { SimExchange, SimUser } from './exchange.js';
import { count, dollars, timestamp } from './fixed.js';
import type { SimCandle } from './house.js';
import { type Ctx, intParam, listParam, nestedError, optionalInt, pageOf, send } from './http-util.js';
import type { SimFill, SimOrder } from './ledger.js';
import { eventPositionJson, fillJson, marketJson, orderJson, positionJson, sorted } from './render.js';
import { candleRange } from './routes-public.js';

type Json = Record<string, unknown>;

export interface CutoffValues {
  marketSettledMs: number;
  tradesCreatedMs: number;
  ordersUpdatedMs: number;
  positionsMs: number;
}

export class HistoricalCutoff implements CutoffValues {
  marketSettledMs = 0;
  tradesCreatedMs = 0;
  ordersUpdatedMs = 0;
  positionsMs = 0;

  set(values: Partial<CutoffValues>): void {
    Object.assign(this, values);
  }

  json(): Json {
    return sorted({
      market_positions_last_updated_ts: timestamp(this.positionsMs),
      market_settled_ts: timestamp(this.marketSettledMs),
      orders_updated_ts: timestamp(this.ordersUpdatedMs),
      trades_created_ts: timestamp(this.tradesCreatedMs),
    });
  }
}

/** When a finalized market settled: `settlement_ts` as rendered (an hour after close). */
export function settledMs(m: SimMarket): number | null {
  return m.status === 'finalized' ? m.closeMs + 3_600_000 : null;
}

export function marketArchived(cutoff: CutoffValues, m: SimMarket): boolean {
  const at = settledMs(m);
  return at !== null && at < cutoff.marketSettledMs;
}

export function fillArchived(cutoff: CutoffValues, f: SimFill): boolean {
  return f.timeMs < cutoff.tradesCreatedMs;
}

/** Resting orders are always live; a cancelled or executed one is archived once its last update is older. */
export function orderArchived(cutoff: CutoffValues, o: SimOrder): boolean {
  return o.status !== 'resting' && o.lastUpdateMs < cutoff.ordersUpdatedMs;
}

/** Parses the control body: each cutoff as unix seconds or an RFC 3339 string; `all` sets the four at once. */
export function cutoffFromBody(body: Record<string, unknown>): Partial<CutoffValues> | null {
  const read = (v: unknown): number | null | undefined => {
    if (v === undefined) return undefined;
    if (typeof v === 'number' && Number.isFinite(v)) return v * 1000;
    if (typeof v === 'string' && Number.isFinite(Date.parse(v))) return Date.parse(v);
    return null;
  };
  const all = read(body.all);
  const fields: Array<
    [
      keyof CutoffValues,
      'market_settled_ts' | 'trades_created_ts' | 'orders_updated_ts' | 'market_positions_last_updated_ts',
    ]
  > = [
    ['marketSettledMs', 'market_settled_ts'],
    ['tradesCreatedMs', 'trades_created_ts'],
    ['ordersUpdatedMs', 'orders_updated_ts'],
    ['positionsMs', 'market_positions_last_updated_ts'],
  ];
  const out: Partial<CutoffValues> = {};
  for (const [key, name] of fields) {
    const own = read(body[name]);
    const v = own === undefined ? all : own;
    if (v === null) return null;
    if (v !== undefined) out[key] = v;
  }
  return out;
}

/** The historical candle shape: the same periods, prices as plain dollar strings, counts without `_fp`. */
function historicalCandleJson(c: SimCandle): Json {
  const ohlc = (v: { open: number; high: number; low: number; close: number }) =>
    sorted({ close: dollars(v.close), high: dollars(v.high), low: dollars(v.low), open: dollars(v.open) });
  const p = c.price;
  return sorted({
    end_period_ts: c.endTs,
    open_interest: count(c.openInterestCentis),
    price: sorted({
      close: p ? dollars(p.close) : null,
      high: p ? dollars(p.high) : null,
      low: p ? dollars(p.low) : null,
      mean: p ? dollars(p.mean) : null,
      open: p ? dollars(p.open) : null,
      previous: dollars(c.previous),
    }),
    volume: count(c.volumeCentis),
    yes_ask: ohlc(c.yesAsk),
    yes_bid: ohlc(c.yesBid),
  });
}

export function historicalRoutes(ex: SimExchange) {
  const { catalog, cutoff } = ex;
  const archivedMarket = (ticker: string): SimMarket => {
    const m = catalog.marketByTicker.get(ticker);
    if (!m || !marketArchived(cutoff, m)) throw nestedError(404, 'not_found');
    return m;
  };
  const window = (ctx: Ctx, operation: string, timeMs: number) => {
    const minTs = optionalInt(ctx, operation, 'min_ts', 'MinTs');
    const maxTs = optionalInt(ctx, operation, 'max_ts', 'MaxTs');
    return (minTs === null || timeMs >= minTs * 1000) && (maxTs === null || timeMs <= maxTs * 1000);
  };

  return {
    cutoff(ctx: Ctx): void {
      send(ctx, 200, cutoff.json());
    },

    markets(ctx: Ctx): void {
      const limit =
        intParam(ctx, 'GetHistoricalMarkets', 'limit', 'Limit', { min: 0, max: 1000, fallback: 100 }) || 100;
      const tickers = listParam(ctx, 'tickers');
      const eventTicker = ctx.query.get('event_ticker');
      const series = ctx.query.get('series_ticker');
      let list: readonly SimMarket[];
      if (tickers) list = tickers.flatMap((t) => catalog.marketByTicker.get(t) ?? []);
      else if (eventTicker) list = catalog.eventByTicker.get(eventTicker)?.markets ?? [];
      else if (series) list = catalog.marketsBySeries.get(series) ?? [];
      else list = catalog.markets;
      const { page, cursor } = pageOf(
        list.filter((m) => marketArchived(cutoff, m)),
        ctx,
        limit,
      );
      send(ctx, 200, { cursor, markets: page.map((m) => marketJson(ex, m)) });
    },

    market(ctx: Ctx, ticker: string): void {
      send(ctx, 200, { market: marketJson(ex, archivedMarket(ticker)) });
    },

    candlesticks(ctx: Ctx, ticker: string): void {
      const m = archivedMarket(ticker);
      const candles = candleRange(ex, ctx, 'GetMarketCandlesticksHistorical', m);
      send(ctx, 200, { candlesticks: candles.map(historicalCandleJson), ticker });
    },

    fills(ctx: Ctx, user: SimUser): void {
      const limit = intParam(ctx, 'GetFillsHistorical', 'limit', 'Limit', {
        min: 1,
        max: 1000,
        fallback: 100,
      });
      const ticker = ctx.query.get('ticker');
      const list = user.fills
        .filter(
          (f) =>
            fillArchived(cutoff, f) &&
            (!ticker || f.ticker === ticker) &&
            window(ctx, 'GetFillsHistorical', f.timeMs),
        )
        .reverse();
      const { page, cursor } = pageOf(list, ctx, limit);
      send(ctx, 200, { cursor, fills: page.map(fillJson) });
    },

    orders(ctx: Ctx, user: SimUser): void {
      ex.expire();
      const limit = intParam(ctx, 'GetHistoricalOrders', 'limit', 'Limit', {
        min: 1,
        max: 1000,
        fallback: 100,
      });
      const ticker = ctx.query.get('ticker');
      const list = user.orders
        .filter(
          (o) =>
            orderArchived(cutoff, o) &&
            (!ticker || o.ticker === ticker) &&
            window(ctx, 'GetHistoricalOrders', o.createdMs),
        )
        .reverse();
      const { page, cursor } = pageOf(list, ctx, limit);
      send(ctx, 200, { cursor, orders: page.map(orderJson) });
    },

    /** Settled positions of events archived before the positions cutoff (the simulator never settles a held one). */
    positions(ctx: Ctx, user: SimUser): void {
      const limit = intParam(ctx, 'GetHistoricalPositions', 'limit', 'Limit', {
        min: 1,
        max: 1000,
        fallback: 100,
      });
      const ticker = ctx.query.get('ticker');
      const eventTicker = ctx.query.get('event_ticker');
      const list = [...user.positions.values()].filter((p) => {
        const m = catalog.marketByTicker.get(p.ticker);
        const at = m ? settledMs(m) : null;
        return (
          at !== null &&
          at < cutoff.positionsMs &&
          (!ticker || p.ticker === ticker) &&
          (!eventTicker || p.eventTicker === eventTicker)
        );
      });
      const { page, cursor } = pageOf(list, ctx, limit);
      const byEvent = new Map<string, typeof page>();
      for (const p of page) byEvent.set(p.eventTicker, [...(byEvent.get(p.eventTicker) ?? []), p]);
      // GetPositionsResponse, as the live endpoint answers: event and market positions.
      send(ctx, 200, {
        cursor,
        event_positions: [...byEvent].map(([e, ps]) => eventPositionJson(e, ps)),
        market_positions: page.map((p) => positionJson(p, 0)),
      });
    },
  };
}
