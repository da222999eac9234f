// One watched wallet of a stream: the server's `wallet_activity` messages for (exchange, address), checked against
// `server_seq` like a book (a gap is reported; items are never re-requested, `GET /api/v1/user-activity` has them).

import type { GapEvent } from './book.js';
import { Emitter } from './emitter.js';
import type { FeedState, OmnibookStreamError, WalletActivityMessage } from './messages.js';
import { BoundedQueue } from './queue.js';

export interface WalletRef {
  exchange: string;
  address: string;
}

export type WalletBatch = Omit<WalletActivityMessage, 'type'>;

export interface WalletEvents {
  activity: [WalletBatch];
  /** The feed state changed (`disconnected` carries the exchange's error). */
  feed: [{ feed_state: FeedState | 'disconnected'; error?: string }];
  gap: [GapEvent];
  error: [OmnibookStreamError];
  closed: [];
}

export class WatchedWallet extends Emitter<WalletEvents> {
  readonly exchange: string;
  readonly address: string;
  state: 'pending' | 'live' | 'stale' | 'closed' = 'pending';
  feedState: FeedState = 'healthy';
  seq: number | null = null;
  private readonly queues = new Set<BoundedQueue<WalletBatch>>();

  constructor(
    ref: WalletRef,
    private readonly release: (wallet: WatchedWallet) => Promise<void>,
  ) {
    super();
    this.exchange = ref.exchange.trim().toLowerCase();
    this.address = ref.address.trim();
  }

  static key(exchange: string, address: string): string {
    return `${exchange.trim().toLowerCase()}\u0000${address.trim().toLowerCase()}`;
  }

  get key(): string {
    return WatchedWallet.key(this.exchange, this.address);
  }

  /** The wallet's messages in order, at most `capacity` waiting (default 1,000; the oldest are dropped beyond). */
  batches(
    capacity = 1_000,
  ): AsyncIterableIterator<WalletBatch> & { readonly buffered: number; readonly dropped: number } {
    const queue: BoundedQueue<WalletBatch> = new BoundedQueue(capacity, () => this.queues.delete(queue));
    this.queues.add(queue);
    if (this.state === 'closed') queue.end();
    return queue;
  }

  unwatch(): Promise<void> {
    return this.release(this);
  }

  handle(m: WalletActivityMessage): void {
    if (this.state === 'closed') return;
    if (this.seq !== null && m.server_seq !== this.seq + 1) {
      this.emit('gap', { expected: this.seq + 1, received: m.server_seq });
    }
    this.seq = m.server_seq;
    this.state = 'live';
    if (m.feed_state !== this.feedState) {
      this.feedState = m.feed_state;
      this.emit('feed', { feed_state: m.feed_state, ...(m.error !== undefined ? { error: m.error } : {}) });
    }
    const { type: _type, ...batch } = m;
    this.emit('activity', batch);
    for (const q of this.queues) q.push(batch);
  }

  connectionLost(): void {
    if (this.state === 'closed') return;
    this.seq = null;
    if (this.state === 'live') this.state = 'stale';
  }

  close(error?: OmnibookStreamError): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    if (error) this.emit('error', error);
    for (const q of this.queues) q.end();
    this.emit('closed');
    this.removeAllListeners();
  }
}
