// Single-node admission: buckets in a Map, monthly counts in the usage ledger.

import { type Bucket, takeToken } from '../../domain/token-bucket.js';
import type { UsageRepo } from '../../store/usage-repo.js';
import type { Principal } from '../principal.js';
import type { AdmissionControl, AdmitResult, BehalfResult, BucketLimit, OnBehalf } from './admission.js';
import { type LedgerEntry, UsageLedger } from './usage-ledger.js';

export class MemoryAdmission implements AdmissionControl {
  readonly backend = 'memory' as const;
  private readonly buckets = new Map<string, Bucket>();
  private readonly ledger: UsageLedger;

  constructor(
    repo: UsageRepo,
    private readonly clock: () => number = Date.now,
  ) {
    this.ledger = new UsageLedger(repo);
  }

  admit(principal: Principal, periodId: string): AdmitResult | Promise<AdmitResult> {
    const entry = this.ledger.peek(principal.keyId, periodId);
    if (entry) return this.decide(principal, entry);
    return this.ledger.load(principal.keyId, periodId).then((loaded) => this.decide(principal, loaded));
  }

  private decide(principal: Principal, entry: LedgerEntry): AdmitResult {
    const used = entry.base + entry.local;
    const monthlyLimit = principal.limits.monthlyRequests;
    if (monthlyLimit > 0 && used >= monthlyLimit)
      return { allowed: false, reason: 'monthly', monthlyUsed: used };
    const { restQps, restQpsBurst } = principal.limits;
    let bucket = this.buckets.get(principal.keyId);
    const now = this.clock();
    if (!bucket) {
      bucket = { tokens: restQpsBurst, updatedAt: now };
      this.buckets.set(principal.keyId, bucket);
    }
    const take = takeToken(bucket, restQps, restQpsBurst, now);
    if (!take.allowed)
      return { allowed: false, reason: 'rate', retryAfterMs: take.retryAfterMs, monthlyUsed: used };
    return { allowed: true, monthlyUsed: this.ledger.count(entry), tokensLeft: take.tokensLeft };
  }

  admitOnBehalf(
    principal: Principal,
    behalf: OnBehalf,
    periodId: string,
  ): BehalfResult | Promise<BehalfResult> {
    const entry = this.ledger.peek(principal.keyId, periodId);
    if (entry) return this.decideOnBehalf(principal, behalf, entry);
    return this.ledger
      .load(principal.keyId, periodId)
      .then((loaded) => this.decideOnBehalf(principal, behalf, loaded));
  }

  private decideOnBehalf(principal: Principal, behalf: OnBehalf, entry: LedgerEntry): BehalfResult {
    const used = entry.base + entry.local;
    const monthlyLimit = principal.limits.monthlyRequests;
    if (monthlyLimit > 0 && used >= monthlyLimit)
      return { allowed: false, reason: 'monthly', monthlyUsed: used };
    const now = this.clock();
    // The end-user's bucket is the one its own key draws on (same id); the pool lives beside the key buckets.
    const user = this.refilled(behalf.user.id, behalf.user, now);
    const pool = this.refilled(`pool:${behalf.pool.id}`, behalf.pool, now);
    const tokens = { userTokens: user.tokens, poolTokens: pool.tokens };
    if (user.tokens < 1) {
      const retryAfterMs = Math.ceil(((1 - user.tokens) * 1000) / behalf.user.rate);
      return { allowed: false, reason: 'rate', limit: 'user', retryAfterMs, monthlyUsed: used, ...tokens };
    }
    if (pool.tokens < 1) {
      const retryAfterMs = Math.ceil(((1 - pool.tokens) * 1000) / behalf.pool.rate);
      return { allowed: false, reason: 'rate', limit: 'pool', retryAfterMs, monthlyUsed: used, ...tokens };
    }
    user.tokens -= 1;
    pool.tokens -= 1;
    return {
      allowed: true,
      monthlyUsed: this.ledger.count(entry),
      userTokens: user.tokens,
      poolTokens: pool.tokens,
    };
  }

  /** The bucket brought up to `now` (created full), without taking from it. */
  private refilled(id: string, limit: BucketLimit, now: number): Bucket {
    let bucket = this.buckets.get(id);
    if (!bucket) {
      bucket = { tokens: limit.burst, updatedAt: now };
      this.buckets.set(id, bucket);
    }
    const elapsed = Math.max(0, now - bucket.updatedAt);
    bucket.tokens = Math.min(limit.burst, bucket.tokens + (elapsed * limit.rate) / 1000);
    bucket.updatedAt = now;
    return bucket;
  }

  async monthlyUsed(keyId: string, periodId: string): Promise<number> {
    const entry = await this.ledger.load(keyId, periodId);
    return entry.base + entry.local;
  }

  flush(): Promise<void> {
    return this.ledger.flush();
  }

  async close(): Promise<void> {
    await this.flush();
  }
}
