// When a failed REST call is tried again, and after how long. Only what cannot act twice is repeated: reads,
// deletes and patches; POST /orders, which always carries an Idempotency-Key (the client adds one); the POSTs the
// API documents as idempotent; and any request the server refused at admission (429), which it never ran.
import type { OmnibookError } from './errors.js';

export interface RetryOptions {
  /** Attempts after the first (default 3). 0 disables retries. */
  maxRetries?: number;
  /** First backoff without a Retry-After (default 250 ms), doubled per attempt with full jitter. */
  baseDelayMs?: number;
  /** Longest backoff without a Retry-After (default 5 s). */
  maxDelayMs?: number;
  /** A Retry-After longer than this is not waited for: the error is thrown at once (default 60 s). */
  maxRetryAfterMs?: number;
}

export const RETRY_DEFAULTS: Required<RetryOptions> = {
  maxRetries: 3,
  baseDelayMs: 250,
  maxDelayMs: 5_000,
  maxRetryAfterMs: 60_000,
};

/** POSTs that are safe to repeat: the order route with its Idempotency-Key, and the documented idempotent ones. */
const REPEATABLE_POSTS: ReadonlySet<string> = new Set([
  '/api/v1/orders',
  '/api/v1/route/orders',
  '/api/v1/arbitrage/execute',
  '/api/v1/onboard',
  '/api/v1/builder/users',
  '/api/v1/builder/onboard',
]);

/** Whether `error` on `method path` may be tried again (the attempt budget aside). */
export function mayRetry(method: string, path: string, error: OmnibookError): boolean {
  if (!error.retryable) return false;
  // A 429 is the admission check refusing the request before any route ran: nothing happened, any method repeats.
  if (error.status === 429) return true;
  const m = method.toUpperCase();
  if (m === 'GET' || m === 'HEAD' || m === 'DELETE' || m === 'PATCH' || m === 'PUT') return true;
  return m === 'POST' && REPEATABLE_POSTS.has(path);
}

/** Milliseconds to wait before attempt `attempt` (1 = the first retry), or null to give up now. */
export function retryDelay(
  error: OmnibookError,
  attempt: number,
  options: Required<RetryOptions>,
  random: () => number = Math.random,
): number | null {
  if (error.retryAfterMs !== null) {
    return error.retryAfterMs <= options.maxRetryAfterMs ? error.retryAfterMs : null;
  }
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling * random());
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
