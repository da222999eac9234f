// One live book of a stream: the client's copy of it, rebuilt from the server's snapshot and deltas, checked
// message by message against `server_seq`. A gap means a message was lost: the book is marked `needs_refresh`,
// deltas are ignored until the fresh snapshot the stream asks for (`resync`), and a `gap` event says so. A book
// is never patched by guesswork. Consumers read it through events or bounded iterators (queue.ts).
import { Emitter } from './emitter.js';
import type {
  ActivityMessage,
  BookChange,
  BookHeader,
  DeltaMessage,
  FeedState,
  Level,
  OmnibookStreamError,
  SnapshotMessage,
} from './messages.js';
import { BoundedQueue, LatestValue } from './queue.js';

/**
 * `pending`: not yet confirmed by a snapshot; `fresh`: the server's book; `stale`: the venue feed, or our
 * connection, is down and the book may be old; `needs_refresh`: a message was lost or the server asked for a
 * resync, a fresh snapshot is on its way; `closed`: unsubscribed, or refused by the server.
 */
export type LiveBookState = 'pending' | 'fresh' | 'stale' | 'needs_refresh' | 'closed';

export interface BookView {
  svc_id: string;
  outcome: string;
  exchange: string | null;
  market_id: string | null;
  state: LiveBookState;
  feed_state: FeedState;
  /** Best (highest) first. */
  bids: Level[];
  /** Best (lowest) first. */
  asks: Level[];
  tick_size: number | null;
  server_seq: number | null;
  exchange_ts_ms: number | null;
}

export interface StaleEvent {
  /** `venue`: the server says the exchange's feed is down; `disconnected`: our connection dropped; `silent`:
   * nothing (not even a heartbeat) arrived for twice stale_after_ms; `gap`: a message was lost; `resync_required`: the
   * server's feed recovered and a fresh snapshot follows. */
  reason: 'venue' | 'disconnected' | 'silent' | 'gap' | 'resync_required';
  state: LiveBookState;
}

export interface GapEvent {
  expected: number;
  received: number;
}

export type Activity = Omit<ActivityMessage, 'type'>;

export interface BookEvents {
  /** The book changed (a snapshot or a delta applied). */
  update: [BookView];
  trade: [Activity];
  fill: [Activity];
  stale: [StaleEvent];
  gap: [GapEvent];
  /** The server told this connection it is behind and its book is conflated (sent the latest only). */
  slow: [];
  /** The subscription failed for good (refused on resubscription); it is closed. */
  error: [OmnibookStreamError];
  closed: [];
}

export interface BookRef {
  svc_id: string;
  /** Default `yes`. */
  outcome?: string;
  /** Levels per side (held to the tier's depth). */
  depth?: number;
}

/** What the stream does for the subscription after a message. */
export type BookAction = 'none' | 'resync';

export class LiveBook extends Emitter<BookEvents> {
  readonly svcId: string;
  /** As subscribed; the server's spelling once the first snapshot came (`Yes`). */
  outcome: string;
  readonly depth: number | undefined;
  state: LiveBookState = 'pending';
  feedState: FeedState = 'healthy';
  header: Omit<BookHeader, 'server_seq' | 'book_state' | 'feed_state'> | null = null;
  /** The last server_seq seen on the current server subscription (null: none yet, or after a reconnect). */
  seq: number | null = null;
  private readonly bidLevels = new Map<number, number>();
  private readonly askLevels = new Map<number, number>();
  private sorted: { bids: Level[]; asks: Level[] } | null = null;
  private readonly views = new Set<LatestValue<BookView>>();
  private readonly activities = new Set<BoundedQueue<Activity>>();

  constructor(
    ref: BookRef,
    private readonly release: (book: LiveBook) => Promise<void>,
  ) {
    super();
    this.svcId = ref.svc_id;
    this.outcome = (ref.outcome ?? 'yes').trim();
    this.depth = ref.depth;
  }

  /** The key the stream files it under: svc_id and the outcome, case-insensitively (as the server matches it). */
  static key(svcId: string, outcome: string): string {
    return `${svcId}\u0000${outcome.trim().toLowerCase()}`;
  }

  get key(): string {
    return LiveBook.key(this.svcId, this.outcome);
  }

  get bids(): Level[] {
    return this.levels().bids;
  }

  get asks(): Level[] {
    return this.levels().asks;
  }

  view(): BookView {
    const { bids, asks } = this.levels();
    return {
      svc_id: this.svcId,
      outcome: this.outcome,
      exchange: this.header?.exchange ?? null,
      market_id: this.header?.market_id ?? null,
      state: this.state,
      feed_state: this.feedState,
      bids,
      asks,
      tick_size: this.header?.tick_size ?? null,
      server_seq: this.seq,
      exchange_ts_ms: this.header?.exchange_ts_ms ?? null,
    };
  }

  /**
   * The book's states as they change. A reader slower than the book gets the newest state each time it reads (the
   * ones in between are skipped), so an iterator that is not read holds one view, never a backlog.
   */
  updates(): AsyncIterableIterator<BookView> & { readonly buffered: number; readonly skipped: number } {
    const channel: LatestValue<BookView> = new LatestValue(() => this.views.delete(channel));
    this.views.add(channel);
    if (this.state === 'closed') channel.end();
    else if (this.seq !== null) channel.push(this.view());
    return channel;
  }

  /**
   * Trades and fills on this book in order, at most `capacity` waiting (default 1,000): a reader further behind
   * loses the oldest (`dropped` counts them). `GET /api/v1/trades` and `/fills` have the full record.
   */
  activity(
    capacity = 1_000,
  ): AsyncIterableIterator<Activity> & { readonly buffered: number; readonly dropped: number } {
    const queue: BoundedQueue<Activity> = new BoundedQueue(capacity, () => this.activities.delete(queue));
    this.activities.add(queue);
    if (this.state === 'closed') queue.end();
    return queue;
  }

  /** Stops the subscription on the server and ends this book's iterators. */
  unsubscribe(): Promise<void> {
    return this.release(this);
  }

  // -----------------------------------------------------------------------------------------------------------
  // Driven by the stream

  /** A message of this subscription. Returns what the stream must do next. */
  handle(
    m:
      | SnapshotMessage
      | DeltaMessage
      | ActivityMessage
      | { type: 'resync_required' | 'slow_reader'; server_seq: number },
  ): BookAction {
    if (this.state === 'closed') return 'none';
    const expected = this.seq === null ? null : this.seq + 1;
    const gap = expected !== null && m.server_seq !== expected;
    this.seq = m.server_seq;
    if (m.type === 'orderbook') {
      if (gap && expected !== null) this.emit('gap', { expected, received: m.server_seq });
      this.applySnapshot(m);
      return 'none';
    }
    if (gap && expected !== null) {
      this.emit('gap', { expected, received: m.server_seq });
      if (this.state !== 'needs_refresh') {
        this.state = 'needs_refresh';
        this.emit('stale', { reason: 'gap', state: this.state });
        this.publish();
        return 'resync';
      }
    }
    switch (m.type) {
      case 'orderbook_delta':
        this.applyDelta(m);
        return 'none';
      case 'activity': {
        const { type: _type, ...activity } = m;
        this.emit(m.kind === 'fill' ? 'fill' : 'trade', activity);
        for (const q of this.activities) q.push(activity);
        return 'none';
      }
      case 'resync_required':
        if (this.state !== 'needs_refresh') {
          this.state = 'needs_refresh';
          this.emit('stale', { reason: 'resync_required', state: this.state });
          this.publish();
        }
        return 'none';
      case 'slow_reader':
        this.emit('slow');
        return 'none';
    }
  }

  /** Our connection dropped or went silent: the book is stale until its resubscription's snapshot. */
  connectionLost(reason: 'disconnected' | 'silent'): void {
    if (this.state === 'closed') return;
    this.seq = null;
    if (this.state === 'pending') return;
    this.state = 'stale';
    this.feedState = 'disconnected';
    this.emit('stale', { reason, state: this.state });
    this.publish();
  }

  /** Ends the book: unsubscribed (no error) or refused by the server (error). */
  close(error?: OmnibookStreamError): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    if (error) this.emit('error', error);
    for (const v of this.views) v.end();
    for (const q of this.activities) q.end();
    this.emit('closed');
    this.removeAllListeners();
  }

  private applySnapshot(m: SnapshotMessage): void {
    this.bidLevels.clear();
    this.askLevels.clear();
    for (const [price, size] of m.bids) this.bidLevels.set(price, size);
    for (const [price, size] of m.asks) this.askLevels.set(price, size);
    this.sorted = null;
    this.noteHeader(m);
    this.state = m.book_state === 'fresh' ? 'fresh' : m.book_state;
    this.publish();
  }

  private applyDelta(m: DeltaMessage): void {
    // While a fresh snapshot is awaited, deltas would patch a book known to be wrong.
    if (this.state === 'needs_refresh' || this.state === 'pending') return;
    this.applyChanges(m.changes);
    const before = this.state;
    this.noteHeader(m);
    this.state = m.book_state === 'fresh' ? 'fresh' : m.book_state;
    if (this.state === 'stale' && before !== 'stale')
      this.emit('stale', { reason: 'venue', state: this.state });
    this.publish();
  }

  private applyChanges(changes: BookChange[]): void {
    for (const c of changes) {
      const side = c.side === 'bid' ? this.bidLevels : this.askLevels;
      if (c.size === 0) side.delete(c.price);
      else side.set(c.price, c.size);
    }
    if (changes.length > 0) this.sorted = null;
  }

  private noteHeader(m: BookHeader): void {
    const { server_seq: _s, book_state: _b, feed_state, ...header } = m;
    this.header = header;
    this.outcome = m.outcome;
    this.feedState = feed_state;
  }

  private publish(): void {
    const view = this.view();
    this.emit('update', view);
    for (const v of this.views) v.push(view);
  }

  private levels(): { bids: Level[]; asks: Level[] } {
    if (!this.sorted) {
      this.sorted = {
        bids: [...this.bidLevels].sort((a, b) => b[0] - a[0]),
        asks: [...this.askLevels].sort((a, b) => a[0] - b[0]),
      };
    }
    return this.sorted;
  }
}
