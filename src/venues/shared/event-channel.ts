// A bounded push-to-pull queue: a venue socket pushes events as they arrive and one consumer pulls them with
// `for await`. When the consumer falls more than `capacity` events behind, the channel ends with
// StreamOverflowError instead of growing without bound; the consumer reopens and gets fresh snapshots.

export class StreamOverflowError extends Error {
  override readonly name = 'StreamOverflowError';
}

export class EventChannel<T> implements AsyncIterable<T> {
  private readonly buffer: T[] = [];
  private head = 0;
  private waiting: { resolve: (r: IteratorResult<T>) => void; reject: (e: unknown) => void } | null = null;
  private ended = false;
  private failure: unknown = null;
  private iterated = false;

  constructor(private readonly capacity = 10_000) {}

  get closed(): boolean {
    return this.ended;
  }

  /** Returns false when the event was not accepted (channel ended, or overflow just ended it). */
  push(event: T): boolean {
    if (this.ended) return false;
    if (this.waiting) {
      const { resolve } = this.waiting;
      this.waiting = null;
      resolve({ value: event, done: false });
      return true;
    }
    if (this.buffer.length - this.head >= this.capacity) {
      this.end(new StreamOverflowError(`consumer fell ${this.capacity} events behind`));
      return false;
    }
    this.buffer.push(event);
    return true;
  }

  /** Ends the channel; pending events are still delivered, then the error (if any) is thrown to the consumer. */
  end(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.failure = error ?? null;
    if (this.waiting) {
      const { resolve, reject } = this.waiting;
      this.waiting = null;
      if (this.failure) reject(this.failure);
      else resolve({ value: undefined, done: true });
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    if (this.iterated) throw new Error('an EventChannel has exactly one consumer');
    this.iterated = true;
    return {
      next: () => {
        if (this.head < this.buffer.length) {
          const value = this.buffer[this.head] as T;
          this.head += 1;
          // Compact occasionally so a long-lived channel does not keep every delivered event.
          if (this.head > 1024 && this.head * 2 > this.buffer.length) {
            this.buffer.splice(0, this.head);
            this.head = 0;
          }
          return Promise.resolve({ value, done: false });
        }
        if (this.ended) {
          return this.failure
            ? Promise.reject(this.failure)
            : Promise.resolve({ value: undefined, done: true });
        }
        return new Promise<IteratorResult<T>>((resolve, reject) => {
          this.waiting = { resolve, reject };
        });
      },
      return: () => {
        this.end();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
