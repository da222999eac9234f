// Market-data facet: live books from the CLOB, candles rolled up from `/prices-history` points, the public tape
// and wallet activity from the Data API.
import type { Candle, OrderBook, Trade } from '../../domain/book.js';
import { INTERVAL_SECONDS, rollUpTicks } from '../../domain/candles.js';
import type { Market } from '../../domain/market.js';
import { AppError } from '../../errors/app-error.js';
import type { HistoryQuery, MarketDataFacet, StreamContext, VenueContext } from '../port.js';
import { findOutcome } from '../shared/outcomes.js';
import { payloadDecoder } from '../shared/payload.js';
import type { PolymarketClient } from './client.js';
import { clobBookToOrderBook } from './parse.js';
import { dataTradesToTrades } from './parse-trading.js';
import {
  PolymarketBook,
  PolymarketDataPositionList,
  PolymarketDataTradeList,
  PolymarketDataValue,
  PolymarketPriceHistory,
} from './payloads.js';
import { openPolymarketMarketStream } from './stream.js';

const decodeBook = payloadDecoder(PolymarketBook);
const decodeHistory = payloadDecoder(PolymarketPriceHistory);
const decodeTape = payloadDecoder(PolymarketDataTradeList);
const decodePositions = payloadDecoder(PolymarketDataPositionList);
const decodeValue = payloadDecoder(PolymarketDataValue);

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/** The Data API's largest page. */
const MAX_DATA_LIMIT = 500;

export function polymarketMarketData(client: PolymarketClient): MarketDataFacet {
  return {
    async fetchOrderBook(ctx: VenueContext, market: Market, outcome: string): Promise<OrderBook> {
      const o = findOutcome(market, outcome);
      const book = await client.get(client.clob, ctx, decodeBook, {
        path: '/book',
        query: { token_id: o.token_id },
        operation: 'get_book',
      });
      return clobBookToOrderBook(book, o.name, new Date());
    },

    async fetchPriceHistory(
      ctx: VenueContext,
      market: Market,
      outcome: string,
      q: HistoryQuery,
    ): Promise<Candle[]> {
      const o = findOutcome(market, outcome);
      if (q.interval === 'max')
        throw new AppError('not_supported', 'polymarket candles have no `max` interval');
      const period = INTERVAL_SECONDS[q.interval];
      const { history } = await client.get(client.clob, ctx, decodeHistory, {
        path: '/prices-history',
        query: { market: o.token_id, startTs: q.startTs, endTs: q.endTs, fidelity: fidelityMinutes(period) },
        operation: 'get_price_history',
      });
      const ticks = history
        .filter((p) => p.t >= q.startTs && p.t <= q.endTs)
        .map((p) => ({ t: p.t, price: p.p }));
      return rollUpTicks(ticks, period);
    },

    async fetchTrades(ctx: VenueContext, market: Market, outcome: string, limit: number): Promise<Trade[]> {
      const o = findOutcome(market, outcome);
      // The tape is per market (both outcomes); ask for more than `limit` so the outcome's share still fills it.
      const rows = await client.get(client.data, ctx, decodeTape, {
        path: '/trades',
        query: {
          market: market.exchange_market_id,
          limit: Math.min(MAX_DATA_LIMIT, limit * 4),
          takerOnly: true,
        },
        operation: 'get_trades',
      });
      const mine = rows.filter((r) => r.asset === o.token_id).sort((a, b) => b.timestamp - a.timestamp);
      return dataTradesToTrades(mine.slice(0, limit)).map((t) => ({ ...t, outcome: o.name }));
    },

    async fetchUserActivity(
      ctx: VenueContext,
      address: string,
      limit: number,
    ): Promise<Record<string, unknown>> {
      if (!ADDRESS.test(address)) {
        throw new AppError('validation_error', `'${address}' is not a Polygon address`, {
          validationErrors: ['address must be 0x followed by 40 hex characters'],
        });
      }
      const [positions, value] = await Promise.all([
        client.get(client.data, ctx, decodePositions, {
          path: '/positions',
          query: { user: address, limit: Math.min(MAX_DATA_LIMIT, limit) },
          operation: 'get_positions',
        }),
        client.get(client.data, ctx, decodeValue, {
          path: '/value',
          query: { user: address },
          operation: 'get_value',
        }),
      ]);
      return { positions, value };
    },

    openMarketStream: (ctx: StreamContext) => openPolymarketMarketStream(ctx, client.options.wsMarketUrl),
  };
}

/** Points per candle: about a dozen, never finer than a minute or coarser than a day. */
function fidelityMinutes(periodSeconds: number): number {
  return Math.min(1_440, Math.max(1, Math.floor(periodSeconds / 60 / 12)));
}
