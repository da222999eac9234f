// A small TTL cache with stale-while-revalidate: an expired value is still answered while one refresh runs in the
// background, so a slow count never sits on the request path more than once per key and period.
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();
  private readonly refreshing = new Map<string, Promise<V>>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The cached value (fresh or stale); computes it on a miss and waits only then. */
  async get(key: string, compute: () => Promise<V>): Promise<V> {
    const entry = this.entries.get(key);
    if (entry) {
      if (entry.expires <= this.now()) this.refresh(key, compute).catch(() => undefined);
      return entry.value;
    }
    return this.refresh(key, compute);
  }

  peek(key: string): V | undefined {
    const entry = this.entries.get(key);
    return entry && entry.expires > this.now() ? entry.value : undefined;
  }

  set(key: string, value: V): void {
    if (this.entries.size >= this.maxEntries && !this.entries.has(key)) {
      // Oldest insertion first: Map iteration order.
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { value, expires: this.now() + this.ttlMs });
  }

  private refresh(key: string, compute: () => Promise<V>): Promise<V> {
    const running = this.refreshing.get(key);
    if (running) return running;
    const promise = compute()
      .then((value) => {
        this.set(key, value);
        return value;
      })
      .finally(() => this.refreshing.delete(key));
    this.refreshing.set(key, promise);
    return promise;
  }
}
