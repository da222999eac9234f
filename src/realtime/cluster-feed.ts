// One upstream feed per book across every node that shares one Redis. The first node whose clients want a book takes
// its lease (SET NX PX, renewed every third of the lease by a compare-and-expire script); the holder follows the book
// on the venue through its own LiveBooks and publishes every state on the book's channel:
//   <p>:book:<exchange>:<market>:<token>         pub/sub   {e, n, k: book|stale|trade|beat|gone, …}
//   …:lease                                      string    the holder's token (its epoch)
//   …:state                                      string    the latest {e, n, fresh, b}, for a node that joins late
// Every other node watching the book follows the channel and feeds its own clients from it; their `server_seq`,
// deltas and snapshots are computed per node by the BookHub as for a local book. Messages carry the whole book (a
// follower never patches a state it may have missed: a lost message costs nothing but bandwidth), numbered per epoch.
//
// When the holder dies its beats stop: followers mark the book stale (`feed_state` disconnected) once nothing was
// heard for a lease, and the first to take the expired lease subscribes upstream; its first snapshot reaches the
// clients as resync_required and a fresh book, on every node. A holder whose last local client leaves releases the
// lease at once and says `gone`, so a follower takes over without waiting for the expiry. A holder that cannot renew
// (Redis gone, lease lost) stops feeding and becomes a follower: two nodes never publish the same book for long.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { OrderBook } from '../domain/book.js';
import type { CallerContext } from '../services/caller-context.js';
import type {
  BookHold,
  BookObserver,
  LiveBooks,
  StaleCause,
  StreamTrade,
} from '../services/market-data/live-books.js';
import type { MarketTarget } from '../services/market-data/market-target.js';

export interface ClusterBooksOptions {
  /** Commands (leases, publishing). */
  redis: Redis;
  /** A connection of its own for the channels (a subscribed connection runs no other commands). */
  subscriber: Redis;
  /** This node's own upstream books, used while it holds a lease. */
  books: LiveBooks;
  prefix: string;
  nodeId: string;
  leaseMs: number;
  logger: CallerContext['logger'];
  /** Records a book while this node feeds it (the recorder's hook): one node records each book. */
  recordWhileHeld?: (target: MarketTarget) => () => void;
  now?: () => number;
}

type Kind = 'book' | 'stale' | 'trade' | 'beat' | 'gone';

interface FeedMessage {
  /** The holder's lease token: a new one means a new feed, whose numbering starts again. */
  e: string;
  k: Kind;
  n?: number;
  b?: OrderBook;
  c?: StaleCause;
  t?: StreamTrade;
}

interface FeedState {
  e: string;
  n: number;
  fresh: boolean;
  b: OrderBook | null;
}

// KEYS: lease, state, channel. ARGV: token, lease ms, state ms, beat message. 1 = renewed, 0 = not ours any more.
const RENEW = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('PUBLISH', KEYS[3], ARGV[4])
return 1
`;

// KEYS: lease, state, channel. ARGV: token, gone message. Releases only a lease that is still ours.
const RELEASE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('PUBLISH', KEYS[3], ARGV[2])
return 1
`;

interface RedisWithFeed extends Redis {
  omnibookFeedRenew(
    lease: string,
    state: string,
    channel: string,
    ...args: Array<string | number>
  ): Promise<number>;
  omnibookFeedRelease(lease: string, state: string, channel: string, ...args: string[]): Promise<number>;
}

class SharedBook {
  readonly observers = new Set<BookObserver>();
  readonly lease: string;
  readonly state: string;
  role: 'owner' | 'follower' = 'follower';
  /** Our lease token while we hold the feed. */
  token: string | null = null;
  upstream: BookHold | null = null;
  stopRecording: (() => void) | null = null;
  book: OrderBook | null = null;
  fresh = false;
  /** The feed (holder's token) `book` came from, and its number there. */
  epoch: string | null = null;
  n = 0;
  heardAt: number;
  renewedAt = 0;
  /** A lease call is in flight: the next tick leaves this book alone. */
  busy = false;
  closed = false;

  constructor(
    readonly channel: string,
    readonly target: MarketTarget,
    now: number,
  ) {
    this.lease = `${channel}:lease`;
    this.state = `${channel}:state`;
    this.heardAt = now;
  }
}

export class ClusterBooks {
  private readonly shared = new Map<string, SharedBook>();
  private readonly redis: RedisWithFeed;
  private readonly now: () => number;
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly options: ClusterBooksOptions) {
    options.redis.defineCommand('omnibookFeedRenew', { numberOfKeys: 3, lua: RENEW });
    options.redis.defineCommand('omnibookFeedRelease', { numberOfKeys: 3, lua: RELEASE });
    this.redis = options.redis as RedisWithFeed;
    this.now = options.now ?? Date.now;
    options.subscriber.on('message', (channel: string, message: string) => this.heard(channel, message));
    this.timer = setInterval(() => this.tick(), Math.max(50, Math.floor(options.leaseMs / 3)));
    this.timer.unref();
  }

  /** The same contract as LiveBooks.hold: the book's states, staleness and trades, from whichever node feeds it. */
  hold(...[venue, market, outcome, listener]: Parameters<LiveBooks['hold']>): BookHold {
    const observer: BookObserver = typeof listener === 'function' ? { change: listener } : (listener ?? {});
    const channel = [
      `${this.options.prefix}:book`,
      venue.descriptor.id,
      encodeURIComponent(market.exchange_market_id),
      encodeURIComponent(outcome.token_id),
    ].join(':');
    let entry = this.shared.get(channel);
    if (!entry) {
      entry = new SharedBook(channel, { venue, market, outcome }, this.now());
      this.shared.set(channel, entry);
      void this.join(entry);
    }
    const book = entry;
    book.observers.add(observer);
    let released = false;
    return {
      current: () => (book.fresh ? book.book : null),
      release: () => {
        if (released) return;
        released = true;
        book.observers.delete(observer);
        if (book.observers.size === 0) void this.leave(book);
      },
    };
  }

  /** The same contract as LiveBooks.current: the fresh book of an instrument someone on this node holds, or null. */
  current(...[exchange, marketId, tokenId]: Parameters<LiveBooks['current']>): OrderBook | null {
    const entry = this.shared.get(this.channelOf(exchange, marketId, tokenId));
    return entry?.fresh ? entry.book : null;
  }

  private channelOf(exchange: string, marketId: string, tokenId: string): string {
    return [
      `${this.options.prefix}:book`,
      exchange,
      encodeURIComponent(marketId),
      encodeURIComponent(tokenId),
    ].join(':');
  }

  /** Books this node feeds upstream for the cluster. */
  get owned(): number {
    let n = 0;
    for (const entry of this.shared.values()) if (entry.role === 'owner') n += 1;
    return n;
  }

  /** Releases every lease this node holds (followers take over at once) and leaves every channel. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await Promise.allSettled([...this.shared.values()].map((entry) => this.leave(entry)));
  }

  private async join(entry: SharedBook): Promise<void> {
    try {
      await this.options.subscriber.subscribe(entry.channel);
      if (entry.closed) return;
      if (!(await this.tryAcquire(entry))) await this.readState(entry);
    } catch (error) {
      this.options.logger.warn({ err: error, channel: entry.channel }, 'shared book feed: join failed');
    }
  }

  private async leave(entry: SharedBook): Promise<void> {
    if (entry.closed) return;
    entry.closed = true;
    if (this.shared.get(entry.channel) === entry) this.shared.delete(entry.channel);
    const token = entry.role === 'owner' ? entry.token : null;
    this.stopFeeding(entry);
    try {
      await this.options.subscriber.unsubscribe(entry.channel);
      if (token) {
        await this.redis.omnibookFeedRelease(
          entry.lease,
          entry.state,
          entry.channel,
          token,
          encode({ e: token, k: 'gone' }),
        );
      }
    } catch (error) {
      this.options.logger.warn({ err: error, channel: entry.channel }, 'shared book feed: release failed');
    }
  }

  /** Takes the book's lease if nobody holds it; true when this node now feeds it. */
  private async tryAcquire(entry: SharedBook): Promise<boolean> {
    const token = `${this.options.nodeId}/${randomUUID()}`;
    const won = await this.redis.set(entry.lease, token, 'PX', this.options.leaseMs, 'NX');
    if (won !== 'OK') return false;
    if (entry.closed || this.closed) {
      await this.redis.omnibookFeedRelease(
        entry.lease,
        entry.state,
        entry.channel,
        token,
        encode({ e: token, k: 'gone' }),
      );
      return false;
    }
    this.becomeOwner(entry, token);
    return true;
  }

  private becomeOwner(entry: SharedBook, token: string): void {
    // Whatever this node showed came from the feed that just ended: stale until our own snapshot arrives.
    this.markStale(entry, 'disconnected');
    entry.role = 'owner';
    entry.token = token;
    entry.epoch = token;
    entry.n = 0;
    entry.renewedAt = this.now();
    const { venue, market, outcome } = entry.target;
    try {
      entry.upstream = this.options.books.hold(venue, market, outcome, {
        change: (book) => this.ownerChanged(entry, book),
        stale: (cause) => this.ownerStaled(entry, cause),
        trade: (trade) => this.ownerTraded(entry, trade),
      });
    } catch (error) {
      this.options.logger.error({ err: error, channel: entry.channel }, 'shared book feed: upstream refused');
      void this.redis
        .omnibookFeedRelease(entry.lease, entry.state, entry.channel, token, encode({ e: token, k: 'gone' }))
        .catch(() => undefined);
      entry.role = 'follower';
      entry.token = null;
      return;
    }
    entry.stopRecording = this.options.recordWhileHeld?.(entry.target) ?? null;
    const current = entry.upstream.current();
    if (current) this.ownerChanged(entry, current);
  }

  /** Stops feeding the book upstream (lease lost, or the last client left). */
  private stopFeeding(entry: SharedBook): void {
    entry.upstream?.release();
    entry.upstream = null;
    entry.stopRecording?.();
    entry.stopRecording = null;
    entry.role = 'follower';
    entry.token = null;
  }

  private ownerChanged(entry: SharedBook, book: OrderBook): void {
    const token = entry.token;
    if (entry.role !== 'owner' || !token) return;
    entry.n += 1;
    this.applyBook(entry, book);
    const state: FeedState = { e: token, n: entry.n, fresh: true, b: book };
    this.publish(entry, { e: token, k: 'book', n: entry.n, b: book }, state);
  }

  private ownerStaled(entry: SharedBook, cause: StaleCause): void {
    const token = entry.token;
    if (entry.role !== 'owner' || !token) return;
    this.markStale(entry, cause);
    this.publish(entry, { e: token, k: 'stale', c: cause }, { e: token, n: entry.n, fresh: false, b: null });
  }

  private ownerTraded(entry: SharedBook, trade: StreamTrade): void {
    const token = entry.token;
    if (entry.role !== 'owner' || !token) return;
    this.tradeSeen(entry, trade);
    this.publish(entry, { e: token, k: 'trade', t: trade }, null);
  }

  private publish(entry: SharedBook, message: FeedMessage, state: FeedState | null): void {
    const tx = this.redis.multi();
    if (state) tx.set(entry.state, JSON.stringify(state), 'PX', this.options.leaseMs * 2);
    tx.publish(entry.channel, encode(message));
    tx.exec().catch((error: unknown) => {
      this.options.logger.warn({ err: error, channel: entry.channel }, 'shared book feed: publish failed');
    });
  }

  /** A message on a book's channel. A node ignores its own; a follower takes what the current holder says. */
  private heard(channel: string, raw: string): void {
    const entry = this.shared.get(channel);
    if (!entry || entry.closed || entry.role === 'owner') return;
    let message: FeedMessage;
    try {
      message = JSON.parse(raw) as FeedMessage;
    } catch {
      return;
    }
    // What this node published while it held the feed, arriving after it let go, is not news.
    if (message.e.startsWith(`${this.options.nodeId}/`)) return;
    entry.heardAt = this.now();
    if (message.k === 'gone') {
      // The holder let go: stale until this node (or another) feeds it again, which it tries at once.
      this.markStale(entry, 'disconnected');
      entry.epoch = null;
      void this.acquireNow(entry);
      return;
    }
    if (message.e !== entry.epoch) {
      // Another feed than the one this node's book came from: nothing of the old one is carried over.
      this.markStale(entry, 'disconnected');
      entry.epoch = message.e;
      entry.n = 0;
      if (message.k === 'beat') void this.readState(entry);
    }
    switch (message.k) {
      case 'book':
        if (message.b && message.n !== undefined && message.n > entry.n) {
          entry.n = message.n;
          this.applyBook(entry, message.b);
        }
        return;
      case 'stale':
        this.markStale(entry, message.c ?? 'resync');
        return;
      case 'trade':
        if (message.t) this.tradeSeen(entry, message.t);
        return;
      default:
        return;
    }
  }

  /** The holder's latest state, for a node that joins a book someone already feeds. */
  private async readState(entry: SharedBook): Promise<void> {
    const results = await this.redis.multi().get(entry.lease).get(entry.state).exec();
    const holder = results?.[0]?.[1] as string | null | undefined;
    const raw = results?.[1]?.[1] as string | null | undefined;
    if (entry.closed || entry.role === 'owner' || !holder || !raw) return;
    const state = JSON.parse(raw) as FeedState;
    if (state.e !== holder) return;
    if (state.e !== entry.epoch) {
      this.markStale(entry, 'disconnected');
      entry.epoch = state.e;
      entry.n = 0;
    }
    if (state.n < entry.n) return;
    entry.heardAt = this.now();
    if (state.fresh && state.b && state.n > entry.n) {
      entry.n = state.n;
      this.applyBook(entry, state.b);
    } else if (!state.fresh) {
      this.markStale(entry, 'disconnected');
    }
  }

  private async acquireNow(entry: SharedBook): Promise<void> {
    if (entry.busy || entry.closed || this.closed) return;
    entry.busy = true;
    try {
      await this.tryAcquire(entry);
    } catch (error) {
      this.options.logger.warn({ err: error, channel: entry.channel }, 'shared book feed: lease call failed');
    } finally {
      entry.busy = false;
    }
  }

  /** Holders renew their leases; followers notice a silent holder and take an expired lease. */
  private tick(): void {
    const now = this.now();
    for (const entry of this.shared.values()) {
      if (entry.busy || entry.closed) continue;
      if (entry.role === 'owner') {
        void this.renew(entry, now);
        continue;
      }
      if (now - entry.heardAt > this.options.leaseMs) this.markStale(entry, 'disconnected');
      void this.acquireNow(entry);
    }
  }

  private async renew(entry: SharedBook, now: number): Promise<void> {
    const token = entry.token;
    if (!token) return;
    entry.busy = true;
    try {
      const { leaseMs } = this.options;
      const kept = await this.redis.omnibookFeedRenew(
        entry.lease,
        entry.state,
        entry.channel,
        token,
        leaseMs,
        leaseMs * 2,
        encode({ e: token, k: 'beat' }),
      );
      if (kept === 1) entry.renewedAt = now;
      else this.lostLease(entry, 'another node holds the lease');
    } catch (error) {
      // Past a whole lease without renewing, another node may hold it: stop feeding rather than publish twice.
      if (this.now() - entry.renewedAt > this.options.leaseMs)
        this.lostLease(entry, (error as Error).message);
    } finally {
      entry.busy = false;
    }
  }

  private lostLease(entry: SharedBook, why: string): void {
    if (entry.role !== 'owner' || entry.closed) return;
    this.options.logger.warn(
      { channel: entry.channel, why },
      'shared book feed: lease lost, following instead',
    );
    this.stopFeeding(entry);
    this.markStale(entry, 'disconnected');
    entry.epoch = null;
    entry.heardAt = this.now();
  }

  private applyBook(entry: SharedBook, book: OrderBook): void {
    entry.book = book;
    entry.fresh = true;
    for (const o of entry.observers) this.safely(() => o.change?.(book));
  }

  private markStale(entry: SharedBook, cause: StaleCause): void {
    if (!entry.fresh) return;
    entry.fresh = false;
    for (const o of entry.observers) this.safely(() => o.stale?.(cause));
  }

  private tradeSeen(entry: SharedBook, trade: StreamTrade): void {
    for (const o of entry.observers) this.safely(() => o.trade?.(trade));
  }

  private safely(call: () => void): void {
    try {
      call();
    } catch (error) {
      this.options.logger.error({ err: error }, 'book listener failed');
    }
  }
}

function encode(message: FeedMessage): string {
  return JSON.stringify(message);
}
