// Admission control decides, per request, whether a key may proceed: monthly quota first (a spent month does
// not burn tokens), then the token bucket; admitted requests count toward the month.
import type { Principal } from '../principal.js';

export type AdmitResult =
  | { allowed: true; monthlyUsed: number; tokensLeft: number }
  | { allowed: false; reason: 'rate'; retryAfterMs: number; monthlyUsed: number }
  | { allowed: false; reason: 'monthly'; monthlyUsed: number };

/** A token bucket named by its owner: an end-user's key (its id) or a builder's pool (the builder's customer id). */
export interface BucketLimit {
  id: string;
  rate: number;
  burst: number;
}

/** A builder acting for one of its end-users: the request draws on the end-user's bucket and the builder's pool. */
export interface OnBehalf {
  user: BucketLimit;
  pool: BucketLimit;
}

/** Tokens left in each bucket after the decision (after the refill, and after the take when admitted). */
export interface BehalfTokens {
  userTokens: number;
  poolTokens: number;
}

export type BehalfResult =
  | ({ allowed: true; monthlyUsed: number } & BehalfTokens)
  | ({
      allowed: false;
      reason: 'rate';
      limit: 'user' | 'pool';
      retryAfterMs: number;
      monthlyUsed: number;
    } & BehalfTokens)
  | { allowed: false; reason: 'monthly'; monthlyUsed: number };

export interface AdmissionControl {
  readonly backend: 'memory' | 'redis';
  /** May answer synchronously (in-process limiter with a warm ledger) to keep the hot path promise-free. */
  admit(principal: Principal, periodId: string): AdmitResult | Promise<AdmitResult>;
  /**
   * Builder impersonation: the builder key's month is checked and counted (the builder is billed), and a token is
   * taken from both the end-user's bucket (the one its own key uses) and the builder's pool, or from neither.
   */
  admitOnBehalf(
    principal: Principal,
    behalf: OnBehalf,
    periodId: string,
  ): BehalfResult | Promise<BehalfResult>;
  /** Requests counted so far this period (admitted ones), as known to this node. */
  monthlyUsed(keyId: string, periodId: string): Promise<number>;
  /** Writes counted requests to the database; called on a timer and at shutdown. */
  flush(): Promise<void>;
  close(): Promise<void>;
}
