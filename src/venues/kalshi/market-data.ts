// Market-data facet: the live book of one outcome (YES asks derived from NO bids), candles from the batch
// candlestick endpoint (no series ticker needed; 6 h and 1 w rolled up from native 1 h and 1 d), the public trade
// tape, and market streams (native WebSocket with a stream key, else polling the REST book).
import type { Candle, CandleInterval, OrderBook, Trade } from '../../domain/book.js';
import { INTERVAL_SECONDS } from '../../domain/candles.js';
import type { Market } from '../../domain/market.js';
import { AppError } from '../../errors/app-error.js';
import type { HistoryQuery, MarketDataFacet, MarketStream, StreamContext, VenueContext } from '../port.js';
import { payloadDecoder } from '../shared/payload.js';
import { pollingMarketStream } from '../shared/polling-market-stream.js';
import type { KalshiClient } from './client.js';
import { mapKalshiError } from './errors.js';
import {
  aggregateCandles,
  parseCandles,
  parseOrderbook,
  parseTrade,
  resolveOutcome,
  tokenId,
} from './parse.js';
import { KalshiBatchCandlesResponse, KalshiOrderbook, KalshiTradesPage } from './payloads.js';
import { openKalshiMarketStream } from './stream.js';

const decodeBook = payloadDecoder(KalshiOrderbook);
const decodeTrades = payloadDecoder(KalshiTradesPage);
const decodeCandles = payloadDecoder(KalshiBatchCandlesResponse);

/** Native period (minutes) each of our intervals is built from. */
const NATIVE: Record<Exclude<CandleInterval, 'max'>, 1 | 60 | 1440> = {
  '1m': 1,
  '1h': 60,
  '6h': 60,
  '1d': 1440,
  '1w': 1440,
};
/** Candles asked for per request; the batch endpoint returns at most 10,000 in all. */
const CANDLES_PER_REQUEST = 5_000;
const POLL_INTERVAL_MS = 1_000;

export function kalshiMarketData(client: KalshiClient): Required<Omit<MarketDataFacet, 'fetchUserActivity'>> {
  async function fetchOrderBook(ctx: VenueContext, market: Market, outcome: string): Promise<OrderBook> {
    const which = resolveOutcome(market, outcome);
    const book = await client.get(ctx, decodeBook, {
      path: `/markets/${encodeURIComponent(market.exchange_market_id)}/orderbook`,
      operation: 'get_orderbook',
    });
    return parseOrderbook(book, market, which, new Date());
  }

  return {
    fetchOrderBook: (ctx, market, outcome) => fetchOrderBook(ctx, market, outcome),

    async fetchPriceHistory(
      ctx: VenueContext,
      market: Market,
      outcome: string,
      query: HistoryQuery,
    ): Promise<Candle[]> {
      const which = resolveOutcome(market, outcome);
      if (query.interval === 'max') {
        throw new AppError('not_supported', "kalshi candles do not support interval 'max'");
      }
      const native = NATIVE[query.interval];
      const nativeSeconds = native * 60;
      const target = INTERVAL_SECONDS[query.interval];
      // Kalshi returns candles *ending* in [start_ts, end_ts]. A rolled-up period needs every native candle from
      // its own start, so the first request begins one native period after the first target period starts.
      const rolledUp = target !== nativeSeconds;
      const start = rolledUp ? Math.floor(query.startTs / target) * target + nativeSeconds : query.startTs;
      const end = query.endTs;
      const candles: Candle[] = [];
      for (let from = start; from <= end; from += CANDLES_PER_REQUEST * nativeSeconds) {
        const to = Math.min(end, from + CANDLES_PER_REQUEST * nativeSeconds - 1);
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
      const rolled = rolledUp ? aggregateCandles(candles, target) : candles;
      // Keep the periods that overlap the window (a candle ending exactly at start_ts covers the time before it).
      return rolled.filter((c) => {
        const t = Date.parse(c.timestamp) / 1000;
        return t + target > query.startTs && t <= query.endTs;
      });
    },

    async fetchTrades(ctx: VenueContext, market: Market, outcome: string, limit: number): Promise<Trade[]> {
      const which = resolveOutcome(market, outcome);
      const page = await client.get(ctx, decodeTrades, {
        path: '/markets/trades',
        query: { ticker: market.exchange_market_id, limit: Math.max(1, Math.min(1000, limit)) },
        operation: 'get_trades',
      });
      return page.trades
        .slice(0, limit)
        .map((t) => parseTrade(t, which))
        .sort((a, b) => b.timestamp.localeCompare(a.timestamp));
    },

    openMarketStream(ctx: StreamContext): MarketStream {
      const credentials = client.options.streamCredentials;
      if (credentials) return openKalshiMarketStream(ctx, client.options.wsUrl, credentials);
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
