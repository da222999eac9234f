// A strict TTL cache with single-flight: a value older than its TTL is never answered (a live book must not be
// served stale), and however many callers miss one key at once, one computation runs and they all share its
// outcome. A failure is shared by the callers waiting on it but never cached.
//
// With `refreshAfterMs`, a key that is still being asked for is recomputed before it expires: the first hit older
// than that starts one computation in the background and is answered with the value it holds. A busy key then never
// makes its callers wait on the venue, and the TTL stays a hard bound on age; a key nobody asks for is never
// refreshed. A background failure is dropped: the value expires at its TTL and the next caller meets the venue's
// error itself.
export interface FreshCacheOptions {
  maxEntries?: number;
  now?: () => number;
  /** Age at which a hit starts a background recomputation (below the TTL to be useful). */
  refreshAfterMs?: number;
}

interface Entry<V> {
  value: V;
  stored: number;
}

export class FreshCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly pending = new Map<string, Promise<V>>();
  private readonly maxEntries: number;
  private readonly now: () => number;
  private readonly refreshAfterMs: number;

  constructor(
    private readonly ttlMs: number,
    options: FreshCacheOptions = {},
  ) {
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
    this.refreshAfterMs = options.refreshAfterMs ?? Number.POSITIVE_INFINITY;
  }

  /** The value if it is younger than the TTL; else the running computation, or a new one. */
  get(key: string, compute: () => Promise<V>): Promise<V> {
    const entry = this.fresh(key);
    if (entry) {
      if (this.now() - entry.stored >= this.refreshAfterMs && !this.pending.has(key)) {
        this.start(key, compute).catch(() => undefined);
      }
      return Promise.resolve(entry.value);
    }
    return this.pending.get(key) ?? this.start(key, compute);
  }

  peek(key: string): V | undefined {
    return this.fresh(key)?.value;
  }

  set(key: string, value: V): void {
    if (this.entries.size >= this.maxEntries && !this.entries.has(key)) {
      // Oldest insertion first: Map iteration order.
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.delete(key);
    this.entries.set(key, { value, stored: this.now() });
  }

  private fresh(key: string): Entry<V> | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.now() - entry.stored < this.ttlMs) return entry;
    this.entries.delete(key);
    return undefined;
  }

  private start(key: string, compute: () => Promise<V>): Promise<V> {
    let computed: Promise<V>;
    try {
      computed = compute();
    } catch (error) {
      computed = Promise.reject(error);
    }
    const promise = computed
      .then((value) => {
        this.set(key, value);
        return value;
      })
      .finally(() => this.pending.delete(key));
    this.pending.set(key, promise);
    return promise;
  }
}
