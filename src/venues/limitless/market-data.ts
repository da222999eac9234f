// The Limitless market-data facet: books (the venue's one YES book per market, mirrored for NO), historical-price
// points, the public matched-trade feed, wallet activity by address (positions plus traded
// volume, as the product we mirror returns it) and the Socket.IO book stream.
import type { OrderBook } from '../../domain/book.js';
import type { PriceSeries } from '../../domain/candles.js';
import type { FeeSchedule } from '../../domain/fees/schedule.js';
import type { Market } from '../../domain/market.js';
import { AppError } from '../../errors/app-error.js';
import type { HistoryQuery, MarketDataFacet, MarketStream, StreamContext, VenueContext } from '../port.js';
import { payloadDecoder } from '../shared/payload.js';
import { walkTape } from '../shared/trade-tape.js';
import { VenueStatusError } from '../shared/venue-errors.js';
import type { LimitlessClient } from './client.js';
import { mapLimitlessError } from './errors.js';
import { limitlessOutcome, outcomeToken } from './outcomes.js';
import { outcomeBook, toOrderBook } from './parse.js';
import { limitPositionsDocument } from './parse-portfolio.js';
import { feedTrades, historyRange, historyTicks } from './parse-series.js';
import {
  LimitlessDocument,
  LimitlessFeedPage,
  LimitlessOrderbook,
  LimitlessPriceHistory,
} from './payloads.js';
import { openLimitlessMarketStream } from './stream.js';

const decodeBook = payloadDecoder(LimitlessOrderbook);
const decodeHistory = payloadDecoder(LimitlessPriceHistory);
const decodeFeed = payloadDecoder(LimitlessFeedPage);
const decodeDocument = payloadDecoder(LimitlessDocument);

/** Feed pages read at most per trades request (each holds up to FEED_PAGE events of both tokens). */
const FEED_PAGES = 10;
const FEED_PAGE = 100;
/** Wallet-activity documents of the public portfolio, under the keys the product we mirror uses. */
export const ACTIVITY_KEYS = { positions: 'positions', tradedVolume: 'traded-volume' } as const;

export function limitlessMarketData(
  client: LimitlessClient,
): Required<Omit<MarketDataFacet, 'fetchWalletActivity'>> {
  const slugPath = (market: Market, suffix: string) =>
    `/markets/${encodeURIComponent(market.exchange_market_id)}/${suffix}`;

  async function yesBook(ctx: VenueContext | StreamContext, slug: string) {
    const request = 'requestId' in ctx ? ctx : { ...ctx, requestId: 'limitless-stream', tenant: null };
    return client.get(request, decodeBook, {
      path: `/markets/${encodeURIComponent(slug)}/orderbook`,
      operation: 'orderbook',
    });
  }

  return {
    // Limitless publishes a fee range, not the curve a market charges on (domain/fees/limitless.ts).
    fetchFeeSchedule: async (): Promise<FeeSchedule> => ({ venue: 'limitless' }),

    async fetchOrderBook(ctx, market, outcome): Promise<OrderBook> {
      const which = limitlessOutcome(market, outcome);
      outcomeToken(market, which);
      const book = await yesBook(ctx, market.exchange_market_id);
      return toOrderBook(market, which, outcomeBook(book, which), new Date());
    },

    async fetchPriceHistory(ctx, market, outcome, query: HistoryQuery): Promise<PriceSeries> {
      const which = limitlessOutcome(market, outcome);
      const payload = await client.get(ctx, decodeHistory, {
        path: slugPath(market, 'historical-price'),
        query: {
          interval: historyRange(query.endTs - query.startTs),
          from: new Date(query.startTs * 1000).toISOString(),
          to: new Date(query.endTs * 1000).toISOString(),
        },
        operation: 'historical_price',
      });
      const ticks = historyTicks(payload, which, market.question).filter(
        (t) => t.t >= query.startTs && t.t <= query.endTs,
      );
      return { kind: 'ticks', ticks };
    },

    async fetchTrades(ctx, market, outcome, query) {
      const which = limitlessOutcome(market, outcome);
      const token = outcomeToken(market, which);
      // The feed has page numbers and no time filter; both tokens share it, newest first.
      const page = await walkTape<number>(
        {
          first: 1,
          maxPages: FEED_PAGES,
          isHandle: (v): v is number =>
            Number.isSafeInteger(v) && (v as number) >= 1 && (v as number) <= 1_000_000,
          fetchPage: async (n) => {
            const body = await client.get(ctx, decodeFeed, {
              path: slugPath(market, 'events'),
              query: { page: n, limit: FEED_PAGE },
              operation: 'market_events',
            });
            const rows = feedTrades(body.events, token, which).map((trade) => ({ trade, resume: n }));
            const pages = Number(body.totalPages ?? 0);
            return { rows, next: body.events.length < FEED_PAGE || n >= pages ? null : n + 1 };
          },
        },
        query,
      );
      return { ...page, sourceChannel: 'limitless_market_events' };
    },

    /**
     * `{ positions, "traded-volume" }`: Limitless's public documents for the address, as sent (position lists cut
     * to `limit`). An address Limitless has never seen answers 404 there; that document is then null.
     */
    async fetchUserActivity(ctx, address, limit): Promise<Record<string, unknown>> {
      if (!/^0x[0-9a-fA-F]{40}$/.test(address)) {
        throw new AppError('validation_error', `'${address}' is not an EVM address`, {
          validationErrors: ['address must be 0x followed by 40 hex digits'],
        });
      }
      const base = `/portfolio/${address}`;
      const orNull = async (path: string, operation: string) => {
        try {
          return await client.get(ctx, decodeDocument, { path, operation });
        } catch (error) {
          if (error instanceof VenueStatusError && error.status === 404) return null;
          throw error;
        }
      };
      const [positions, volume] = await Promise.all([
        orNull(`${base}/positions`, 'public_positions'),
        orNull(`${base}/traded-volume`, 'public_traded_volume'),
      ]);
      return {
        [ACTIVITY_KEYS.positions]: positions === null ? null : limitPositionsDocument(positions, limit),
        [ACTIVITY_KEYS.tradedVolume]: volume,
      };
    },

    openMarketStream(ctx: StreamContext): MarketStream {
      return openLimitlessMarketStream(ctx, {
        wsUrl: client.options.wsUrl,
        reconcileMs: client.options.bookReconcileMs ?? 30_000,
        fetchBook: async (slug, signal) => {
          try {
            return await yesBook({ ...ctx, signal }, slug);
          } catch (error) {
            throw mapLimitlessError(error);
          }
        },
      });
    },
  };
}
