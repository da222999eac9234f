// The bytes of recently served list and search pages, so a popular query is answered without the store. An entry
// holds the store's write generation it was computed at and is not served once the store has written since (this
// node's sync or an on-demand fetch). Past `ttlMs` it is still served, marked expired, while the caller refreshes it
// once in the background: that bounds what another node's writes can leave stale in a cluster (only the node holding
// the sync lease writes the catalogue) without ever putting a popular query back on the request path. Bounded by
// bytes, least recently used out first: a page of 100 markets is about 100 KiB.
export class PageCache {
  private readonly entries = new Map<string, { body: Buffer; generation: number; expires: number }>();
  private bytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The page when computed at `generation`; `expired` once its TTL has passed (serve it, and refresh it). */
  get(key: string, generation: number): { body: Buffer; expired: boolean } | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.generation !== generation) {
      this.remove(key, entry.body);
      return undefined;
    }
    // Most recently used last: Map iteration order is the eviction order.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return { body: entry.body, expired: entry.expires <= this.now() };
  }

  set(key: string, generation: number, body: Buffer): void {
    if (body.length > this.maxBytes / 4) return;
    const old = this.entries.get(key);
    if (old) this.remove(key, old.body);
    this.entries.set(key, { body, generation, expires: this.now() + this.ttlMs });
    this.bytes += body.length;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.remove(oldest, entry.body);
    }
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  private remove(key: string, body: Buffer): void {
    this.entries.delete(key);
    this.bytes -= body.length;
  }
}
