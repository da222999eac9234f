// GET /orderbook, live mode: one outcome's book, from the venue's stream when someone already follows that book
// and it is fresh, else from the venue's REST book through a short cache with single-flight (a burst of requests
// for one cold book makes one upstream call). An upstream failure is the venue's error (503), never an empty book.
import { type Static, Type } from 'typebox';
import { BookLevel, type OrderBook } from '../../domain/book.js';
import { ExchangeId } from '../../domain/exchanges.js';
import { validationError } from '../../errors/app-error.js';
import type { CallerContext } from '../caller-context.js';
import { FreshCache } from './fresh-cache.js';
import { HotBooks } from './hot-books.js';
import type { LiveBooks } from './live-books.js';
import {
  type MarketSelector,
  MarketSelectorFields,
  type MarketTarget,
  type MarketTargets,
} from './market-target.js';

export const LIVE_DEPTH_DEFAULT = 50;
export const LIVE_DEPTH_MAX = 100;

export const OrderbookQuery = Type.Object(
  {
    ...MarketSelectorFields,
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1000,
        description:
          `Live: price levels per side, 1 to ${LIVE_DEPTH_MAX} (default ${LIVE_DEPTH_DEFAULT}); ` +
          'historical: snapshots per page, 1 to 1000 (default 500)',
      }),
    ),
    depth: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1000,
        description: 'Live: alias of limit (limit wins); historical: price levels per side of each snapshot',
      }),
    ),
    start_ts: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          'Unix seconds, inclusive: switches to the historical mode; default one day before end_ts',
      }),
    ),
    end_ts: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Unix seconds, inclusive (historical mode); default now' }),
    ),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 512,
        description: 'Historical mode: next_cursor of the previous page, with the same query',
      }),
    ),
  },
  { additionalProperties: false },
);
export type OrderbookQuery = Static<typeof OrderbookQuery>;

export const LiveOrderbook = Type.Object({
  svc_id: Type.String(),
  exchange: ExchangeId,
  outcome: Type.String(),
  token_id: Type.String(),
  market_id: Type.String(),
  bids: Type.Array(BookLevel, { description: '[price, size], best (highest) first' }),
  asks: Type.Array(BookLevel, { description: '[price, size], best (lowest) first' }),
  timestamp: Type.String({ description: "The venue's time of this book, ISO 8601" }),
  tick_size: Type.Union([Type.Number(), Type.Null()]),
  min_order_size: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
});
export type LiveOrderbook = Static<typeof LiveOrderbook>;

/** How long a REST book is reused: long enough to absorb a burst, short enough to stay a live book. */
const REST_BOOK_TTL_MS = 500;
/** A book still being asked for is re-fetched from this age on, so its callers never wait on the venue. */
const REST_BOOK_REFRESH_AFTER_MS = 300;

/** A book followed on its venue's stream because it was asked for is let go after this long without a request. */
const HOT_BOOK_IDLE_MS = 60_000;
/** At most this many books are followed on streams for GET /orderbook. */
const HOT_BOOKS_MAX = 2_000;

export class OrderbookService {
  private readonly restBooks = new FreshCache<OrderBook>(REST_BOOK_TTL_MS, {
    refreshAfterMs: REST_BOOK_REFRESH_AFTER_MS,
  });

  constructor(
    private readonly targets: MarketTargets,
    /** This node's LiveBooks, or with Redis the cluster's shared feed (one upstream subscription per book). */
    private readonly books: Pick<LiveBooks, 'hold' | 'current'>,
    /** Deadline of one venue request. */
    private readonly venueTimeoutMs: number,
    private readonly hot = new HotBooks(books, { idleMs: HOT_BOOK_IDLE_MS, maxHeld: HOT_BOOKS_MAX }),
  ) {}

  /** Lets go of the books followed for GET /orderbook (before the streams close). */
  close(): void {
    this.hot.close();
  }

  async live(
    q: MarketSelector & { limit?: number; depth?: number },
    caller: CallerContext,
  ): Promise<LiveOrderbook> {
    const depth = q.limit ?? q.depth ?? LIVE_DEPTH_DEFAULT;
    if (depth > LIVE_DEPTH_MAX) {
      const which = q.limit !== undefined ? 'limit' : 'depth';
      throw validationError([`${which} must be at most ${LIVE_DEPTH_MAX} levels per side for a live book`]);
    }
    const target = await this.targets.resolve(q, 'fetch_orderbook', caller);
    const key = `${target.market.svc_id}\u0000${target.outcome.token_id}`;
    const book = this.streamed(target) ?? (await this.fetched(target, key, caller));
    // After the answer: a book the venue refuses (an error above) is not subscribed to.
    this.hot.asked(target, key);
    return {
      svc_id: target.market.svc_id,
      exchange: book.exchange,
      outcome: target.outcome.name,
      token_id: book.token_id,
      market_id: book.market_id,
      bids: book.bids.slice(0, depth),
      asks: book.asks.slice(0, depth),
      timestamp: book.timestamp,
      tick_size: book.tick_size,
      ...(book.min_order_size !== undefined ? { min_order_size: book.min_order_size } : {}),
    };
  }

  /** The whole current book of a resolved outcome, from the stream or the short REST cache as `live` reads it. */
  async fullBook(target: MarketTarget, caller: CallerContext): Promise<OrderBook> {
    const key = `${target.market.svc_id}\u0000${target.outcome.token_id}`;
    return this.streamed(target) ?? (await this.fetched(target, key, caller));
  }

  private streamed(target: MarketTarget): OrderBook | null {
    return this.books.current(
      target.venue.descriptor.id,
      target.market.exchange_market_id,
      target.outcome.token_id,
    );
  }

  private fetched(target: MarketTarget, key: string, caller: CallerContext): Promise<OrderBook> {
    const fetchOrderBook = target.venue.marketData.fetchOrderBook;
    if (!fetchOrderBook)
      throw new Error(`${target.venue.descriptor.id} declares fetch_orderbook without a method`);
    return this.restBooks.get(key, () =>
      fetchOrderBook.call(
        target.venue.marketData,
        { ...caller, signal: AbortSignal.timeout(this.venueTimeoutMs) },
        target.market,
        target.outcome.name,
      ),
    );
  }
}
