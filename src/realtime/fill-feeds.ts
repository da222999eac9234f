// The caller's own fills on the WebSocket: one venue user stream (Polymarket's user channel, Kalshi's fill channel)
// per (customer, exchange), opened with the customer's stored or managed credentials when one of its connections
// first subscribes to a book on that exchange, shared by all of that customer's connections and closed with the
// last. Only the customer's own stream is ever read for it, so another customer's fills cannot reach it.
//
// A connection hears the feed's state as `fill_feed { exchange, feed_state }` (our addition to wire contract §6):
// `healthy` once the venue's stream is open — fills from then on are delivered — and `disconnected` (with the
// venue's reason) when it drops; the venue adapter reconnects, and a stream that ends for good (credentials
// rejected) stays disconnected until the customer's connections leave and come back.
import type { ExchangeId } from '../domain/exchanges.js';
import type { FeedState } from '../domain/stream.js';
import type { Fill } from '../domain/trading.js';
import { isAppError } from '../errors/app-error.js';
import type { StoredSessions } from '../vault/session-resolver.js';
import type { LoggerLike, UserStream, VenueAdapter } from '../venues/port.js';

export interface FillListener {
  fill(exchange: ExchangeId, fill: Fill): void;
  fillFeed(exchange: ExchangeId, state: FeedState, reason: string | null): void;
}

/** Fill ids remembered per feed, so a venue that repeats a fill (after a reconnect) is not heard twice. */
const SEEN_FILLS = 10_000;

class FillFeed {
  readonly listeners = new Set<FillListener>();
  state: FeedState | null = null;
  reason: string | null = null;
  private readonly seen = new Set<string>();
  private readonly stop = new AbortController();
  private readonly stream: UserStream;

  constructor(
    readonly key: string,
    readonly exchange: ExchangeId,
    open: (ctx: { signal: AbortSignal; logger: LoggerLike }) => UserStream,
    private readonly logger: LoggerLike,
  ) {
    this.stream = open({ signal: this.stop.signal, logger });
    void this.read();
  }

  close(): void {
    this.stop.abort();
    void this.stream.close().catch(() => undefined);
  }

  private async read(): Promise<void> {
    try {
      for await (const event of this.stream) {
        if (event.type === 'feed_state')
          this.changed(event.state, event.state === 'healthy' ? null : event.reason);
        else if (event.type === 'fill') this.filled(event.fill);
      }
      if (!this.stop.signal.aborted) this.changed('disconnected', `${this.exchange} user stream ended`);
    } catch (error) {
      if (this.stop.signal.aborted) return;
      if (!isAppError(error)) this.logger.error({ exchange: this.exchange, err: error }, 'fill feed failed');
      this.changed('disconnected', isAppError(error) ? error.message : `${this.exchange} user stream failed`);
    }
  }

  private changed(state: FeedState, reason: string | null): void {
    if (this.state === state && this.reason === reason) return;
    this.state = state;
    this.reason = reason;
    for (const l of this.listeners) l.fillFeed(this.exchange, state, reason);
  }

  private filled(fill: Fill): void {
    if (this.seen.has(fill.fill_id)) return;
    if (this.seen.size >= SEEN_FILLS) this.seen.clear();
    this.seen.add(fill.fill_id);
    for (const l of this.listeners) l.fill(this.exchange, fill);
  }
}

export class FillFeeds {
  private readonly feeds = new Map<string, FillFeed>();

  constructor(
    private readonly stored: StoredSessions | null,
    private readonly logger: LoggerLike,
  ) {}

  /**
   * Starts delivering `customerId`'s fills on `venue` to `listener` (its current feed state first, when known);
   * returns the release, or null when the venue has no user stream or the customer no stored credentials for it.
   */
  async acquire(
    customerId: string,
    venue: VenueAdapter,
    listener: FillListener,
  ): Promise<(() => void) | null> {
    const openUserStream = venue.trading.openUserStream;
    const exchange = venue.descriptor.id;
    if (!openUserStream || !this.stored) return null;
    const key = `${customerId}\u0000${exchange}`;
    let feed = this.feeds.get(key);
    if (!feed) {
      const session = await this.stored.sessionFor(customerId, exchange);
      if (!session) return null;
      // Another connection of the customer may have opened it while the session was read.
      feed = this.feeds.get(key);
      if (!feed) {
        feed = new FillFeed(
          key,
          exchange,
          (ctx) => openUserStream.call(venue.trading, ctx, session),
          this.logger,
        );
        this.feeds.set(key, feed);
      }
    }
    const held = feed;
    held.listeners.add(listener);
    if (held.state) listener.fillFeed(exchange, held.state, held.reason);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      held.listeners.delete(listener);
      if (held.listeners.size > 0) return;
      if (this.feeds.get(key) === held) this.feeds.delete(key);
      held.close();
    };
  }

  /** Venue user streams open right now. */
  get openFeeds(): number {
    return this.feeds.size;
  }

  close(): void {
    for (const feed of this.feeds.values()) feed.close();
    this.feeds.clear();
  }
}
