// Books people keep asking for are followed on the venue's own stream, so GET /orderbook answers them from memory
// instead of polling the venue's REST book for each. Only venues with a native push stream qualify: a polled
// "stream" spends the same REST rate limit the cache does, so it would gain nothing. A book is held from its
// first request until nobody asked for it for `idleMs`; at most `maxHeld` books are held at once (the rest keep
// being served through the REST cache), so upstream subscriptions stay bounded whatever clients do.
import type { BookHold, LiveBooks } from './live-books.js';
import type { MarketTarget } from './market-target.js';

export interface HotBooksOptions {
  /** How long a book nobody asks for stays subscribed. */
  idleMs: number;
  /** Upper bound on books held for GET /orderbook. */
  maxHeld: number;
  now?: () => number;
}

interface Held {
  hold: BookHold;
  lastAsked: number;
}

export class HotBooks {
  private readonly held = new Map<string, Held>();
  private readonly now: () => number;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly books: Pick<LiveBooks, 'hold'>,
    private readonly options: HotBooksOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.sweeper = setInterval(() => this.sweep(), Math.max(1_000, options.idleMs / 2));
    this.sweeper.unref();
  }

  /** Notes that the book was asked for, subscribing to it when its venue streams natively and room is left. */
  asked(target: MarketTarget, key: string): void {
    const entry = this.held.get(key);
    if (entry) {
      entry.lastAsked = this.now();
      return;
    }
    if (target.venue.descriptor.has.websocket !== 'supported') return;
    if (!target.venue.marketData.openMarketStream) return;
    if (this.held.size >= this.options.maxHeld) return;
    let hold: BookHold;
    try {
      hold = this.books.hold(target.venue, target.market, target.outcome);
    } catch {
      // The stream refused this book: it stays on the REST path, which reports the venue's answer itself.
      return;
    }
    this.held.set(key, { hold, lastAsked: this.now() });
  }

  /** Books currently held for GET /orderbook. */
  get size(): number {
    return this.held.size;
  }

  /** Releases every book nobody asked for within `idleMs`. */
  sweep(): void {
    const cutoff = this.now() - this.options.idleMs;
    for (const [key, entry] of this.held) {
      if (entry.lastAsked > cutoff) continue;
      this.held.delete(key);
      entry.hold.release();
    }
  }

  close(): void {
    clearInterval(this.sweeper);
    for (const entry of this.held.values()) entry.hold.release();
    this.held.clear();
  }
}
