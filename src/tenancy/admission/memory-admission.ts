// Single-node admission: buckets in a Map, monthly counts in the usage ledger.

import { type Bucket, takeToken } from '../../domain/token-bucket.js';
import type { UsageRepo } from '../../store/usage-repo.js';
import type { Principal } from '../principal.js';
import type { AdmissionControl, AdmitResult } from './admission.js';
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
