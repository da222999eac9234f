// Books kept current from the venues' own streams, for whoever holds them (the book recorder, and GET /orderbook,
// which answers from here when a held book is fresh). One upstream stream per venue and one subscription per book
// however many holders (reference counted; the last release unsubscribes). A book is fresh from its snapshot until
// the venue signals a gap or a disconnect; then it is stale until the next snapshot, never patched by guesswork.

import type { OrderBook } from '../../domain/book.js';
import { applyBookChanges } from '../../domain/book-diff.js';
import type { ExchangeId } from '../../domain/exchanges.js';
import type { Market, Outcome } from '../../domain/market.js';
import type { MarketStreamEvent } from '../../domain/stream.js';
import type { LoggerLike, MarketStream, StreamTarget, VenueAdapter } from '../../venues/port.js';

export interface BookHold {
  /** The book as the stream last described it, or null while none has arrived or it is stale. */
  current(): OrderBook | null;
  release(): void;
}

/** Why a held book stopped being fresh: the venue asked for a resync, or its stream went away. */
export type StaleCause = 'resync' | 'disconnected';

/** A public trade on a held instrument, as its venue's stream reported it. */
export type StreamTrade = Extract<MarketStreamEvent, { type: 'trade' }>;

/**
 * What a holder hears of its book: each new state, the moments it goes stale (until the next snapshot), and the
 * public trades on it (venues whose stream carries them: polymarket, kalshi).
 */
export interface BookObserver {
  change?(book: OrderBook): void;
  stale?(cause: StaleCause): void;
  trade?(trade: StreamTrade): void;
}

type Listener = ((book: OrderBook) => void) | BookObserver;

interface Tracked {
  target: StreamTarget;
  holders: number;
  book: OrderBook | null;
  fresh: boolean;
  listeners: Set<Listener>;
}

/** Pause before reopening a venue stream that ended (overflow, or the adapter gave up). */
const REOPEN_DELAY_MS = 1_000;

class VenueFeed {
  private stream: MarketStream | null = null;
  private readonly tracked = new Map<string, Tracked>();
  private readonly abort = new AbortController();
  private closed = false;

  constructor(
    private readonly venue: VenueAdapter,
    private readonly logger: LoggerLike,
  ) {}

  hold(target: StreamTarget, key: string, onChange?: Listener): BookHold {
    let entry = this.tracked.get(key);
    if (!entry) {
      // Subscribe first: an outcome the venue refuses (400) must leave nothing tracked behind.
      this.open().subscribe([target]);
      entry = { target, holders: 0, book: null, fresh: false, listeners: new Set() };
      this.tracked.set(key, entry);
    }
    const tracked = entry;
    tracked.holders += 1;
    if (onChange) tracked.listeners.add(onChange);
    let released = false;
    return {
      current: () => (tracked.fresh ? tracked.book : null),
      release: () => {
        if (released) return;
        released = true;
        if (onChange) tracked.listeners.delete(onChange);
        tracked.holders -= 1;
        if (tracked.holders > 0) return;
        this.tracked.delete(key);
        this.stream?.unsubscribe([tracked.target]);
      },
    };
  }

  current(key: string): OrderBook | null {
    const entry = this.tracked.get(key);
    return entry?.fresh ? entry.book : null;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.abort.abort();
    await this.stream?.close();
    this.stream = null;
  }

  private open(): MarketStream {
    if (this.stream) return this.stream;
    const openStream = this.venue.marketData.openMarketStream;
    if (!openStream) throw new Error(`${this.venue.descriptor.id} has no market stream`);
    const stream = openStream.call(this.venue.marketData, { signal: this.abort.signal, logger: this.logger });
    this.stream = stream;
    void this.pump(stream);
    return stream;
  }

  private async pump(stream: MarketStream): Promise<void> {
    try {
      for await (const event of stream) this.apply(event);
    } catch (error) {
      if (!this.closed)
        this.logger.warn({ exchange: this.venue.descriptor.id, err: error }, 'book stream ended');
    }
    if (this.closed || this.stream !== stream) return;
    // The stream ended under us: every book is stale until a reopened stream sends its snapshot.
    this.stream = null;
    for (const entry of this.tracked.values()) this.markStale(entry, 'disconnected');
    await stream.close().catch(() => undefined);
    setTimeout(() => {
      if (this.closed || this.tracked.size === 0) return;
      this.open().subscribe([...this.tracked.values()].map((e) => e.target));
    }, REOPEN_DELAY_MS).unref();
  }

  private apply(event: MarketStreamEvent): void {
    switch (event.type) {
      case 'book_snapshot': {
        const entry = this.tracked.get(bookKey(event.book.market_id, event.book.token_id));
        if (!entry) return;
        entry.book = event.book;
        entry.fresh = true;
        this.notify(entry);
        return;
      }
      case 'book_delta': {
        const entry = this.tracked.get(bookKey(event.instrument.market_id, event.instrument.token_id));
        if (!entry?.book || !entry.fresh) return;
        const at = event.exchange_ts_ms ?? event.received_ts_ms;
        entry.book = {
          ...entry.book,
          bids: applyBookChanges(entry.book.bids, event.changes, 'bid'),
          asks: applyBookChanges(entry.book.asks, event.changes, 'ask'),
          timestamp: new Date(at).toISOString(),
        };
        this.notify(entry);
        return;
      }
      case 'tick_size': {
        const entry = this.tracked.get(bookKey(event.instrument.market_id, event.instrument.token_id));
        if (entry?.book) entry.book = { ...entry.book, tick_size: event.tick_size };
        return;
      }
      case 'resync': {
        const entry = this.tracked.get(bookKey(event.instrument.market_id, event.instrument.token_id));
        if (entry) this.markStale(entry, 'resync');
        return;
      }
      case 'feed_state':
        if (event.state !== 'disconnected') return;
        if (!event.instruments) {
          for (const entry of this.tracked.values()) this.markStale(entry, 'disconnected');
          return;
        }
        // One of the stream's connections went away: only the books it carried are stale.
        for (const i of event.instruments) {
          const entry = this.tracked.get(bookKey(i.market_id, i.token_id));
          if (entry) this.markStale(entry, 'disconnected');
        }
        return;
      case 'trade': {
        const entry = this.tracked.get(bookKey(event.instrument.market_id, event.instrument.token_id));
        if (entry) this.tradeSeen(entry, event);
        return;
      }
    }
  }

  private tradeSeen(entry: Tracked, event: StreamTrade): void {
    for (const listener of entry.listeners) {
      if (typeof listener === 'function') continue;
      try {
        listener.trade?.(event);
      } catch (error) {
        this.logger.error({ err: error }, 'book listener failed');
      }
    }
  }

  private notify(entry: Tracked): void {
    const book = entry.book;
    if (!book) return;
    for (const listener of entry.listeners) {
      try {
        if (typeof listener === 'function') listener(book);
        else listener.change?.(book);
      } catch (error) {
        this.logger.error({ err: error }, 'book listener failed');
      }
    }
  }

  /** Marks a book stale and tells its observers (once per fresh period: a stale book is not re-announced). */
  private markStale(entry: Tracked, cause: StaleCause): void {
    if (!entry.fresh) return;
    entry.fresh = false;
    for (const listener of entry.listeners) {
      if (typeof listener === 'function') continue;
      try {
        listener.stale?.(cause);
      } catch (error) {
        this.logger.error({ err: error }, 'book listener failed');
      }
    }
  }
}

function bookKey(marketId: string, tokenId: string): string {
  return `${marketId}\u0000${tokenId}`;
}

export class LiveBooks {
  private readonly feeds = new Map<ExchangeId, VenueFeed>();

  constructor(private readonly logger: LoggerLike) {}

  /**
   * Starts following one outcome's book through its venue's stream (the venue must offer `openMarketStream`);
   * `onChange` hears every new state of the book. Release the hold when done.
   */
  hold(
    venue: VenueAdapter,
    market: Market,
    outcome: Outcome & { token_id: string },
    onChange?: Listener,
  ): BookHold {
    const id = venue.descriptor.id;
    let feed = this.feeds.get(id);
    if (!feed) {
      feed = new VenueFeed(venue, this.logger);
      this.feeds.set(id, feed);
    }
    return feed.hold(
      { market, outcome: outcome.name },
      bookKey(market.exchange_market_id, outcome.token_id),
      onChange,
    );
  }

  /** The fresh streamed book of an instrument someone holds, or null. */
  current(exchange: ExchangeId, marketId: string, tokenId: string): OrderBook | null {
    return this.feeds.get(exchange)?.current(bookKey(marketId, tokenId)) ?? null;
  }

  async close(): Promise<void> {
    await Promise.all([...this.feeds.values()].map((f) => f.close()));
    this.feeds.clear();
  }
}
