// One upstream subscription per book however many WebSocket clients watch it: a channel holds the book on LiveBooks
// (reference counted there too) and fans each new state out to its subscriptions. A subscription gets a snapshot
// first, then deltas that replace levels absolutely (size 0 removes one), cut to its own depth; its `server_seq`
// grows by exactly one per message it is sent. A book that goes stale is announced (book_state stale, and
// feed_state disconnected when the stream went away); when the venue's next snapshot arrives, every subscription
// that saw the book before gets resync_required and a fresh snapshot — never a patched-up guess.
//
// Public trades on a book (venues whose stream carries them) go to the same subscriptions as `activity` messages
// with kind trade, numbered in the same `server_seq` sequence, each serialised once for every subscriber. The
// caller's own fills (fill-feeds.ts) join a connection's own subscription of that book as `activity` kind fill.
//
// A venue whose book stream is REST polling (descriptor websocket: polling) costs a venue request per book every poll
// period: at most `maxPolledBooks` of those are held on this node, shared fairly between customers (fair-pool.ts).
//
// Deltas are computed once per book version and depth, and serialised once: 1,000 clients on one book cost one
// diff and one JSON encoding per change, plus a short string join each for their own sequence number.
import type { OrderBook } from '../domain/book.js';
import { diffBookSides } from '../domain/book-diff.js';
import type { FeedState } from '../domain/stream.js';
import type { Fill } from '../domain/trading.js';
import type { BookHold, LiveBooks, StaleCause, StreamTrade } from '../services/market-data/live-books.js';
import type { MarketTarget } from '../services/market-data/market-target.js';
import { FairPool, type PoolRefusal } from './fair-pool.js';

export type BookState = 'fresh' | 'stale' | 'needs_refresh';

/** Where books come from: this node's own upstream (LiveBooks), or the cluster's shared feed (ClusterBooks). */
export type BookSource = Pick<LiveBooks, 'hold'>;

/** What a subscription needs of its connection. */
export interface BookTransport {
  /** How far behind the client's socket is. */
  congestion(): 'ok' | 'slow' | 'hopeless';
  send(frame: string): void;
  /** Called once when the client is too far behind to keep. */
  drop(reason: string): void;
}

export interface BookHubOptions {
  /** Announced in every book message: a client that hears nothing (heartbeats included) for this long should
   * treat its books as stale. */
  staleAfterMs: number;
  /** Records every book a client subscribes to, for as long as someone watches it (the book recorder's hook). */
  recordWhileHeld?: (target: MarketTarget) => () => void;
  /** Books of polled venues held for customers at most (none: unbounded). */
  maxPolledBooks?: number;
  now?: () => number;
}

interface Version {
  book: OrderBook;
  n: number;
  ingestMs: number;
}

interface DepthCut {
  version: number;
  bids: OrderBook['bids'];
  asks: OrderBook['asks'];
  /** The delta from the previous version's cut, serialised without its sequence number (null: no change). */
  deltaRest: string | null;
}

class BookChannel {
  readonly subscriptions = new Set<BookSubscription>();
  private readonly hold: BookHold;
  private readonly stopRecording: (() => void) | null;
  current: Version | null = null;
  fresh = false;
  feed: FeedState = 'healthy';
  private readonly cuts = new Map<number, DepthCut>();

  constructor(
    readonly key: string,
    readonly target: MarketTarget,
    books: BookSource,
    private readonly options: Required<Pick<BookHubOptions, 'staleAfterMs' | 'now'>> & BookHubOptions,
  ) {
    this.hold = books.hold(target.venue, target.market, target.outcome, {
      change: (book) => this.changed(book),
      stale: (cause) => this.staled(cause),
      trade: (trade) => this.traded(trade),
    });
    this.stopRecording = options.recordWhileHeld ? options.recordWhileHeld(target) : null;
    const now = this.hold.current();
    if (now) {
      this.current = { book: now, n: 1, ingestMs: this.options.now() };
      this.fresh = true;
    }
  }

  close(): void {
    this.hold.release();
    this.stopRecording?.();
  }

  /**
   * The serialised header fields shared by every message about this book (without type and seq). `at` overrides the
   * times for a message about something other than the book's current state (a trade).
   */
  header(state: BookState, at?: { exchangeTs: number; ingestMs: number }): string {
    const book = this.current?.book;
    const t = this.target;
    const exchangeTs = at ? at.exchangeTs : book ? Date.parse(book.timestamp) : Number.NaN;
    return JSON.stringify({
      svc_id: t.market.svc_id,
      exchange: t.venue.descriptor.id,
      outcome: t.outcome.name,
      token_id: t.outcome.token_id,
      market_id: t.market.exchange_market_id,
      tick_size: book?.tick_size ?? null,
      ...(book?.min_order_size !== undefined ? { min_order_size: book.min_order_size } : {}),
      title: t.market.question,
      book_state: state,
      feed_state: this.feed,
      stale_after_ms: this.options.staleAfterMs,
      exchange_ts_ms: Number.isNaN(exchangeTs) ? null : exchangeTs,
      ingest_ts_ms: at ? at.ingestMs : (this.current?.ingestMs ?? null),
    }).slice(1, -1);
  }

  snapshotRest(depth: number): string {
    const book = this.current?.book;
    const bids = JSON.stringify(book?.bids.slice(0, depth) ?? []);
    const asks = JSON.stringify(book?.asks.slice(0, depth) ?? []);
    return `${this.header('fresh')},"kind":"snapshot","bids":${bids},"asks":${asks}}`;
  }

  /**
   * The delta to `depth` from the version before the current one: null when nothing within depth moved, undefined
   * when that version's cut is not known (the caller sends a snapshot instead).
   */
  deltaRest(depth: number): string | null | undefined {
    const current = this.current;
    if (!current) return undefined;
    const cut = this.cuts.get(depth);
    if (cut && cut.version === current.n) return cut.deltaRest;
    const bids = current.book.bids.slice(0, depth);
    const asks = current.book.asks.slice(0, depth);
    if (!cut || cut.version !== current.n - 1) return undefined;
    const changes = diffBookSides(cut, { bids, asks });
    const deltaRest =
      changes.length > 0
        ? `${this.header('fresh')},"kind":"delta","changes":${JSON.stringify(changes)}}`
        : null;
    this.cuts.set(depth, { version: current.n, bids, asks, deltaRest });
    return deltaRest;
  }

  /** Records the cut a snapshot sent at `depth`, so the next version's delta is computed against it. */
  noteSnapshot(depth: number): void {
    const current = this.current;
    if (!current) return;
    const cut = this.cuts.get(depth);
    if (cut && cut.version === current.n) return;
    this.cuts.set(depth, {
      version: current.n,
      bids: current.book.bids.slice(0, depth),
      asks: current.book.asks.slice(0, depth),
      deltaRest: null,
    });
  }

  private changed(book: OrderBook): void {
    const recovered = !this.fresh;
    this.current = { book, n: (this.current?.n ?? 0) + 1, ingestMs: this.options.now() };
    this.fresh = true;
    this.feed = 'healthy';
    for (const sub of this.subscriptions) sub.bookChanged(recovered);
  }

  private traded(event: StreamTrade): void {
    if (this.subscriptions.size === 0) return;
    const t = event.trade;
    const at = { exchangeTs: Date.parse(t.timestamp), ingestMs: event.received_ts_ms };
    const rest = `${this.header(this.fresh ? 'fresh' : 'stale', at)},${JSON.stringify({
      kind: 'trade',
      price: t.price,
      size: t.size,
      side: t.side,
      ...(t.aggressor_side ? { aggressor_side: t.aggressor_side } : {}),
      trade_id: t.id,
      source_channel: event.source_channel,
    }).slice(1)}`;
    for (const sub of this.subscriptions) sub.tradeSeen(rest);
  }

  /** The caller's own fill on this book, as an `activity` message's fields (JSON without its opening brace). */
  fillRest(fill: Fill, sourceChannel: string): string {
    const at = { exchangeTs: Date.parse(fill.created_at), ingestMs: this.options.now() };
    return `${this.header(this.fresh ? 'fresh' : 'stale', at)},${JSON.stringify({
      kind: 'fill',
      price: fill.price,
      size: fill.size,
      side: fill.side,
      fill_id: fill.fill_id,
      order_id: fill.order_id,
      liquidity_role: fill.is_taker ? 'taker' : 'maker',
      fee: fill.fee,
      source_channel: sourceChannel,
    }).slice(1)}`;
  }

  private staled(cause: StaleCause): void {
    this.fresh = false;
    if (cause === 'disconnected') this.feed = 'disconnected';
    for (const sub of this.subscriptions) sub.bookStale();
  }
}

export class BookSubscription {
  private seq = 0;
  /** The version of the book this client last received (a snapshot or a delta), or 0 for none. */
  private sentVersion = 0;
  private conflated = false;
  private closed = false;

  constructor(
    readonly channel: BookChannel,
    readonly depth: number,
    private readonly transport: BookTransport,
    /** Whose share of the polled-books pool this subscription holds (null: not held to it). */
    readonly customer: string | null = null,
  ) {}

  get svcId(): string {
    return this.channel.target.market.svc_id;
  }

  get outcome(): string {
    return this.channel.target.outcome.name;
  }

  /** Sends the current book as a snapshot (subscribe, resync), or says it is stale when it is. */
  snapshot(): void {
    if (this.closed) return;
    const ch = this.channel;
    if (!ch.current || !ch.fresh) {
      // Nothing true to show yet: the snapshot follows as soon as the venue's arrives.
      if (ch.current && this.sentVersion > 0) this.emit('orderbook_delta', stateOnly(ch, 'stale'));
      this.sentVersion = 0;
      return;
    }
    this.emit('orderbook', ch.snapshotRest(this.depth));
    ch.noteSnapshot(this.depth);
    this.sentVersion = ch.current.n;
  }

  bookChanged(recovered: boolean): void {
    if (this.closed) return;
    const ch = this.channel;
    const current = ch.current;
    if (!current) return;
    if (recovered && this.sentVersion > 0) {
      this.emit('resync_required', JSON.stringify({ svc_id: this.svcId, outcome: this.outcome }).slice(1));
      this.sentVersion = 0;
    }
    const congestion = this.transport.congestion();
    if (congestion === 'hopeless') {
      this.transport.drop('the client does not read its messages');
      return;
    }
    if (this.conflated) {
      if (congestion !== 'ok') return;
      this.conflated = false;
      this.snapshot();
      return;
    }
    if (this.sentVersion === 0 || this.sentVersion !== current.n - 1) {
      this.snapshot();
      return;
    }
    if (congestion === 'slow') {
      this.conflated = true;
      this.emit('slow_reader', JSON.stringify({ svc_id: this.svcId, outcome: this.outcome }).slice(1));
      return;
    }
    const delta = ch.deltaRest(this.depth);
    if (delta === undefined) {
      this.snapshot();
      return;
    }
    this.sentVersion = current.n;
    if (delta !== null) this.emit('orderbook_delta', delta);
  }

  /**
   * A trade on the book, as an `activity` message. A conflated (slow) subscription skips trades until it catches
   * up: they cannot be folded into a snapshot, and a client that cannot keep up with books cannot with trades.
   */
  tradeSeen(rest: string): void {
    if (this.closed || this.conflated) return;
    if (this.transport.congestion() === 'hopeless') {
      this.transport.drop('the client does not read its messages');
      return;
    }
    this.emit('activity', rest);
  }

  /**
   * One of the caller's own fills on this book, as an `activity` message. Unlike a public trade it is sent to a
   * conflated subscription too: a fill is the client's own money and is not repeated in any snapshot.
   */
  fillSeen(rest: string): void {
    if (this.closed) return;
    if (this.transport.congestion() === 'hopeless') {
      this.transport.drop('the client does not read its messages');
      return;
    }
    this.emit('activity', rest);
  }

  bookStale(): void {
    if (this.closed || this.sentVersion === 0) return;
    this.emit('orderbook_delta', stateOnly(this.channel, 'stale'));
  }

  /** A conflated subscription whose client caught up gets the latest book as a snapshot. */
  catchUp(): void {
    if (this.closed || !this.conflated || this.transport.congestion() !== 'ok') return;
    this.conflated = false;
    this.snapshot();
  }

  close(): void {
    this.closed = true;
  }

  /** `rest` is the JSON object's remainder after its opening brace. */
  private emit(type: string, rest: string): void {
    this.seq += 1;
    this.transport.send(`{"type":"${type}","server_seq":${this.seq},${rest}`);
  }
}

function stateOnly(ch: BookChannel, state: BookState): string {
  return `${ch.header(state)},"kind":"delta","changes":[]}`;
}

export class BookHub {
  private readonly channels = new Map<string, BookChannel>();
  private readonly options: Required<Pick<BookHubOptions, 'staleAfterMs' | 'now'>> & BookHubOptions;
  private readonly polled: FairPool | null;

  constructor(
    private readonly books: BookSource,
    options: BookHubOptions,
  ) {
    this.options = { ...options, now: options.now ?? Date.now };
    this.polled =
      options.maxPolledBooks !== undefined ? new FairPool('polled books', options.maxPolledBooks) : null;
  }

  /**
   * Starts a subscription (sending its snapshot when the book is known). Throws what LiveBooks throws. With a
   * `customer`, a book of a polled venue is held to the pool: refused when it would be a new one and the pool is
   * full or the customer holds its share.
   */
  subscribe(target: MarketTarget, depth: number, transport: BookTransport): BookSubscription;
  subscribe(
    target: MarketTarget,
    depth: number,
    transport: BookTransport,
    customer: string,
  ): BookSubscription | PoolRefusal;
  subscribe(
    target: MarketTarget,
    depth: number,
    transport: BookTransport,
    customer?: string,
  ): BookSubscription | PoolRefusal {
    const key = `${target.venue.descriptor.id}\u0000${target.market.exchange_market_id}\u0000${target.outcome.token_id}`;
    const pooled =
      customer !== undefined && this.polled && target.venue.descriptor.has.websocket === 'polling'
        ? customer
        : null;
    if (pooled !== null) {
      const refused = this.polled?.acquire(pooled, key);
      if (refused) return refused;
    }
    let channel = this.channels.get(key);
    if (!channel) {
      try {
        channel = new BookChannel(key, target, this.books, this.options);
      } catch (error) {
        if (pooled !== null) this.polled?.release(pooled, key);
        throw error;
      }
      this.channels.set(key, channel);
    }
    const sub = new BookSubscription(channel, depth, transport, pooled);
    channel.subscriptions.add(sub);
    sub.snapshot();
    return sub;
  }

  unsubscribe(sub: BookSubscription): void {
    sub.close();
    const channel = sub.channel;
    if (!channel.subscriptions.delete(sub)) return;
    if (sub.customer !== null) this.polled?.release(sub.customer, channel.key);
    if (channel.subscriptions.size > 0) return;
    this.channels.delete(channel.key);
    channel.close();
  }

  /** Upstream books held for WebSocket clients. */
  get heldBooks(): number {
    return this.channels.size;
  }
}
