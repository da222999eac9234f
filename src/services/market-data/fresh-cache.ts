// A strict TTL cache with single-flight: a value older than its TTL is never answered (a live book must not be
// served stale), and however many callers miss one key at once, one computation runs and they all share its
// outcome. A failure is shared by the callers waiting on it but never cached.
export class FreshCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();
  private readonly pending = new Map<string, Promise<V>>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The value if it is younger than the TTL; else the running computation, or a new one. */
  get(key: string, compute: () => Promise<V>): Promise<V> {
    const hit = this.peek(key);
    if (hit !== undefined) return Promise.resolve(hit);
    const running = this.pending.get(key);
    if (running) return running;
    const promise = compute()
      .then((value) => {
        this.set(key, value);
        return value;
      })
      .finally(() => this.pending.delete(key));
    this.pending.set(key, promise);
    return promise;
  }

  peek(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expires > this.now()) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, value: V): void {
    if (this.entries.size >= this.maxEntries && !this.entries.has(key)) {
      // Oldest insertion first: Map iteration order.
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.delete(key);
    this.entries.set(key, { value, expires: this.now() + this.ttlMs });
  }
}
