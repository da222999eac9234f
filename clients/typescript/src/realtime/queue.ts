// Async iterators whose memory is bounded whatever the consumer does: `LatestValue` keeps only the newest value (a
// book view: an older state is worth nothing once a newer one exists), `BoundedQueue` keeps at most `capacity`
// items and drops the oldest beyond (trades, fills, wallet items), counting what it dropped.

interface Waiter<T> {
  resolve: (result: IteratorResult<T>) => void;
}

abstract class Channel<T> implements AsyncIterableIterator<T> {
  protected waiter: Waiter<T> | null = null;
  protected ended = false;

  constructor(private readonly onReturn: () => void) {}

  protected abstract take(): { value: T } | null;

  protected wake(): void {
    const waiter = this.waiter;
    if (!waiter) return;
    const next = this.take();
    if (next) {
      this.waiter = null;
      waiter.resolve({ value: next.value, done: false });
    } else if (this.ended) {
      this.waiter = null;
      waiter.resolve({ value: undefined, done: true });
    }
  }

  next(): Promise<IteratorResult<T>> {
    const next = this.take();
    if (next) return Promise.resolve({ value: next.value, done: false });
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    if (this.waiter) return Promise.reject(new Error('next() called again before the last one settled'));
    return new Promise((resolve) => {
      this.waiter = { resolve };
    });
  }

  /** Ends the iteration (a `break` out of `for await` calls this). */
  return(): Promise<IteratorResult<T>> {
    this.end();
    this.onReturn();
    return Promise.resolve({ value: undefined, done: true });
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.wake();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

/** Yields the newest value pushed since the last read; a slow reader skips the states in between. */
export class LatestValue<T> extends Channel<T> {
  private value: { value: T } | null = null;
  /** How many pushed values were replaced before being read. */
  skipped = 0;

  push(value: T): void {
    if (this.ended) return;
    if (this.value) this.skipped += 1;
    this.value = { value };
    this.wake();
  }

  /** Values waiting to be read: 0 or 1. */
  get buffered(): number {
    return this.value ? 1 : 0;
  }

  protected take(): { value: T } | null {
    const v = this.value;
    this.value = null;
    return v;
  }
}

/** Yields every item in order while the reader keeps up; beyond `capacity` waiting, the oldest are dropped. */
export class BoundedQueue<T> extends Channel<T> {
  private readonly items: T[] = [];
  private head = 0;
  /** Items dropped because the reader was `capacity` behind. */
  dropped = 0;

  constructor(
    private readonly capacity: number,
    onReturn: () => void,
  ) {
    super(onReturn);
    if (!(capacity >= 1)) throw new RangeError('capacity must be at least 1');
  }

  push(item: T): void {
    if (this.ended) return;
    this.items.push(item);
    if (this.items.length - this.head > this.capacity) {
      this.head += 1;
      this.dropped += 1;
    }
    this.compact();
    this.wake();
  }

  get buffered(): number {
    return this.items.length - this.head;
  }

  protected take(): { value: T } | null {
    if (this.head >= this.items.length) return null;
    const value = this.items[this.head] as T;
    this.head += 1;
    this.compact();
    return { value };
  }

  private compact(): void {
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items.splice(0, this.head);
      this.head = 0;
    }
  }
}
