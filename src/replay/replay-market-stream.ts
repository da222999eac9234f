// The replay's market stream: book snapshots and trades of the subscribed books, pushed by the replay driver as
// the clock reaches them (queued by `ReplayEventQueue`, whose `idle()` the driver awaits). LiveBooks hands each
// event to the WebSocket subscriptions synchronously, so once the queue is idle every message of the step has been
// written to the sockets, and the driver can tell paced clients that the step is complete.

import type { MarketStreamEvent } from '../domain/stream.js';
import { AppError } from '../errors/app-error.js';
import type { MarketStream, StreamTarget } from '../venues/port.js';
import { ReplayEventQueue } from './event-queue.js';

export interface StreamBooks {
  /** The book key of a target, or throws AppError (400) for an outcome the market does not have. */
  keyOf(target: StreamTarget): string;
  /** The book's current state as a snapshot event, or null when nothing is recorded for it yet. */
  snapshotOf(key: string): MarketStreamEvent | null;
}

export class ReplayMarketStream extends ReplayEventQueue<MarketStreamEvent> implements MarketStream {
  private readonly subscribed = new Set<string>();

  constructor(
    private readonly books: StreamBooks,
    signal: AbortSignal,
    private readonly onClose: (stream: ReplayMarketStream) => void,
  ) {
    super(signal);
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

  protected closed_(): void {
    this.onClose(this);
  }
}
