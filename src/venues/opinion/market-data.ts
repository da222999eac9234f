// Market-data facet: books (GET /token/orderbook per outcome token), price points (only hourly and daily ones
// work live), wallet activity by address (positions and trades, the venue's own pages) and
// the polled book stream. Opinion has no public trade tape on REST.
import type { CandleInterval } from '../../domain/book.js';
import type { PriceSeries } from '../../domain/candles.js';
import type { FeeSchedule } from '../../domain/fees/schedule.js';
import type { WalletActivityItem } from '../../domain/wallet-activity.js';
import { AppError } from '../../errors/app-error.js';
import type { HistoryQuery, MarketDataFacet, VenueContext } from '../port.js';
import { findOutcome } from '../shared/outcomes.js';
import { payloadDecoder } from '../shared/payload.js';
import { VenuePayloadError } from '../shared/venue-errors.js';
import { OPINION_PAGE_LIMIT, type OpinionClient } from './client.js';
import { toOrderBook, toPriceTicks } from './parse.js';
import {
  OpinionBook,
  OpinionPriceHistory,
  OpinionRawPage,
  type OpinionUserTrade,
  OpinionUserTradePage,
} from './payloads.js';
import { opinionBookStream } from './stream.js';

const decodeBook = payloadDecoder(OpinionBook);
const decodeHistory = payloadDecoder(OpinionPriceHistory);
const decodeRawPage = payloadDecoder(OpinionRawPage);
const decodeTradePage = payloadDecoder(OpinionUserTradePage);
/** Pages of 20 one wallet-activity poll reads at most (newest first, until it passes the poll's start). */
const WALLET_PAGES = 50;

/**
 * Our candle interval → the venue interval whose points build it. Live, only 1h and 1d are honoured (anything
 * else silently comes back daily), so 6h candles come from hourly points and weekly ones from daily points.
 */
export const VENUE_INTERVAL: Readonly<Partial<Record<CandleInterval, '1h' | '1d'>>> = {
  '1h': '1h',
  '6h': '1h',
  '1d': '1d',
  '1w': '1d',
};

/** `max` (one candle over the window) reads hourly points up to a month, daily points beyond. */
function venueIntervalFor(query: HistoryQuery): '1h' | '1d' | undefined {
  if (query.interval !== 'max') return VENUE_INTERVAL[query.interval];
  return query.endTs - query.startTs > 31 * 86_400 ? '1d' : '1h';
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export function opinionMarketData(client: OpinionClient, pollIntervalMs: number): MarketDataFacet {
  const facet: MarketDataFacet = {
    // Opinion publishes a fee range, not the curve a market charges on (domain/fees/opinion.ts).
    fetchFeeSchedule: async (): Promise<FeeSchedule> => ({ venue: 'opinion' }),

    async fetchOrderBook(ctx, market, outcome) {
      const { name, token_id: tokenId } = findOutcome(market, outcome);
      const raw = await client.public(ctx, decodeBook, {
        path: '/token/orderbook',
        query: { token_id: tokenId },
        operation: 'orderbook',
      });
      if (raw.tokenId && raw.tokenId !== tokenId) {
        throw new VenuePayloadError(
          'opinion',
          'orderbook',
          [`asked for token ${tokenId}, got ${raw.tokenId}`],
          ['/tokenId'],
        );
      }
      return toOrderBook(raw, market.exchange_market_id, name, tokenId);
    },

    async fetchPriceHistory(ctx, market, outcome, query): Promise<PriceSeries> {
      const { token_id: tokenId } = findOutcome(market, outcome);
      const venueInterval = venueIntervalFor(query);
      if (venueInterval === undefined) {
        throw new AppError('validation_error', `opinion has no ${query.interval} price history`, {
          validationErrors: [
            `interval must be one of: ${[...Object.keys(VENUE_INTERVAL), 'max'].join(', ')}`,
          ],
        });
      }
      const raw = await client.public(ctx, decodeHistory, {
        path: '/token/price-history',
        query: { token_id: tokenId, interval: venueInterval, start_at: query.startTs, end_at: query.endTs },
        operation: 'price_history',
      });
      return { kind: 'ticks', ticks: toPriceTicks(raw, query.startTs, query.endTs) };
    },

    async fetchUserActivity(ctx, address, limit) {
      if (!ADDRESS.test(address)) {
        throw new AppError('validation_error', `'${address}' is not a wallet address (0x and 40 hex digits)`);
      }
      const max = Math.max(1, limit);
      const raw = (path: string, operation: string) =>
        client.walk(async (page) => {
          const result = await client.public(ctx, decodeRawPage, {
            path,
            query: { page, limit: OPINION_PAGE_LIMIT, chainId: '56' },
            operation,
          });
          return { list: result.list ?? [], total: result.total ?? null };
        }, max);
      const [positions, trades] = await Promise.all([
        raw(`/positions/user/${address}`, 'user_positions'),
        raw(`/trade/user/${address}`, 'user_trades'),
      ]);
      // The venue's own documents, pages joined: {total, list} as /positions/user and /trade/user send them.
      return { positions, trades };
    },

    /**
     * GET /trade/user/{address} (filled trades, newest first, 20 a page, no time filter) read from page 1 until a
     * row older than `sinceMs`, a short page or the total; then oldest first. A row is named by Opinion's
     * `tradeNo`; a row without one by its fields (a count after the first of identical rows in one read). A trade
     * listed while the pages are read pushes the later pages down a row: the repeated row is read once.
     */
    async fetchWalletActivity(ctx, address, query): Promise<WalletActivityItem[]> {
      if (!ADDRESS.test(address)) {
        throw new AppError('validation_error', `'${address}' is not a wallet address (0x and 40 hex digits)`);
      }
      const rows: OpinionUserTrade[] = [];
      for (let page = 1; page <= WALLET_PAGES; page++) {
        const result = await client.public(ctx, decodeTradePage, {
          path: `/trade/user/${address}`,
          query: { page, limit: OPINION_PAGE_LIMIT, chainId: '56' },
          operation: 'user_trades',
        });
        const list = result.list ?? [];
        const fresh = list.filter((row) => row.createdAt * 1000 >= query.sinceMs);
        rows.push(...fresh);
        const total = result.total ?? null;
        if (
          fresh.length < list.length ||
          list.length < OPINION_PAGE_LIMIT ||
          (total !== null && page * OPINION_PAGE_LIMIT >= total)
        )
          break;
      }
      const items = new Map<string, WalletActivityItem>();
      const repeats = new Map<string, number>();
      // Oldest first; rows of one second keep the venue's order reversed (it lists the later one first).
      for (const raw of rows.reverse()) {
        let id = raw.tradeNo ?? '';
        if (id === '') {
          const key = [
            raw.txHash ?? '',
            raw.orderNo ?? '',
            raw.marketId ?? '',
            raw.outcomeSide ?? '',
            raw.side ?? '',
            `${raw.shares ?? ''}@${raw.price ?? ''}`,
            raw.createdAt,
          ].join(':');
          const n = repeats.get(key) ?? 0;
          repeats.set(key, n + 1);
          id = n === 0 ? key : `${key}:${n}`;
        }
        if (!items.has(id)) items.set(id, { id, timestamp_ms: raw.createdAt * 1000, raw });
      }
      return [...items.values()].sort((a, b) => a.timestamp_ms - b.timestamp_ms).slice(0, query.max);
    },

    openMarketStream(ctx) {
      return opinionBookStream(ctx, pollIntervalMs, (signal, market, outcome) => {
        const requestCtx: VenueContext = {
          signal,
          requestId: 'opinion-book-stream',
          logger: ctx.logger,
          tenant: null,
        };
        const fetchBook = facet.fetchOrderBook;
        if (!fetchBook) throw new Error('fetchOrderBook is missing');
        return fetchBook(requestCtx, market, outcome);
      });
    },
  };
  return facet;
}
