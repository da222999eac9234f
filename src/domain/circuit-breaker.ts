// One venue's circuit breaker: after `failureThreshold` upstream failures in a row the venue is left alone for
// `openMs` (callers get a retryable 503 at once instead of waiting out a deadline that is bound to pass), then one
// call is let through as a probe; its success closes the circuit, its failure opens it for another `openMs`.
// Consecutive failures rather than a failure rate: a venue answering some requests is not cut off, a venue
// answering none is noticed after a handful of calls whatever the traffic. Time is injected (tests step it).
import { type Static, Type } from 'typebox';
import type { ExchangeId } from './exchanges.js';

export const CircuitState = Type.Enum(['closed', 'open', 'half_open']);
export type CircuitState = Static<typeof CircuitState>;

export interface CircuitPolicy {
  /** Upstream failures in a row that open the circuit. */
  failureThreshold: number;
  /** How long an open circuit refuses calls before it lets one probe through. */
  openMs: number;
}

/** A call's pass through the breaker: `probe` when it is the one call a half-open circuit lets through. */
export type Admission = { admitted: true; probe: boolean } | { admitted: false; retryAfterMs: number };

export class CircuitBreaker {
  private current: CircuitState = 'closed';
  private failures = 0;
  private openedAt = 0;
  private probing = false;
  private lastFailure: string | null = null;
  private readonly counts = new Map<CircuitState, number>();

  constructor(
    readonly policy: CircuitPolicy,
    private readonly now: () => number = Date.now,
    private readonly onTransition?: (from: CircuitState, to: CircuitState) => void,
  ) {}

  /** The state as a caller would find it now (an open circuit past its wait reads half-open). */
  get state(): CircuitState {
    if (this.current === 'open' && this.now() >= this.openedAt + this.policy.openMs) return 'half_open';
    return this.current;
  }

  get consecutiveFailures(): number {
    return this.failures;
  }

  /** When the circuit last opened (Unix ms), or null while it is closed. */
  get openedAtMs(): number | null {
    return this.current === 'closed' ? null : this.openedAt;
  }

  /** The message of the last failure seen (kept after the circuit closes again). */
  get lastError(): string | null {
    return this.lastFailure;
  }

  /** Transitions into each state since start. */
  transitions(to: CircuitState): number {
    return this.counts.get(to) ?? 0;
  }

  admit(): Admission {
    if (this.current === 'closed') return { admitted: true, probe: false };
    if (this.current === 'open') {
      const wait = this.openedAt + this.policy.openMs - this.now();
      if (wait > 0) return { admitted: false, retryAfterMs: wait };
      this.move('half_open');
    }
    // Half-open: one probe at a time; the others are refused as if the circuit were still open.
    if (this.probing) return { admitted: false, retryAfterMs: this.policy.openMs };
    this.probing = true;
    return { admitted: true, probe: true };
  }

  /** The venue answered (whatever it said). */
  success(admission: { probe: boolean }): void {
    if (admission.probe) this.probing = false;
    // A late answer to a call let through before the circuit opened proves nothing about now; only a probe or a
    // call in the closed state counts.
    if (this.current === 'closed' || admission.probe) {
      this.failures = 0;
      if (this.current !== 'closed') this.move('closed');
    }
  }

  /** The venue did not answer usefully: 5xx, 429 after backoff, timeout, transport failure, malformed payload. */
  failure(admission: { probe: boolean }, message?: string): void {
    if (message !== undefined) this.lastFailure = message;
    if (admission.probe) {
      this.probing = false;
      this.failures += 1;
      this.open();
      return;
    }
    if (this.current !== 'closed') return;
    this.failures += 1;
    if (this.failures >= this.policy.failureThreshold) this.open();
  }

  /** The call ended without evidence either way (the caller went away, or our own bug). */
  release(admission: { probe: boolean }): void {
    if (admission.probe) this.probing = false;
  }

  private open(): void {
    this.openedAt = this.now();
    this.move('open');
  }

  private move(to: CircuitState): void {
    const from = this.current;
    if (from === to) return;
    this.current = to;
    this.counts.set(to, this.transitions(to) + 1);
    this.onTransition?.(from, to);
  }
}

/** One venue's breaker, as /healthz and /metrics report it. */
export interface VenueCircuit {
  exchange: ExchangeId;
  breaker: CircuitBreaker;
}

export const CircuitReport = Type.Object({
  state: CircuitState,
  consecutive_failures: Type.Integer({ minimum: 0 }),
  opened_at: Type.Union([Type.String(), Type.Null()], {
    description: 'When the circuit last opened (open or half-open)',
  }),
  last_error: Type.Union([Type.String(), Type.Null()], { description: 'The last upstream failure seen' }),
});
export type CircuitReport = Static<typeof CircuitReport>;

export function circuitReport(breaker: CircuitBreaker): CircuitReport {
  const opened = breaker.openedAtMs;
  return {
    state: breaker.state,
    consecutive_failures: breaker.consecutiveFailures,
    opened_at: opened === null ? null : new Date(opened).toISOString(),
    last_error: breaker.lastError,
  };
}
