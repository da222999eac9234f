// The CLOB's `/clob-markets/{condition}` answer (tokens, tick size, neg-risk flag, fee terms), kept per condition so
// that placing an order costs one round trip to the exchange, not two: the official SDK keeps the same facts per
// token for the life of its client (`ClobClient.getClobMarketInfo` fills `tickSizes` / `negRisk` / `feeInfos`).
// A long-running server cannot keep them forever, because the tick size changes when a price nears 0 or 1
// (`tick_size_change`): an entry lives `ttlMs`, and the order path asks again at once when a cached entry's tick
// refuses an order or the exchange refuses one for its tick (`invalidate`). Concurrent misses share one request.
import type { VenueContext } from '../port.js';

export class MarketInfoCache<T> {
  private readonly entries = new Map<string, { value: T; expiresAt: number }>();
  private readonly loading = new Map<string, Promise<T>>();

  constructor(
    private readonly load: (ctx: VenueContext, conditionId: string) => Promise<T>,
    private readonly ttlMs = 30_000,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The condition's info and whether it came from the cache; `fresh` always asks the exchange. */
  async get(ctx: VenueContext, conditionId: string, fresh = false): Promise<{ value: T; cached: boolean }> {
    const id = conditionId.toLowerCase();
    const entry = this.entries.get(id);
    if (!fresh && entry && entry.expiresAt > this.now()) return { value: entry.value, cached: true };
    let pending = this.loading.get(id);
    if (!pending) {
      pending = this.load(ctx, conditionId).finally(() => this.loading.delete(id));
      this.loading.set(id, pending);
    }
    const value = await pending;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(id, { value, expiresAt: this.now() + this.ttlMs });
    return { value, cached: false };
  }

  invalidate(conditionId: string): void {
    this.entries.delete(conditionId.toLowerCase());
  }
}
