// A paper account's user stream in a replay (the VenueAdapter port's `openUserStream`): `feed_state healthy` at once,
// then each fill of that account as the replay venue makes it (an order's crossing fills when it is placed, resting
// fills when a recorded trade reaches it). The server's fill feeds read it exactly as they read a venue's user
// channel in the sandbox, so the fills reach the WebSocket as `activity` kind fill on the book's subscription.
// `idle()` lets the replay driver wait until the feed has taken every fill, as it does for the market streams.
import type { UserStreamEvent } from '../domain/stream.js';
import type { UserStream } from '../venues/port.js';

export class ReplayUserStream implements UserStream {
  private readonly queue: UserStreamEvent[] = [{ type: 'feed_state', state: 'healthy', reason: '' }];
  private waiter: ((result: IteratorResult<UserStreamEvent>) => void) | null = null;
  private idleWaiters: Array<() => void> = [];
  private closed = false;

  constructor(
    /** The paper account whose fills this stream carries. */
    readonly account: string,
    signal: AbortSignal,
    private readonly onClose: (stream: ReplayUserStream) => void,
  ) {
    signal.addEventListener('abort', () => void this.close(), { once: true });
  }

  push(event: UserStreamEvent): void {
    if (this.closed) return;
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = null;
      waiter({ value: event, done: false });
    } else {
      this.queue.push(event);
    }
  }

  /** Resolves when every queued event has been taken and the reader waits for more (or the stream closed). */
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

  [Symbol.asyncIterator](): AsyncIterator<UserStreamEvent> {
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

  private wakeIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}
