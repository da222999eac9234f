// Admission control decides, per request, whether a key may proceed: monthly quota first (a spent month does
// not burn tokens), then the token bucket; admitted requests count toward the month.
import type { Principal } from '../principal.js';

export type AdmitResult =
  | { allowed: true; monthlyUsed: number; tokensLeft: number }
  | { allowed: false; reason: 'rate'; retryAfterMs: number; monthlyUsed: number }
  | { allowed: false; reason: 'monthly'; monthlyUsed: number };

export interface AdmissionControl {
  readonly backend: 'memory' | 'redis';
  /** May answer synchronously (in-process limiter with a warm ledger) to keep the hot path promise-free. */
  admit(principal: Principal, periodId: string): AdmitResult | Promise<AdmitResult>;
  /** Requests counted so far this period (admitted ones), as known to this node. */
  monthlyUsed(keyId: string, periodId: string): Promise<number>;
  /** Writes counted requests to the database; called on a timer and at shutdown. */
  flush(): Promise<void>;
  close(): Promise<void>;
}
