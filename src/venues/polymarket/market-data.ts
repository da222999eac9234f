// Market-data facet: live books from the CLOB, price points from `/prices-history`, the public tape and wallet
// activity from the Data API.
import type { OrderBook } from '../../domain/book.js';
import { INTERVAL_SECONDS, type PriceSeries } from '../../domain/candles.js';
import type { FeeSchedule } from '../../domain/fees/schedule.js';
import type { Market } from '../../domain/market.js';
import type { WalletActivityItem, WalletActivityQuery } from '../../domain/wallet-activity.js';
import { AppError } from '../../errors/app-error.js';
import type {
  HistoryQuery,
  MarketDataFacet,
  StreamContext,
  TradesPage,
  TradesQuery,
  VenueContext,
} from '../port.js';
import { findOutcome } from '../shared/outcomes.js';
import { payloadDecoder } from '../shared/payload.js';
import { type TapeRow, walkTape } from '../shared/trade-tape.js';
import type { PolymarketClient } from './client.js';
import { clobBookToOrderBook, feeScheduleOf } from './parse.js';
import { dataTradesToTrades, tapeRowKey } from './parse-trading.js';
import {
  PolymarketBook,
  PolymarketClobMarketInfo,
  PolymarketDataActivityList,
  PolymarketDataPositionList,
  PolymarketDataTradeList,
  PolymarketDataValue,
  PolymarketPriceHistory,
} from './payloads.js';
import { openPolymarketMarketStream } from './stream.js';

const decodeBook = payloadDecoder(PolymarketBook);
const decodeMarketInfo = payloadDecoder(PolymarketClobMarketInfo);
const decodeHistory = payloadDecoder(PolymarketPriceHistory);
const decodeTape = payloadDecoder(PolymarketDataTradeList);
const decodePositions = payloadDecoder(PolymarketDataPositionList);
const decodeValue = payloadDecoder(PolymarketDataValue);
const decodeActivity = payloadDecoder(PolymarketDataActivityList);

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/** The Data API's largest page. */
const MAX_DATA_LIMIT = 500;
/** `/trades` takes `offset` up to 10,000 (Data API docs): deeper rows of a market's tape cannot be read. */
const MAX_TAPE_OFFSET = 10_000;
/** Tape pages one trades request reads at most (each up to MAX_DATA_LIMIT rows of both outcomes). */
const TAPE_PAGES = 4;
/** Minutes: the finest `/prices-history` fidelity a market that stopped trading is answered at (py-clob-client #216). */
const CLOSED_MARKET_MIN_FIDELITY = 720;
/** Trades read as price points when a closed market's window is narrower than its coarsest points. */
const TAPE_TICKS = 1_000;

export function polymarketMarketData(client: PolymarketClient): MarketDataFacet {
  const facet: MarketDataFacet & Required<Pick<MarketDataFacet, 'fetchTrades'>> = {
    async fetchOrderBook(ctx: VenueContext, market: Market, outcome: string): Promise<OrderBook> {
      const o = findOutcome(market, outcome);
      const book = await client.get(client.clob, ctx, decodeBook, {
        path: '/book',
        query: { token_id: o.token_id },
        operation: 'get_book',
      });
      return clobBookToOrderBook(book, o.name, new Date());
    },

    async fetchFeeSchedule(ctx: VenueContext, market: Market): Promise<FeeSchedule> {
      const info = await client.get(client.clob, ctx, decodeMarketInfo, {
        path: `/clob-markets/${encodeURIComponent(market.exchange_market_id)}`,
        operation: 'get_market_info',
      });
      return feeScheduleOf(info);
    },

    async fetchPriceHistory(
      ctx: VenueContext,
      market: Market,
      outcome: string,
      q: HistoryQuery,
    ): Promise<PriceSeries> {
      const o = findOutcome(market, outcome);
      const wanted = fidelityMinutes(q);
      // A market that stopped trading is answered only at 12-hour fidelity or coarser; finer requests get an empty
      // history although the data exists (py-clob-client #216). Ask it at the finest fidelity it serves.
      const closed = market.status !== 'active';
      const fidelity = closed ? Math.max(wanted, CLOSED_MARKET_MIN_FIDELITY) : wanted;
      const { history } = await client.get(client.clob, ctx, decodeHistory, {
        path: '/prices-history',
        query: { market: o.token_id, startTs: q.startTs, endTs: q.endTs, fidelity },
        operation: 'get_price_history',
      });
      const ticks = history
        .filter((p) => p.t >= q.startTs && p.t <= q.endTs)
        .map((p) => ({ t: p.t, price: p.p }));
      if (ticks.length > 0 || !closed || fidelity === wanted) return { kind: 'ticks', ticks };
      // A window narrower than the coarse points: the market's own trades in it are its price points.
      const page = await facet.fetchTrades(ctx, market, outcome, {
        limit: TAPE_TICKS,
        startTs: q.startTs,
        endTs: q.endTs,
        cursor: null,
      });
      return {
        kind: 'ticks',
        ticks: page.trades.map((t) => ({
          t: Math.floor(Date.parse(t.timestamp) / 1000),
          price: t.price,
          size: t.size,
        })),
      };
    },

    async fetchTrades(
      ctx: VenueContext,
      market: Market,
      outcome: string,
      query: TradesQuery,
    ): Promise<TradesPage> {
      const o = findOutcome(market, outcome);
      // The tape is per market (both outcomes) and has no time filter: it is read newest first by offset.
      const page = await walkTape<number>(
        {
          first: 0,
          maxPages: TAPE_PAGES,
          isHandle: (v): v is number =>
            Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= MAX_TAPE_OFFSET,
          fetchPage: async (offset) => {
            const rows = await client.get(client.data, ctx, decodeTape, {
              path: '/trades',
              query: { market: market.exchange_market_id, limit: MAX_DATA_LIMIT, offset, takerOnly: true },
              operation: 'get_trades',
            });
            const trades = dataTradesToTrades(rows);
            const mine: TapeRow<number>[] = [];
            rows.forEach((r, i) => {
              const trade = trades[i];
              if (r.asset !== o.token_id || !trade) return;
              mine.push({ trade: { ...trade, outcome: o.name }, resume: offset + i, key: tapeRowKey(r) });
            });
            const next = offset + MAX_DATA_LIMIT;
            return {
              rows: mine,
              next: rows.length === MAX_DATA_LIMIT && next <= MAX_TAPE_OFFSET ? next : null,
            };
          },
        },
        query,
      );
      return { ...page, sourceChannel: 'polymarket_data_api_trades' };
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

    /**
     * Data API `GET /activity?user=&start=&sortDirection=ASC`, paged by offset. Its rows carry no id: a row is named
     * by its fields (with a count after the first of identical rows in one read, as for the tape), which every read
     * starting at or before its timestamp gives alike.
     */
    async fetchWalletActivity(
      ctx: VenueContext,
      address: string,
      query: WalletActivityQuery,
    ): Promise<WalletActivityItem[]> {
      if (!ADDRESS.test(address)) {
        throw new AppError('validation_error', 'address is not a Polygon address (0x and 40 hex digits)');
      }
      const rows: Record<string, unknown>[] = [];
      const start = Math.floor(query.sinceMs / 1000);
      for (let offset = 0; rows.length < query.max && offset <= MAX_TAPE_OFFSET; offset += MAX_DATA_LIMIT) {
        const limit = Math.min(MAX_DATA_LIMIT, query.max - rows.length);
        const page = await client.get(client.data, ctx, decodeActivity, {
          path: '/activity',
          query: { user: address, start, sortBy: 'TIMESTAMP', sortDirection: 'ASC', limit, offset },
          operation: 'get_activity',
        });
        rows.push(...page);
        if (page.length < limit) break;
      }
      const seen = new Map<string, number>();
      return rows.map((raw) => {
        const r = raw as (typeof rows)[number] & { type: string; timestamp: number };
        const key = [
          r.type,
          r.transactionHash ?? '',
          r.timestamp,
          r.asset ?? '',
          r.side ?? '',
          `${r.size ?? ''}@${r.price ?? ''}`,
          r.usdcSize ?? '',
        ].join(':');
        const n = seen.get(key) ?? 0;
        seen.set(key, n + 1);
        return { id: n === 0 ? key : `${key}:${n}`, timestamp_ms: r.timestamp * 1000, raw };
      });
    },

    openMarketStream: (ctx: StreamContext) =>
      openPolymarketMarketStream(
        ctx,
        client.options.wsMarketUrl,
        client.options.streamHeartbeatMs,
        client.options.wsAssetsPerConnection,
      ),
  };
  return facet;
}

/**
 * Minutes between points: about a dozen per candle (for `max`, about a thousand over the window), never finer
 * than a minute or coarser than a day.
 */
function fidelityMinutes(q: HistoryQuery): number {
  const minutes =
    q.interval === 'max' ? (q.endTs - q.startTs) / 60 / 1_000 : INTERVAL_SECONDS[q.interval] / 60 / 12;
  return Math.min(1_440, Math.max(1, Math.floor(minutes)));
}
