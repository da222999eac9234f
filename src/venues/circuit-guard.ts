// Puts a venue's circuit breaker in front of every request-shaped facet method of its adapter, so every caller
// (routes, the catalogue sync, the order reconciler, the wallet pollers) meets the same breaker without knowing it.
// The registry applies it once per adapter. Streams are left alone: they keep their own reconnect, stale and resync
// rules (a book from a dead feed is already never served), and an open circuit must not cut a feed that works.
// `ping` is left alone too: it is the operator's own look at the venue and never throws.
// The guard is also where the drift alarm hears of answers that failed their decoder: every request's failure passes
// here, and each stream is opened with a sink for the frames it could not read.
import { type Admission, CircuitBreaker, type CircuitPolicy } from '../domain/circuit-breaker.js';
import type { PayloadDrift } from '../domain/payload-drift.js';
import { AppError } from '../errors/app-error.js';
import { isUpstreamFailure } from '../errors/codes.js';
import type { DriftSink, StreamContext, VenueAdapter, VenueContext } from './port.js';
import { payloadErrorIn } from './shared/venue-errors.js';

/** Facet methods that open a long-lived stream (synchronous, not a request). */
const STREAM_METHODS = new Set(['openMarketStream', 'openUserStream']);

export function guardAdapter(
  adapter: VenueAdapter,
  breaker: CircuitBreaker,
  drift?: PayloadDrift,
): VenueAdapter {
  const venue = adapter.descriptor.id;
  const noteDrift: DriftSink = (error) => {
    const payload = payloadErrorIn(error);
    if (payload) drift?.record(payload.venue, payload.operation, payload.paths);
  };
  const call = async (
    method: (...args: unknown[]) => unknown,
    self: object,
    args: unknown[],
    label: string | null,
  ) => {
    const admission = breaker.admit();
    if (!admission.admitted) throw refusal(venue, breaker, admission.retryAfterMs);
    let result: unknown;
    try {
      result = await method.apply(self, args);
    } catch (error) {
      noteDrift(error);
      settleFailure(breaker, admission, error, args[0] as VenueContext | undefined, label);
      throw error;
    }
    breaker.success(admission);
    return result;
  };
  /**
   * `sessions`: the facet acts for one customer's session, so its failure messages are not repeated to others (the
   * breaker's last error shows in /healthz and in every refusal); only the method name is kept.
   */
  const guard = <F extends object>(facet: F, sessions: boolean): F => {
    const guarded = methodNames(facet).map(([name, method]) => [
      name,
      STREAM_METHODS.has(name)
        ? (ctx: StreamContext, ...rest: unknown[]) =>
            method.call(facet, { ...ctx, drift: noteDrift }, ...rest)
        : (...args: unknown[]) => call(method, facet, args, sessions ? `${name} failed upstream` : null),
    ]);
    return Object.fromEntries(guarded) as F;
  };
  return {
    descriptor: adapter.descriptor,
    catalog: guard(adapter.catalog, false),
    marketData: guard(adapter.marketData, false),
    trading: guard(adapter.trading, true),
    ping: (ctx, session) => adapter.ping(ctx, session),
    ...(adapter.close ? { close: () => adapter.close?.() ?? Promise.resolve() } : {}),
  };
}

/** What an adapter's failure says about the venue. */
function settleFailure(
  breaker: CircuitBreaker,
  admission: Admission & { admitted: true },
  error: unknown,
  ctx: VenueContext | undefined,
  label: string | null,
): void {
  // Only the upstream-failure code counts: a 4xx is the venue answering, a non-AppError is our own bug.
  if (!(error instanceof AppError)) {
    breaker.release(admission);
    return;
  }
  if (!isUpstreamFailure(error.code)) {
    breaker.success(admission);
    return;
  }
  // A caller that went away (client disconnect, server stop) says nothing about the venue; its deadline does.
  const signal = ctx?.signal;
  if (signal?.aborted && (signal.reason as Error | undefined)?.name !== 'TimeoutError') {
    breaker.release(admission);
    return;
  }
  breaker.failure(admission, label ?? error.message);
}

function refusal(venue: string, breaker: CircuitBreaker, retryAfterMs: number): AppError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new AppError(
    'service_unavailable',
    `${venue} is failing (circuit open after ${breaker.consecutiveFailures} failures in a row, last: ${breaker.lastError}); not called, retry in ${seconds} s`,
    { headers: { 'retry-after': String(seconds) } },
  );
}

type Method = (...args: unknown[]) => unknown;

/**
 * Function-valued properties of a facet, its own and its class's (adapters build facets either way), read through
 * the property descriptors of the chain below Object.prototype: names come from the object itself, never from
 * outside input.
 */
function methodNames(facet: object): Array<[string, Method]> {
  const found = new Map<string, Method>();
  for (let o: object | null = facet; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    for (const [name, d] of Object.entries(Object.getOwnPropertyDescriptors(o))) {
      if (name !== 'constructor' && !found.has(name) && typeof d.value === 'function') {
        found.set(name, d.value as Method);
      }
    }
  }
  return [...found];
}

export { CircuitBreaker, type CircuitPolicy };
