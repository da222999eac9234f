// Public market data of trade API v2: exchange status, series, events (optionally with nested markets),
// markets (cursor pages, status/event/series/ticker filters), order books, candlesticks by series and market or
// in batch, and the public trade tape. No authentication, as on the exchange.
import { filterOf, type SimMarket, STATUS_FILTERS, type StatusFilter } from './catalog.js';
import type { PublicTrade, SimExchange } from './exchange.js';
import { marketArchived } from './historical.js';
import { candleAt, type SimCandle } from './house.js';
import {
  type Ctx,
  intParam,
  listParam,
  nestedError,
  optionalInt,
  pageOf,
  paramError,
  readCursor,
  send,
  writeCursor,
} from './http-util.js';
import { candleJson, eventJson, marketJson, orderbookJson, seriesJson, sorted, tradeJson } from './render.js';

const PERIODS = new Set([1, 60, 1440]);
const MAX_CANDLES = 5_000;
/** Oldest house-tape step a market lists (its opening history, a minute apart before the simulator started). */
const FIRST_TAPE_STEP = -19;

function statusFilter(ctx: Ctx, operation: string, allowed: readonly string[]): StatusFilter | null {
  const raw = ctx.query.get('status');
  if (raw === null || raw === '') return null;
  if (!allowed.includes(raw)) throw paramError(operation, 'Status', 'oneof');
  return raw as StatusFilter;
}

function notFound(): never {
  throw nestedError(404, 'not_found');
}

export function publicRoutes(ex: SimExchange) {
  const { catalog } = ex;
  // An archived market (settled before the historical cutoff) is gone from every live market endpoint.
  const live = (m: SimMarket | undefined): m is SimMarket => m !== undefined && !marketArchived(ex.cutoff, m);
  const market = (ticker: string): SimMarket => {
    const m = catalog.marketByTicker.get(ticker);
    return live(m) ? m : notFound();
  };

  return {
    exchangeStatus(ctx: Ctx): void {
      send(ctx, 200, { exchange_active: true, trading_active: true });
    },

    seriesList(ctx: Ctx): void {
      const category = ctx.query.get('category');
      const list = [...catalog.series.values()].filter((s) => !category || s.category === category);
      send(ctx, 200, { series: list.map(seriesJson) });
    },

    series(ctx: Ctx, ticker: string): void {
      const s = catalog.series.get(ticker) ?? notFound();
      send(ctx, 200, { series: seriesJson(s) });
    },

    events(ctx: Ctx): void {
      const limit = intParam(ctx, 'GetEvents', 'limit', 'Limit', { min: 1, max: 200, fallback: 200 });
      const status = statusFilter(ctx, 'GetEvents', ['unopened', 'open', 'closed', 'settled']);
      const nested = ctx.query.get('with_nested_markets') === 'true';
      const series = ctx.query.get('series_ticker');
      let list = series ? (catalog.eventsBySeries.get(series) ?? []) : catalog.events;
      if (status) {
        // An event matches when any of its markets does (the documented event filter semantics).
        list = series
          ? list.filter((e) => e.markets.some((m) => filterOf(m.status) === status))
          : catalog.eventsByStatus[status];
      }
      const { page, cursor } = pageOf(list, ctx, limit);
      send(ctx, 200, { cursor, events: page.map((e) => eventJson(ex, e, nested)) });
    },

    event(ctx: Ctx, ticker: string): void {
      const e = catalog.eventByTicker.get(ticker) ?? notFound();
      const nested = ctx.query.get('with_nested_markets') === 'true';
      send(ctx, 200, { event: eventJson(ex, e, nested), markets: e.markets.map((m) => marketJson(ex, m)) });
    },

    markets(ctx: Ctx): void {
      const limit =
        intParam(ctx, 'GetMarkets', 'limit', 'Limit', { min: 0, max: 1000, fallback: 100 }) || 100;
      const status = statusFilter(ctx, 'GetMarkets', STATUS_FILTERS);
      const tickers = listParam(ctx, 'tickers');
      const eventTicker = ctx.query.get('event_ticker');
      const series = ctx.query.get('series_ticker');
      const minClose = optionalInt(ctx, 'GetMarkets', 'min_close_ts', 'MinCloseTs');
      const maxClose = optionalInt(ctx, 'GetMarkets', 'max_close_ts', 'MaxCloseTs');
      let list: readonly SimMarket[];
      if (tickers) list = tickers.flatMap((t) => catalog.marketByTicker.get(t) ?? []);
      else if (eventTicker) list = catalog.eventByTicker.get(eventTicker)?.markets ?? [];
      else if (series) list = catalog.marketsBySeries.get(series) ?? [];
      else list = status ? catalog.marketsByStatus[status] : catalog.markets;
      const scoped = tickers !== null || eventTicker !== null || series !== null;
      if (status && scoped) list = list.filter((m) => filterOf(m.status) === status);
      if (minClose !== null || maxClose !== null) {
        list = list.filter(
          (m) =>
            (minClose === null || m.closeMs / 1000 >= minClose) &&
            (maxClose === null || m.closeMs / 1000 <= maxClose),
        );
      }
      const { page, cursor } = pageOf(list.filter(live), ctx, limit);
      send(ctx, 200, { cursor, markets: page.map((m) => marketJson(ex, m)) });
    },

    market(ctx: Ctx, ticker: string): void {
      send(ctx, 200, { market: marketJson(ex, market(ticker)) });
    },

    orderbook(ctx: Ctx, ticker: string): void {
      const depth = intParam(ctx, 'GetMarketOrderbook', 'depth', 'Depth', {
        min: -1_000_000,
        max: 100,
        fallback: 0,
      });
      send(ctx, 200, orderbookJson(ex, market(ticker), depth));
    },

    orderbooks(ctx: Ctx): void {
      const tickers = listParam(ctx, 'tickers') ?? [];
      if (tickers.length === 0) throw paramError('GetMarketOrderbooks', 'Tickers', 'required');
      const books = tickers.flatMap((t) => {
        const m = catalog.marketByTicker.get(t);
        return m ? [sorted({ orderbook_fp: orderbookJson(ex, m, 0).orderbook_fp, ticker: t })] : [];
      });
      send(ctx, 200, { orderbooks: books });
    },

    candlesticks(ctx: Ctx, seriesTicker: string, ticker: string): void {
      const m = market(ticker);
      if (m.seriesTicker !== seriesTicker) notFound();
      send(ctx, 200, {
        candlesticks: candleRange(ex, ctx, 'GetMarketCandlesticks', m).map(candleJson),
        ticker,
      });
    },

    batchCandlesticks(ctx: Ctx): void {
      const tickers = listParam(ctx, 'market_tickers') ?? [];
      if (tickers.length === 0) throw paramError('BatchGetMarketCandlesticks', 'MarketTickers', 'required');
      if (tickers.length > 100) throw paramError('BatchGetMarketCandlesticks', 'MarketTickers', 'max');
      const markets = tickers.flatMap((t) => {
        const m = catalog.marketByTicker.get(t);
        return live(m)
          ? [
              {
                candlesticks: candleRange(ex, ctx, 'BatchGetMarketCandlesticks', m).map(candleJson),
                market_ticker: t,
              },
            ]
          : [];
      });
      send(ctx, 200, { markets });
    },

    trades(ctx: Ctx): void {
      const limit = intParam(ctx, 'GetTrades', 'limit', 'Limit', { min: 0, max: 1000, fallback: 100 }) || 100;
      const minTs = optionalInt(ctx, 'GetTrades', 'min_ts', 'MinTs');
      const maxTs = optionalInt(ctx, 'GetTrades', 'max_ts', 'MaxTs');
      const ticker = ctx.query.get('ticker');
      const inWindow = (t: PublicTrade) =>
        (minTs === null || t.timeMs >= minTs * 1000) && (maxTs === null || t.timeMs <= maxTs * 1000);
      if (!ticker) {
        // Without a ticker only customer trades are listed (the house tape is per market).
        const all = ex.allTrades().filter(inWindow);
        all.sort((a, b) => b.timeMs - a.timeMs);
        const { page, cursor } = pageOf(all, ctx, limit);
        send(ctx, 200, { cursor, trades: page.map(tradeJson) });
        return;
      }
      const m = catalog.marketByTicker.get(ticker);
      if (!m) {
        send(ctx, 200, { cursor: '', trades: [] });
        return;
      }
      // Newest first: the house tape (one trade per advance step) merged with customer trades by time.
      const real = ex.tradesOf(m.ticker);
      const [k0, r0] = readCursor(ctx);
      let k = k0 ?? (m.status === 'active' ? ex.step : FIRST_TAPE_STEP - 1);
      let r = r0 ?? real.length - 1;
      const out: PublicTrade[] = [];
      while (out.length < limit) {
        const tape = k >= FIRST_TAPE_STEP && m.status === 'active' ? ex.tapeTrade(m, k) : null;
        const mine = r >= 0 ? real[r] : undefined;
        if (!tape && !mine) break;
        const next = mine && (!tape || mine.timeMs >= tape.timeMs) ? mine : (tape as PublicTrade);
        if (next === mine) r -= 1;
        else k -= 1;
        if (minTs !== null && next.timeMs < minTs * 1000) {
          k = FIRST_TAPE_STEP - 1;
          r = -1;
          break;
        }
        if (inWindow(next)) out.push(next);
      }
      const more = (k >= FIRST_TAPE_STEP && m.status === 'active') || r >= 0;
      send(ctx, 200, { cursor: more ? writeCursor(k, r) : '', trades: out.map(tradeJson) });
    },
  };
}

/** Candles of one market over the request window (live and historical routes share them). */
export function candleRange(ex: SimExchange, ctx: Ctx, operation: string, m: SimMarket): SimCandle[] {
  const start = optionalInt(ctx, operation, 'start_ts', 'StartTs');
  const end = optionalInt(ctx, operation, 'end_ts', 'EndTs');
  const period = optionalInt(ctx, operation, 'period_interval', 'PeriodInterval');
  if (start === null) throw paramError(operation, 'StartTs', 'required');
  if (end === null) throw paramError(operation, 'EndTs', 'required');
  if (period === null) throw paramError(operation, 'PeriodInterval', 'required');
  if (!PERIODS.has(period)) throw paramError(operation, 'PeriodInterval', 'oneof');
  const seconds = period * 60;
  // Candles end on period boundaries; the one in progress is included, nothing past the exchange's clock.
  const nowS = Math.floor(ex.clockMs() / 1000);
  const last = Math.min(Math.floor(end / seconds) * seconds, Math.ceil(nowS / seconds) * seconds);
  // Nor before the market opened: the first candle is the one the opening falls in.
  const opening = (Math.floor(m.openMs / 1000 / seconds) + 1) * seconds;
  const first = Math.max(Math.ceil(start / seconds) * seconds, opening);
  const out: SimCandle[] = [];
  for (let t = first; t <= last && out.length < MAX_CANDLES; t += seconds) out.push(candleAt(m, t, seconds));
  return out;
}
