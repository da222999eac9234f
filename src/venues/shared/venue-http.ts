// HTTP transport every venue adapter uses (undici, keep-alive): paces itself to the venue's published limits,
// gives each attempt a deadline, retries what is safe to retry with backoff (honouring Retry-After), and reports
// failures as VenueStatusError / VenueTransportError. It never retries a non-idempotent request after it may have
// reached the venue: an order is never submitted twice.
import { Agent, type Dispatcher, request, errors as undiciErrors } from 'undici';
import type { ExchangeId } from '../../domain/exchanges.js';
import { type Bucket, takeToken } from '../../domain/token-bucket.js';
import type { VenueContext } from '../port.js';
import { attemptDeadline } from './attempt-deadline.js';
import { type TransportFailure, VenueStatusError, VenueTransportError } from './venue-errors.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type QueryValue = string | number | boolean | undefined | null | readonly (string | number)[];

export interface RetryPolicy {
  /** Total attempts including the first. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the call gives up at once. */
  maxRetryAfterMs: number;
}

/** The time pacing and backoff read and wait on; the system clock unless a test brings its own. */
export interface TransportClock {
  now(): number;
  /** Resolves true after `ms`, or false at once when the signal aborts first. */
  sleep(ms: number, signal: AbortSignal): Promise<boolean>;
}

export interface VenueHttpOptions {
  venue: ExchangeId;
  baseUrl: string;
  /** Deadline of one attempt. */
  timeoutMs: number;
  rateLimit: { requestsPerSecond: number; burst: number };
  retry?: Partial<RetryPolicy>;
  /** No pacing at all: for a counterpart that publishes no limit (the sandbox's simulators). */
  unpaced?: boolean;
  /** Largest response body read; a bigger one is a transport failure rather than an out-of-memory. */
  maxResponseBytes?: number;
  dispatcher?: Dispatcher;
  clock?: TransportClock;
}

export interface VenueRequest {
  method: HttpMethod;
  /** Path relative to the base URL, without query string. */
  path: string;
  query?: Record<string, QueryValue>;
  /** The exact body bytes: request signatures are computed over them. */
  body?: string;
  /** Built per attempt, so signed headers carry a fresh timestamp on a retry. */
  headers?: Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);
  /** Safe to send again after an ambiguous failure (reads, cancels). An order submission never is. */
  idempotent: boolean;
  /** Short label for logs and errors; never holds secrets. */
  operation: string;
}

export interface VenueResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON; a SyntaxError for a non-JSON body (decodePayload turns it into VenuePayloadError). */
  json(): unknown;
}

const DEFAULT_RETRY: RetryPolicy = {
  attempts: 3,
  baseDelayMs: 200,
  maxDelayMs: 2_000,
  maxRetryAfterMs: 5_000,
};
const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

export class VenueHttp {
  readonly venue: ExchangeId;
  private readonly base: URL;
  private readonly retry: RetryPolicy;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly bucket: Bucket;
  private readonly maxResponseBytes: number;
  private readonly clock: TransportClock;

  constructor(private readonly options: VenueHttpOptions) {
    this.clock = options.clock ?? systemClock;
    this.venue = options.venue;
    this.base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl.slice(0, -1) : options.baseUrl);
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.ownsDispatcher = options.dispatcher === undefined;
    this.dispatcher =
      options.dispatcher ??
      new Agent({ keepAliveTimeout: 10_000, connections: 64, connect: { timeout: 5_000 } });
    this.bucket = { tokens: options.rateLimit.burst, updatedAt: this.clock.now() };
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  }

  /** The path as the venue sees it (base path + request path), which is what some venues sign. */
  pathOnWire(path: string): string {
    const prefix = this.base.pathname === '/' ? '' : this.base.pathname.replace(/\/$/, '');
    return `${prefix}${path}`;
  }

  url(path: string, query?: Record<string, QueryValue>): string {
    const url = new URL(this.base.origin);
    url.pathname = this.pathOnWire(path);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value === undefined || value === null) continue;
      if (Array.isArray(value)) for (const v of value) url.searchParams.append(key, String(v));
      else url.searchParams.set(key, String(value));
    }
    return url.toString();
  }

  /** Sends the request; resolves with any 2xx response, throws VenueStatusError / VenueTransportError otherwise. */
  async send(ctx: VenueContext, req: VenueRequest): Promise<VenueResponse> {
    const url = this.url(req.path, req.query);
    for (let attempt = 1; ; attempt++) {
      await this.pace(ctx, req.operation, attempt);
      let outcome: VenueResponse | VenueTransportError;
      try {
        outcome = await this.attempt(ctx, req, url);
      } catch (error) {
        outcome = this.classify(error, req.operation, attempt, ctx.signal);
      }
      if (outcome instanceof VenueTransportError) {
        const retryable = !outcome.maybeProcessed || req.idempotent;
        if (!retryable || attempt >= this.retry.attempts || ctx.signal.aborted) throw outcome;
        await this.backoff(ctx, attempt, null);
        continue;
      }
      if (outcome.status >= 200 && outcome.status < 300) {
        ctx.capture?.({
          venue: this.venue,
          kind: 'http',
          operation: req.operation,
          method: req.method,
          path: this.pathOnWire(req.path),
          body: outcome.text,
        });
        return outcome;
      }
      const retryAfterMs = parseRetryAfter(outcome.headers['retry-after'], this.clock.now());
      // A 429 means the venue did not process the request, so even an order may be sent again.
      const retryable = outcome.status === 429 || (outcome.status >= 500 && req.idempotent);
      const waitable = retryAfterMs === null || retryAfterMs <= this.retry.maxRetryAfterMs;
      if (!retryable || !waitable || attempt >= this.retry.attempts || ctx.signal.aborted) {
        throw new VenueStatusError(
          this.venue,
          req.operation,
          outcome.status,
          outcome.text.slice(0, 4_000),
          retryAfterMs,
          attempt,
        );
      }
      ctx.logger.debug(
        { venue: this.venue, operation: req.operation, status: outcome.status, attempt },
        'venue request will be retried',
      );
      await this.backoff(ctx, attempt, retryAfterMs);
    }
  }

  private closing: Promise<void> | null = null;

  /** Closes the connection pool once; later calls wait for the same close. */
  close(): Promise<void> {
    this.closing ??= this.ownsDispatcher ? this.dispatcher.close() : Promise.resolve();
    return this.closing;
  }

  private async attempt(ctx: VenueContext, req: VenueRequest, url: string): Promise<VenueResponse> {
    const headers = typeof req.headers === 'function' ? await req.headers() : { ...req.headers };
    if (req.body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
      headers['content-type'] = 'application/json';
    }
    headers.accept ??= 'application/json';
    const deadline = attemptDeadline(ctx.signal, this.options.timeoutMs);
    try {
      const res = await request(url, {
        method: req.method,
        headers,
        body: req.body,
        signal: deadline.signal,
        dispatcher: this.dispatcher,
      });
      const text = await readBounded(res.body, this.maxResponseBytes);
      return {
        status: res.statusCode,
        headers: res.headers,
        text,
        json: () => JSON.parse(text) as unknown,
      };
    } finally {
      deadline.clear();
    }
  }

  private classify(
    error: unknown,
    operation: string,
    attempt: number,
    signal: AbortSignal,
  ): VenueTransportError {
    let failure: TransportFailure = 'network';
    let maybeProcessed = true;
    const code = (error as { code?: string }).code;
    if (error instanceof ResponseTooLargeError) failure = 'too_large';
    else if (code === 'ECONNREFUSED' || error instanceof undiciErrors.ConnectTimeoutError) {
      failure = 'refused';
      maybeProcessed = false;
    } else if (
      signal.aborted ||
      (error as Error).name === 'TimeoutError' ||
      (error as Error).name === 'AbortError' ||
      error instanceof undiciErrors.HeadersTimeoutError ||
      error instanceof undiciErrors.BodyTimeoutError
    ) {
      failure = 'timeout';
    }
    return new VenueTransportError(this.venue, operation, failure, maybeProcessed, attempt, error);
  }

  /** Waits for a token of the venue's own rate limit, never past the caller's deadline. */
  private async pace(ctx: VenueContext, operation: string, attempt: number): Promise<void> {
    if (this.options.unpaced) return;
    const { requestsPerSecond, burst } = this.options.rateLimit;
    for (;;) {
      const taken = takeToken(this.bucket, requestsPerSecond, burst, this.clock.now());
      if (taken.allowed) return;
      if (!(await this.clock.sleep(taken.retryAfterMs, ctx.signal))) {
        throw new VenueTransportError(this.venue, operation, 'timeout', false, attempt);
      }
    }
  }

  private async backoff(ctx: VenueContext, attempt: number, retryAfterMs: number | null): Promise<void> {
    const exponential = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
    // Full jitter keeps many clients from retrying in lockstep; Retry-After is a floor the venue asked for.
    const delay = retryAfterMs ?? Math.round(exponential / 2 + (Math.random() * exponential) / 2);
    await this.clock.sleep(delay, ctx.signal);
  }
}

class ResponseTooLargeError extends Error {}

async function readBounded(
  body: AsyncIterable<Uint8Array> & { destroy(): void },
  max: number,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > max) {
      body.destroy();
      throw new ResponseTooLargeError(`response over ${max} bytes`);
    }
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Retry-After in ms: delay-seconds, or an HTTP date counted from `nowMs`. */
export function parseRetryAfter(raw: string | string[] | undefined, nowMs = Date.now()): number | null {
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined || value.trim() === '') return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - nowMs);
}

const systemClock: TransportClock = { now: () => Date.now(), sleep };

/** Resolves true after `ms`, or false at once when the signal aborts first. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
