// Market-data facet: the live book of one outcome (YES asks derived from NO bids), native candles from the batch
// candlestick endpoint (no series ticker needed; 1 min, 1 h or 1 d, which our 6 h, 1 w and max are built from),
// the public trade tape, and market streams (native WebSocket with a stream key, else polling the REST book).
import type { Candle, CandleInterval, OrderBook } from '../../domain/book.js';
import type { PriceSeries } from '../../domain/candles.js';
import { Decimal } from '../../domain/decimal.js';
import type { FeeSchedule } from '../../domain/fees/schedule.js';
import type { Market } from '../../domain/market.js';
import type {
  HistoryQuery,
  MarketDataFacet,
  MarketStream,
  StreamContext,
  TradesPage,
  TradesQuery,
  VenueContext,
} from '../port.js';
import { payloadDecoder } from '../shared/payload.js';
import { pollingMarketStream } from '../shared/polling-market-stream.js';
import { VenueStatusError } from '../shared/venue-errors.js';
import type { KalshiClient } from './client.js';
import { mapKalshiError } from './errors.js';
import { parseCandles, parseOrderbook, parseTrade, resolveOutcome, tokenId } from './parse.js';
import {
  KalshiBatchCandlesResponse,
  type KalshiCandle,
  KalshiEventResponse,
  type KalshiHistoricalCandle,
  KalshiHistoricalCandlesResponse,
  KalshiOrderbook,
  KalshiSeriesResponse,
  KalshiTradesPage,
} from './payloads.js';
import { openKalshiMarketStream } from './stream.js';

const decodeBook = payloadDecoder(KalshiOrderbook);
const decodeTrades = payloadDecoder(KalshiTradesPage);
const decodeCandles = payloadDecoder(KalshiBatchCandlesResponse);
const decodeEvent = payloadDecoder(KalshiEventResponse);
const decodeHistoricalCandles = payloadDecoder(KalshiHistoricalCandlesResponse);
const decodeSeries = payloadDecoder(KalshiSeriesResponse);

/** Native period (minutes) each of our intervals is built from; `max` takes hours (see nativeFor). */
const NATIVE: Record<Exclude<CandleInterval, 'max'>, 1 | 60 | 1440> = {
  '1m': 1,
  '1h': 60,
  '6h': 60,
  '1d': 1440,
  '1w': 1440,
};

/** `max` is one candle over the window: hourly candles, or daily ones past 200 days (40 requests at most). */
function nativeFor(query: HistoryQuery): 1 | 60 | 1440 {
  if (query.interval !== 'max') return NATIVE[query.interval];
  return query.endTs - query.startTs > 200 * 86_400 ? 1440 : 60;
}
/** Candles asked for per request; the batch endpoint returns at most 10,000 in all. */
const CANDLES_PER_REQUEST = 5_000;
const POLL_INTERVAL_MS = 1_000;

export function kalshiMarketData(
  client: KalshiClient,
): Required<Omit<MarketDataFacet, 'fetchUserActivity' | 'fetchWalletActivity'>> {
  async function fetchOrderBook(ctx: VenueContext, market: Market, outcome: string): Promise<OrderBook> {
    const which = resolveOutcome(market, outcome);
    const book = await client.get(ctx, decodeBook, {
      path: `/markets/${encodeURIComponent(market.exchange_market_id)}/orderbook`,
      operation: 'get_orderbook',
    });
    return parseOrderbook(book, market, which, new Date());
  }

  /**
   * Markets settled before `market_settled_ts` have their candlesticks only under /historical (docs.kalshi.com
   * "Historical data"). A market settles after it closes, so one still open, or closed at or after the cutoff,
   * is live; a resolved one that closed before may be either, and its historical candles are asked first.
   */
  async function mayBeArchived(ctx: VenueContext, market: Market): Promise<boolean> {
    if (market.status !== 'resolved' || !market.end_date) return false;
    const closed = Date.parse(market.end_date);
    if (!Number.isFinite(closed)) return false;
    // An unreadable cutoff asks the historical tier anyway: its 404 sends the read back to the live tier.
    const cutoff = await client.historicalCutoff(ctx).catch(() => null);
    return cutoff === null || closed < cutoff.marketSettledMs;
  }

  /** One window of historical candles, or null when the market is not archived (404: it is still live). */
  async function historicalCandles(
    ctx: VenueContext,
    market: Market,
    from: number,
    to: number,
    native: number,
  ): Promise<KalshiHistoricalCandle[] | null> {
    try {
      const res = await client.get(ctx, decodeHistoricalCandles, {
        path: `/historical/markets/${encodeURIComponent(market.exchange_market_id)}/candlesticks`,
        query: { start_ts: from, end_ts: to, period_interval: native },
        operation: 'get_historical_candlesticks',
      });
      return res.candlesticks;
    } catch (error) {
      if (error instanceof VenueStatusError && error.status === 404) return null;
      throw error;
    }
  }

  return {
    fetchOrderBook: (ctx, market, outcome) => fetchOrderBook(ctx, market, outcome),

    // Fees are set per series (`fee_type`, `fee_multiplier`); a market knows its event, the event its series.
    async fetchFeeSchedule(ctx: VenueContext, market: Market): Promise<FeeSchedule> {
      const eventTicker = market.exchange_group_id;
      let seriesTicker = eventTicker.split('-')[0] ?? eventTicker;
      if (eventTicker) {
        const { event } = await client.get(ctx, decodeEvent, {
          path: `/events/${encodeURIComponent(eventTicker)}`,
          operation: 'get_event',
        });
        seriesTicker = event.series_ticker ?? seriesTicker;
      }
      const { series } = await client.get(ctx, decodeSeries, {
        path: `/series/${encodeURIComponent(seriesTicker)}`,
        operation: 'get_series',
      });
      return {
        venue: 'kalshi',
        feeType: series.fee_type,
        multiplier: Decimal.fromNumber(series.fee_multiplier).toString(),
      };
    },

    async fetchPriceHistory(
      ctx: VenueContext,
      market: Market,
      outcome: string,
      query: HistoryQuery,
    ): Promise<PriceSeries> {
      const which = resolveOutcome(market, outcome);
      const native = nativeFor(query);
      const nativeSeconds = native * 60;
      // Kalshi returns candles *ending* in [start_ts, end_ts] and stamps their end: the candle of the period that
      // starts at start_ts ends one period later. Periods starting inside the window are the ones kept.
      const first = Math.ceil(query.startTs / nativeSeconds) * nativeSeconds;
      let archived = await mayBeArchived(ctx, market);
      const candles: Candle[] = [];
      for (
        let from = first + nativeSeconds;
        from <= query.endTs + nativeSeconds;
        from += CANDLES_PER_REQUEST * nativeSeconds
      ) {
        const to = Math.min(query.endTs + nativeSeconds, from + CANDLES_PER_REQUEST * nativeSeconds - 1);
        if (archived) {
          const page = await historicalCandles(ctx, market, from, to, native);
          if (page) {
            candles.push(...parseCandles(page.map(liveShape), nativeSeconds, which));
            continue;
          }
          archived = false;
        }
        const res = await client.get(ctx, decodeCandles, {
          path: '/markets/candlesticks',
          query: {
            market_tickers: market.exchange_market_id,
            start_ts: from,
            end_ts: to,
            period_interval: native,
          },
          operation: 'get_candlesticks',
        });
        const mine = res.markets.find((m) => m.market_ticker === market.exchange_market_id);
        candles.push(...parseCandles(mine?.candlesticks ?? [], nativeSeconds, which));
      }
      const inWindow = candles.filter((c) => {
        const t = Date.parse(c.timestamp) / 1000;
        return t >= query.startTs && t <= query.endTs;
      });
      return { kind: 'candles', periodSeconds: nativeSeconds, candles: inWindow };
    },

    async fetchTrades(
      ctx: VenueContext,
      market: Market,
      outcome: string,
      query: TradesQuery,
    ): Promise<TradesPage> {
      const which = resolveOutcome(market, outcome);
      // Every Kalshi trade is a trade of both outcomes (YES at p is NO at 1 − p), so a venue page is our page.
      // Kalshi filters "after" min_ts and "before" max_ts in whole seconds without saying whether the ends count;
      // our window holds its whole first and last second, so the venue is asked for a second more on each side
      // and the few trades outside are dropped here.
      const page = await client.get(ctx, decodeTrades, {
        path: '/markets/trades',
        query: {
          ticker: market.exchange_market_id,
          limit: Math.max(1, Math.min(1000, query.limit)),
          min_ts: query.startTs === null ? null : query.startTs - 1,
          max_ts: query.endTs === null ? null : query.endTs + 1,
          cursor: query.cursor,
        },
        operation: 'get_trades',
      });
      const startMs = query.startTs === null ? Number.NEGATIVE_INFINITY : query.startTs * 1000;
      const endMs = query.endTs === null ? Number.POSITIVE_INFINITY : (query.endTs + 1) * 1000;
      const trades = page.trades
        .map((t) => parseTrade(t, which))
        .filter((t) => Date.parse(t.timestamp) >= startMs && Date.parse(t.timestamp) < endMs)
        .sort((a, b) => b.timestamp.localeCompare(a.timestamp))
        .slice(0, query.limit);
      return { trades, cursor: page.cursor ? page.cursor : null, sourceChannel: 'kalshi_rest_trades' };
    },

    openMarketStream(ctx: StreamContext): MarketStream {
      const credentials = client.options.streamCredentials;
      if (credentials)
        return openKalshiMarketStream(
          ctx,
          client.options.wsUrl,
          credentials,
          client.options.streamHeartbeatMs,
        );
      return pollingMarketStream(ctx, {
        venue: 'kalshi',
        intervalMs: POLL_INTERVAL_MS,
        instrument: ({ market, outcome }) => {
          const which = resolveOutcome(market, outcome);
          return {
            market_id: market.exchange_market_id,
            outcome: which,
            token_id: tokenId(market.exchange_market_id, which),
          };
        },
        fetchBook: async ({ market, outcome }, signal) => {
          const polled = { signal, requestId: 'kalshi-poll', logger: ctx.logger, tenant: null };
          try {
            return await fetchOrderBook(polled, market, outcome);
          } catch (error) {
            throw mapKalshiError(error, 'market');
          }
        },
      });
    },
  };
}

/** A historical candle in the live shape `parseCandles` reads (plain dollar strings become `*_dollars`). */
function liveShape(c: KalshiHistoricalCandle): KalshiCandle {
  const p = c.price;
  return {
    end_period_ts: c.end_period_ts,
    price: p
      ? { open_dollars: p.open, high_dollars: p.high, low_dollars: p.low, close_dollars: p.close }
      : null,
    volume_fp: c.volume ?? null,
  };
}
