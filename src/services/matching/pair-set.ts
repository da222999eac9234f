// Unordered pairs of market ids a walk has already emitted, grouped by the higher id. A full walk visits ids in
// ascending order and asks about a pair only while at one of its ends, so once past an id it releases that id's
// pairs: what it holds is the pairs still open ahead of it, not every link of the catalogue (a set of `lo:hi`
// strings grew with every link a million markets have).
export class PairSet {
  private readonly byHigh = new Map<number, Set<number>>();

  has(a: number, b: number): boolean {
    const [lo, hi] = a < b ? [a, b] : [b, a];
    return this.byHigh.get(hi)?.has(lo) ?? false;
  }

  /** Adds the pair; answers whether it was new. */
  add(a: number, b: number): boolean {
    const [lo, hi] = a < b ? [a, b] : [b, a];
    let lows = this.byHigh.get(hi);
    if (!lows) {
      lows = new Set();
      this.byHigh.set(hi, lows);
    }
    if (lows.has(lo)) return false;
    lows.add(lo);
    return true;
  }

  /** Forgets the pairs whose higher id is `id` (a full walk calls it once past `id`). */
  release(id: number): void {
    this.byHigh.delete(id);
  }
}
