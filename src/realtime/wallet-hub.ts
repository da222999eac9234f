// WebSocket wallet subscriptions (`subscribe { addresses }`): one watcher per (exchange, address) however many
// clients watch it, reference counted and stopped with the last, and at most `maxWatchers` of them on this node,
// shared fairly between customers (fair-pool.ts). A watcher polls the venue's public wallet activity
// (the adapter's fetchWalletActivity) and fans each batch of new items out as one `wallet_activity` message.
//
// What a client gets, in order (each message numbered by its own `server_seq`):
//  1. a snapshot (`snapshot: true`): the newest items of the history window (at most `recentItems`), possibly none.
//     It is also the sign that the watch is live: anything the venue records after it arrives in a later message.
//  2. `snapshot: false` messages with only items never sent before, oldest first.
// No item is sent twice: items are recognised by their id (the venue's own, or the adapter's stable key). None is
// missed between polls: each poll reads from the newest timestamp seen minus `overlapMs` (inclusive), so items the
// venue publishes late by less than that are still found; a full page is followed at once by the next one.
// An upstream failure is said, never hidden: the next message carries `feed_state: "disconnected"` and the venue's
// error; the first successful poll after it says `healthy` again and carries everything recorded meanwhile.
import type { FeedState } from '../domain/stream.js';
import type { WalletActivityItem } from '../domain/wallet-activity.js';
import { isAppError } from '../errors/app-error.js';
import type { LoggerLike, VenueAdapter } from '../venues/port.js';
import type { BookTransport } from './book-hub.js';
import { FairPool, type PoolRefusal } from './fair-pool.js';

export interface WalletHubOptions {
  /** Time between two polls of one address. */
  pollMs: number;
  /** How far back the snapshot looks. */
  historyMs: number;
  /** How late the venue may publish an item (against the newest one seen) and still be found. */
  overlapMs: number;
  /** Items in a snapshot at most (the newest). */
  recentItems: number;
  /** Deadline of one venue request. */
  timeoutMs: number;
  /** Addresses this node polls at most (each one a venue request every pollMs). */
  maxWatchers: number;
  logger: LoggerLike;
  now?: () => number;
}

/** Items one poll asks the venue for; a full answer is followed at once by the next poll. */
const POLL_MAX_ITEMS = 500;
/** Polls in a row without a pause while the venue keeps answering full pages (catching up). */
const CATCH_UP_POLLS = 20;

class WalletWatcher {
  readonly subscriptions = new Set<WalletSubscription>();
  /** Items sent, by id → timestamp; pruned to what a later poll can still read. */
  private readonly seen = new Map<string, number>();
  /** The newest items (for the snapshot of a client that joins later), oldest first. */
  private recent: WalletActivityItem[] = [];
  private watermarkMs: number;
  private ready = false;
  feed: FeedState = 'healthy';
  private lastError: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly stop = new AbortController();

  constructor(
    readonly key: string,
    readonly venue: VenueAdapter,
    readonly address: string,
    private readonly options: Required<WalletHubOptions>,
  ) {
    this.watermarkMs = options.now() - options.historyMs;
    void this.run();
  }

  get exchange(): string {
    return this.venue.descriptor.id;
  }

  /** A new subscription's first message, when the watcher has one to give (else it comes with the first poll). */
  greet(sub: WalletSubscription): void {
    if (this.ready) sub.send(this.rest(true, this.recent));
    else if (this.feed === 'disconnected') sub.send(this.rest(false, []));
  }

  close(): void {
    this.stop.abort();
    if (this.timer) clearTimeout(this.timer);
  }

  /** Until the snapshot is out: reads the history window (catching up while pages come back full), then sends it. */
  private async run(): Promise<void> {
    let full = false;
    try {
      let polls = 0;
      do {
        full = (await this.poll()).full;
        polls += 1;
      } while (full && polls < CATCH_UP_POLLS && !this.stop.signal.aborted);
      if (this.stop.signal.aborted) return;
      this.ready = true;
      const rest = this.rest(true, this.recent);
      for (const sub of this.subscriptions) sub.send(rest);
    } catch (error) {
      this.failed(error);
    }
    this.schedule(full);
  }

  /** After the snapshot: one poll (more while pages come back full); new items, or a recovery, go out. */
  private async tick(): Promise<void> {
    if (!this.ready) return this.run();
    let full = false;
    try {
      let polls = 0;
      do {
        const wasDown = this.feed === 'disconnected';
        const result = await this.poll();
        full = result.full;
        polls += 1;
        if (this.stop.signal.aborted) return;
        if (result.added.length > 0 || wasDown) {
          const rest = this.rest(false, result.added);
          for (const sub of this.subscriptions) sub.send(rest);
        }
      } while (full && polls < CATCH_UP_POLLS);
    } catch (error) {
      this.failed(error);
    }
    this.schedule(full);
  }

  private schedule(now: boolean): void {
    if (this.stop.signal.aborted) return;
    this.timer = setTimeout(() => void this.tick(), now ? 0 : this.options.pollMs);
    this.timer.unref();
  }

  /**
   * One venue request: the items never seen before (oldest first), and whether the answer was full (more may be
   * waiting). Throws the venue's failure.
   */
  private async poll(): Promise<{ added: WalletActivityItem[]; full: boolean }> {
    const fetchActivity = this.venue.marketData.fetchWalletActivity;
    if (!fetchActivity) throw new Error(`${this.exchange} has no fetchWalletActivity`);
    const signal = AbortSignal.any([this.stop.signal, AbortSignal.timeout(this.options.timeoutMs)]);
    const sinceMs = this.ready ? this.watermarkMs - this.options.overlapMs : this.watermarkMs;
    const items = await fetchActivity.call(
      this.venue.marketData,
      { signal, requestId: `ws-wallet:${this.exchange}`, logger: this.options.logger, tenant: null },
      this.address,
      { sinceMs, max: POLL_MAX_ITEMS },
    );
    if (this.stop.signal.aborted) return { added: [], full: false };
    if (this.feed === 'disconnected') {
      this.feed = 'healthy';
      this.lastError = null;
    }
    const added: WalletActivityItem[] = [];
    for (const item of items) {
      if (this.seen.has(item.id)) continue;
      this.seen.set(item.id, item.timestamp_ms);
      added.push(item);
      if (item.timestamp_ms > this.watermarkMs) this.watermarkMs = item.timestamp_ms;
    }
    added.sort((a, b) => a.timestamp_ms - b.timestamp_ms);
    this.recent = [...this.recent, ...added].slice(-this.options.recentItems);
    // What the next poll cannot read again need not be remembered.
    const floor = this.watermarkMs - this.options.overlapMs;
    for (const [id, ts] of this.seen) if (ts < floor) this.seen.delete(id);
    // A full page whose every item was already sent cannot move the watermark: reading on would repeat it.
    return { added, full: items.length >= POLL_MAX_ITEMS && added.length > 0 };
  }

  private failed(error: unknown): void {
    if (this.stop.signal.aborted) return;
    const message = isAppError(error) ? error.message : `${this.exchange} wallet activity failed`;
    if (!isAppError(error)) {
      this.options.logger.error({ exchange: this.exchange, err: error }, 'wallet watcher failed');
    }
    if (this.feed === 'disconnected' && this.lastError === message) return;
    this.feed = 'disconnected';
    this.lastError = message;
    const rest = this.rest(false, []);
    for (const sub of this.subscriptions) sub.send(rest);
  }

  /** A message's fields after `server_seq` (JSON without its opening brace), serialised once for every client. */
  private rest(snapshot: boolean, items: readonly WalletActivityItem[]): string {
    return JSON.stringify({
      exchange: this.exchange,
      address: this.address,
      snapshot,
      feed_state: this.feed,
      ...(this.lastError ? { error: this.lastError } : {}),
      activity: items,
    }).slice(1);
  }
}

export class WalletSubscription {
  private seq = 0;
  private closed = false;

  constructor(
    readonly watcher: WalletWatcher,
    private readonly transport: BookTransport,
    /** Whose share of the pool this subscription holds. */
    readonly customer: string,
  ) {}

  get exchange(): string {
    return this.watcher.exchange;
  }

  get address(): string {
    return this.watcher.address;
  }

  send(rest: string): void {
    if (this.closed) return;
    if (this.transport.congestion() === 'hopeless') {
      this.transport.drop('the client does not read its messages');
      return;
    }
    this.seq += 1;
    this.transport.send(`{"type":"wallet_activity","server_seq":${this.seq},${rest}`);
  }

  close(): void {
    this.closed = true;
  }
}

export class WalletHub {
  private readonly watchers = new Map<string, WalletWatcher>();
  private readonly options: Required<WalletHubOptions>;
  private readonly pool: FairPool;

  constructor(options: WalletHubOptions) {
    this.options = { ...options, now: options.now ?? Date.now };
    this.pool = new FairPool('watched wallets', options.maxWatchers);
  }

  /**
   * `address` in the venue's canonical spelling (the caller checked it against the venue's rule), for `customer`:
   * refused when it would be a new watcher and the pool is full or the customer holds its share.
   */
  subscribe(
    venue: VenueAdapter,
    address: string,
    transport: BookTransport,
    customer: string,
  ): WalletSubscription | PoolRefusal {
    const key = walletKey(venue.descriptor.id, address);
    const refused = this.pool.acquire(customer, key);
    if (refused) return refused;
    let watcher = this.watchers.get(key);
    if (!watcher) {
      watcher = new WalletWatcher(key, venue, address, this.options);
      this.watchers.set(key, watcher);
    }
    const sub = new WalletSubscription(watcher, transport, customer);
    watcher.subscriptions.add(sub);
    watcher.greet(sub);
    return sub;
  }

  unsubscribe(sub: WalletSubscription): void {
    sub.close();
    const watcher = sub.watcher;
    if (!watcher.subscriptions.delete(sub)) return;
    this.pool.release(sub.customer, watcher.key);
    if (watcher.subscriptions.size > 0) return;
    this.watchers.delete(watcher.key);
    watcher.close();
  }

  /** Addresses polled upstream right now. */
  get watchedAddresses(): number {
    return this.watchers.size;
  }

  close(): void {
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }
}

export function walletKey(exchange: string, address: string): string {
  return `${exchange}\u0000${address}`;
}
