// The bytes of recently served list and search pages, so a popular query is answered without the store. An entry
// holds the catalogue's write generation it was computed at and is not served once the catalogue has changed since
// (MarketsRepo.writeGeneration: this node's writes, and other nodes' seen through the store's catalogue version).
// A page never expires by age: recomputing each popular page on a timer cost more than the queries it served.
// Bounded by bytes, least recently used out first: a page of 100 markets is about 100 KiB.
export class PageCache {
  private readonly entries = new Map<string, { body: Buffer; generation: number }>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  /** The page when computed at `generation`. */
  get(key: string, generation: number): Buffer | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.generation !== generation) {
      this.remove(key, entry.body);
      return undefined;
    }
    // Most recently used last: Map iteration order is the eviction order.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.body;
  }

  set(key: string, generation: number, body: Buffer): void {
    if (body.length > this.maxBytes / 4) return;
    const old = this.entries.get(key);
    if (old) this.remove(key, old.body);
    this.entries.set(key, { body, generation });
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
