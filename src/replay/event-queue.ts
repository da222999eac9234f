// The event queue under a replay's streams (market and user): the replay driver pushes events as the clock reaches
// them, the server's consumer takes them through the async iterator, and `idle()` resolves once the consumer has
// taken every pushed event and waits for the next, so the driver knows a step's events have all been handled
// before it tells paced clients that the step is complete.

export abstract class ReplayEventQueue<T> implements AsyncIterable<T> {
  private readonly queue: T[];
  private waiter: ((result: IteratorResult<T>) => void) | null = null;
  private idleWaiters: Array<() => void> = [];
  private closed = false;

  constructor(signal: AbortSignal, initial: readonly T[] = []) {
    this.queue = [...initial];
    signal.addEventListener('abort', () => void this.close(), { once: true });
  }

  /** What the owner does when the stream closes (it forgets the stream). */
  protected abstract closed_(): void;

  protected push(event: T): void {
    if (this.closed) return;
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = null;
      waiter({ value: event, done: false });
    } else {
      this.queue.push(event);
    }
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
    this.closed_();
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
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
