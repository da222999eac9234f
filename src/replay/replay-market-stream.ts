// The replay's market stream: book snapshots and trades of the subscribed books, pushed by the replay driver as
// the clock reaches them. `idle()` resolves once the consumer (LiveBooks) has taken every pushed event and asked
// for the next: LiveBooks hands each event to the WebSocket subscriptions synchronously, so by then every message
// of the step has been written to the sockets, and the driver can tell paced clients that the step is complete.

import type { MarketStreamEvent } from '../domain/stream.js';
import { AppError } from '../errors/app-error.js';
import type { MarketStream, StreamTarget } from '../venues/port.js';

export interface StreamBooks {
  /** The book key of a target, or throws AppError (400) for an outcome the market does not have. */
  keyOf(target: StreamTarget): string;
  /** The book's current state as a snapshot event, or null when nothing is recorded for it yet. */
  snapshotOf(key: string): MarketStreamEvent | null;
}

export class ReplayMarketStream implements MarketStream {
  private readonly queue: MarketStreamEvent[] = [];
  private waiter: ((result: IteratorResult<MarketStreamEvent>) => void) | null = null;
  private idleWaiters: Array<() => void> = [];
  private readonly subscribed = new Set<string>();
  private closed = false;

  constructor(
    private readonly books: StreamBooks,
    signal: AbortSignal,
    private readonly onClose: (stream: ReplayMarketStream) => void,
  ) {
    signal.addEventListener('abort', () => void this.close(), { once: true });
  }

  subscribe(targets: readonly StreamTarget[]): void {
    const keys = targets.map((t) => this.books.keyOf(t));
    for (const key of keys) {
      if (this.subscribed.has(key)) continue;
      this.subscribed.add(key);
      const snapshot = this.books.snapshotOf(key);
      if (snapshot) this.push(snapshot);
    }
  }

  unsubscribe(targets: readonly StreamTarget[]): void {
    for (const t of targets) {
      try {
        this.subscribed.delete(this.books.keyOf(t));
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
      }
    }
  }

  /** Queues an event for a book, when this stream carries that book. */
  offer(key: string, event: MarketStreamEvent): void {
    if (this.subscribed.has(key)) this.push(event);
  }

  /** Resolves when every queued event has been taken and the consumer waits for more (or the stream closed). */
  idle(): Promise<void> {
    if (this.closed || (this.queue.length === 0 && this.waiter !== null)) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.queue.length = 0;
    this.waiter?.({ value: undefined, done: true });
    this.waiter = null;
    this.wakeIdle();
    this.onClose(this);
  }

  [Symbol.asyncIterator](): AsyncIterator<MarketStreamEvent> {
    return {
      next: () => {
        const event = this.queue.shift();
        if (event) return Promise.resolve({ value: event, done: false });
        if (this.closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          this.waiter = resolve;
          this.wakeIdle();
        });
      },
      return: async () => {
        await this.close();
        return { value: undefined, done: true };
      },
    };
  }

  private push(event: MarketStreamEvent): void {
    if (this.closed) return;
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = null;
      waiter({ value: event, done: false });
    } else {
      this.queue.push(event);
    }
  }

  private wakeIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}
