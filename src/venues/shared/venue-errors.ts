// What can go wrong talking to an exchange, split the way the order-outcome policy needs it: the exchange answered
// and said no (VenueStatusError), no answer came (VenueTransportError: the request may or may not have been
// processed), or the answer was not what the exchange documents (VenuePayloadError). mapVenueError turns them into
// the wire contract's codes through a venue's own table, exact rules first, then these defaults.
import type { ExchangeId } from '../../domain/exchanges.js';
import { AppError } from '../../errors/app-error.js';
import type { ErrorCode } from '../../errors/codes.js';

export class VenueStatusError extends Error {
  override readonly name = 'VenueStatusError';
  constructor(
    readonly venue: ExchangeId,
    readonly operation: string,
    readonly status: number,
    /** The response body as text (bounded); may hold the venue's error message, never our secrets. */
    readonly body: string,
    readonly retryAfterMs: number | null,
    /** How many attempts were made before giving up (1 = no retry). */
    readonly attempts: number,
  ) {
    super(`${venue} ${operation}: HTTP ${status}`);
  }

  /** The venue's own error text: `error`, `message`, `errorMsg` or `error.message` of a JSON body, else the text. */
  venueMessage(): string {
    try {
      const parsed = JSON.parse(this.body) as unknown;
      const text = pickMessage(parsed);
      if (text) return text;
    } catch {
      // not JSON: the text itself
    }
    return this.body.slice(0, 300);
  }
}

function pickMessage(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null) return null;
  const record = value as Record<string, unknown>;
  for (const key of ['error', 'message', 'errorMsg', 'error_message', 'msg', 'errmsg', 'detail'] as const) {
    const v = record[key];
    if (typeof v === 'string' && v.length > 0) return v;
    if (typeof v === 'object' && v !== null) {
      const nested = pickMessage(v);
      if (nested) return nested;
    }
  }
  return null;
}

export type TransportFailure = 'timeout' | 'network' | 'refused' | 'too_large';

export class VenueTransportError extends Error {
  override readonly name = 'VenueTransportError';
  constructor(
    readonly venue: ExchangeId,
    readonly operation: string,
    readonly failure: TransportFailure,
    /** False only when the request provably never reached the venue (connection refused, our own pacing). */
    readonly maybeProcessed: boolean,
    readonly attempts: number,
    cause?: unknown,
  ) {
    super(`${venue} ${operation}: ${failure}`, cause === undefined ? undefined : { cause });
  }
}

export class VenuePayloadError extends Error {
  override readonly name = 'VenuePayloadError';
  constructor(
    readonly venue: ExchangeId,
    readonly operation: string,
    readonly problems: string[],
    /**
     * JSON pointers of the fields that did not decode (never their values): the exchange's format changed. Empty when
     * the answer was not JSON at all (cut short, an HTML error page), which says the exchange is failing instead.
     */
    readonly paths: readonly string[] = [],
  ) {
    super(`${venue} ${operation}: unexpected payload (${problems.slice(0, 3).join('; ')})`);
  }
}

/**
 * The VenuePayloadError with paths (a format the exchange changed) an error is, or was caused by (adapters wrap it in
 * an AppError); null when none.
 */
export function payloadErrorIn(error: unknown): VenuePayloadError | null {
  let e: unknown = error;
  for (let depth = 0; depth < 5 && e instanceof Error; depth++) {
    if (e instanceof VenuePayloadError) return e.paths.length > 0 ? e : null;
    e = e.cause;
  }
  return null;
}

/** One row of a venue's error table: exact matches come first in the table, broad substrings after. */
export interface VenueErrorRule {
  status?: number | readonly number[];
  /** Matched against the venue's message: a string is a case-insensitive substring. */
  message?: string | RegExp;
  /** Matched against a machine code the venue sent, when it has them. */
  venueCode?: string;
  code: ErrorCode;
  /** Our message; defaults to "<venue> refused the request: <venue message>". */
  describe?: (venueMessage: string) => string;
}

export function mapVenueError(
  error: unknown,
  rules: readonly VenueErrorRule[],
  venueCodeOf: (err: VenueStatusError) => string | null = () => null,
): unknown {
  if (error instanceof VenueTransportError) {
    const what = error.failure === 'timeout' ? 'did not answer in time' : 'could not be reached';
    return new AppError('service_unavailable', `${error.venue} ${what}`, { cause: error });
  }
  if (error instanceof VenuePayloadError && error.paths.length === 0) {
    return new AppError('service_unavailable', `${error.venue} sent an unexpected answer`, { cause: error });
  }
  if (error instanceof VenuePayloadError) {
    // A 503 of its own code, so a client (and the operator) can tell "the exchange changed its format" from "the
    // exchange is down": retrying soon will not help until the exchange or this build changes. Paths, never values.
    return new AppError(
      'exchange_format_changed',
      `${error.venue} answered ${error.operation} in a format this build cannot read (at ${error.paths.slice(0, 3).join(', ')}): the exchange may have changed its API`,
      { cause: error },
    );
  }
  if (!(error instanceof VenueStatusError)) return error;
  const message = error.venueMessage();
  const venueCode = venueCodeOf(error);
  for (const rule of rules) {
    if (rule.status !== undefined) {
      const statuses = typeof rule.status === 'number' ? [rule.status] : rule.status;
      if (!statuses.includes(error.status)) continue;
    }
    if (rule.venueCode !== undefined && rule.venueCode !== venueCode) continue;
    if (rule.message !== undefined && !matches(rule.message, message)) continue;
    const text = rule.describe ? rule.describe(message) : `${error.venue} refused the request: ${message}`;
    return new AppError(rule.code, text, { cause: error });
  }
  return defaultMapping(error, message);
}

function matches(pattern: string | RegExp, text: string): boolean {
  return typeof pattern === 'string'
    ? text.toLowerCase().includes(pattern.toLowerCase())
    : pattern.test(text);
}

function defaultMapping(error: VenueStatusError, message: string): AppError {
  const { venue, status } = error;
  if (status === 429) {
    return new AppError(
      'service_unavailable',
      `${venue} is rate limiting us (gave up after ${error.attempts} attempts)`,
      {
        cause: error,
        ...(error.retryAfterMs !== null
          ? { headers: { 'retry-after': String(Math.ceil(error.retryAfterMs / 1000)) } }
          : {}),
      },
    );
  }
  if (status >= 500)
    return new AppError('service_unavailable', `${venue} answered ${status}`, { cause: error });
  if (status === 401 || status === 403) {
    return new AppError('authentication_failed', `${venue} rejected the credentials: ${message}`, {
      cause: error,
    });
  }
  if (status === 404) return new AppError('not_found', `${venue}: ${message}`, { cause: error });
  return new AppError('bad_request', `${venue} refused the request: ${message}`, { cause: error });
}
