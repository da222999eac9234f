// On-demand venue lookups (a market the catalogue does not hold, asked of its exchange) cost the operator's own
// exchange quota, which every customer shares: one customer's misses could drive it into 429s and open the venue's
// circuit breaker for everyone. So each customer gets a token bucket of lookups (its tier's venueLookupsPerSecond
// and venueLookupsBurst), and a lookup it cannot pay for is not made.
//
// The buckets live in this process: with several nodes behind a balancer a customer may spend up to one budget per
// node. That bounds what each node sends upstream, which is what its exchange quota and circuit breaker see.
import type { TierLimits } from '../../domain/tiers.js';
import type { Bucket } from '../../domain/token-bucket.js';

export type LookupRate = Pick<TierLimits, 'venueLookupsPerSecond' | 'venueLookupsBurst'>;

export interface Granted {
  /** Lookups the caller may make now (at most what it asked for); the tokens are spent. */
  granted: number;
  /** When granted falls short: how long until the rest (up to a burst) could be paid for. */
  retryAfterMs: number;
}

/** Buckets kept before full ones (indistinguishable from a new bucket) are forgotten. */
const SWEEP_AT = 10_000;

export class LookupBudget {
  /** Each bucket keeps the rate it was last taken at, so a sweep can tell a full one. */
  private readonly buckets = new Map<string, Bucket & LookupRate>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Spends up to `wanted` of the customer's lookup tokens. A rate of 0 means unlimited. */
  take(customer: string, wanted: number, rate: LookupRate): Granted {
    const { venueLookupsPerSecond: perSecond, venueLookupsBurst: burst } = rate;
    if (wanted <= 0 || perSecond <= 0) return { granted: Math.max(0, wanted), retryAfterMs: 0 };
    const now = this.now();
    let bucket = this.buckets.get(customer);
    if (!bucket) {
      if (this.buckets.size >= SWEEP_AT) this.sweep(now);
      bucket = { tokens: burst, updatedAt: now, ...rate };
      this.buckets.set(customer, bucket);
    }
    bucket.venueLookupsPerSecond = perSecond;
    bucket.venueLookupsBurst = burst;
    refill(bucket, perSecond, burst, now);
    const granted = Math.min(wanted, Math.floor(bucket.tokens));
    bucket.tokens -= granted;
    if (granted === wanted) return { granted, retryAfterMs: 0 };
    const short = Math.min(wanted - granted, burst) - bucket.tokens;
    return { granted, retryAfterMs: Math.ceil((short * 1000) / perSecond) };
  }

  private sweep(now: number): void {
    for (const [customer, b] of this.buckets) {
      refill(b, b.venueLookupsPerSecond, b.venueLookupsBurst, now);
      if (b.tokens >= b.venueLookupsBurst) this.buckets.delete(customer);
    }
  }
}

function refill(bucket: Bucket, perSecond: number, burst: number, now: number): void {
  const elapsed = Math.max(0, now - bucket.updatedAt);
  bucket.tokens = Math.min(burst, bucket.tokens + (elapsed * perSecond) / 1000);
  bucket.updatedAt = now;
}
