// Fault injection shared by every simulator, switched at runtime through POST /__sim/faults (not part of any
// real API): added latency, a deterministic error rate, 429s with Retry-After (for the next N requests or until
// cleared), malformed answers (cut short, or every value of the wrong type) and a stalled feed. Each simulator renders
// the decision in its own exchange's error style.
// A latency or a held answer also ends when the settings change, so a test can hold a request for as long as it
// needs and let it go at a moment it chooses (an explicit signal) instead of racing its own timers against ours.
import type { ServerResponse } from 'node:http';
import { ownValue } from './own-key.js';

export interface FaultSettings {
  /** Added to every venue request before it is answered (cut short when the settings change). */
  latency_ms: number;
  /** Fraction 0..1 of requests answered with `error_status`; deterministic (every 1/rate-th request). */
  error_rate: number;
  error_status: number;
  /** 429 with `Retry-After: retry_after` (seconds); `remaining` null = until cleared, else for that many requests. */
  rate_limit: { retry_after: number; remaining: number | null } | null;
  /**
   * Successful JSON answers are corrupted after the handler wrote them: `truncated` cuts the body in half (not JSON
   * any more), `wrong_types` keeps the JSON's shape but turns every string into `true` and every number and boolean
   * into `"?"` (valid JSON that no reader of the venue's schema can accept). Error answers are left alone.
   */
  malformed: Malformation | null;
  /** Streams stay connected but send nothing (books, trades and heartbeats freeze). */
  stall_feed: boolean;
  /**
   * The request is processed, then its answer is held back this long (or until the settings change): to the client,
   * an answer lost in transit.
   */
  hold_response_ms: number;
  /**
   * Routes the request faults apply to, as `METHOD /path` (a trailing `*` matches a prefix); empty = every route.
   * Stream faults (`stall_feed`) are not limited by it.
   */
  only: string[];
}

export type Malformation = 'truncated' | 'wrong_types';

export type FaultDecision =
  | { kind: 'rate_limited'; retryAfterSeconds: number }
  | { kind: 'error'; status: number }
  | null;

export class FaultSettingsError extends Error {
  override readonly name = 'FaultSettingsError';
}

const DEFAULTS: FaultSettings = {
  latency_ms: 0,
  error_rate: 0,
  error_status: 500,
  rate_limit: null,
  malformed: null,
  stall_feed: false,
  hold_response_ms: 0,
  only: [],
};

export interface FaultTarget {
  method: string;
  path: string;
}

export class SimFaults {
  private current: FaultSettings = { ...DEFAULTS };
  private counter = 0;
  private withheldFrames = 0;
  /** Bumped by every change of the settings; a hold set up under older settings no longer applies. */
  private generation = 0;
  /** Latencies being waited out and answers held back; each ends early when the settings change. */
  private readonly pending = new Set<() => void>();

  get settings(): Readonly<FaultSettings> {
    return this.current;
  }

  /** Replaces the settings; fields left out go back to their defaults. */
  set(body: unknown): FaultSettings {
    const b = (body ?? {}) as Record<string, unknown>;
    const num = (key: string, min: number, max: number, fallback: number): number => {
      const v = ownValue(b, key);
      if (v === undefined) return fallback;
      if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) {
        throw new FaultSettingsError(`${key} must be a number in [${min}, ${max}]`);
      }
      return v;
    };
    let rateLimit: FaultSettings['rate_limit'] = null;
    if (b.rate_limit !== undefined && b.rate_limit !== null) {
      const r = b.rate_limit as Record<string, unknown>;
      const retryAfter = r.retry_after ?? 1;
      const count = r.count ?? null;
      if (typeof retryAfter !== 'number' || retryAfter < 0) {
        throw new FaultSettingsError('rate_limit.retry_after must be seconds >= 0');
      }
      if (count !== null && (typeof count !== 'number' || !Number.isInteger(count) || count < 1)) {
        throw new FaultSettingsError('rate_limit.count must be a positive integer');
      }
      rateLimit = { retry_after: retryAfter, remaining: count };
    }
    const malformed = b.malformed ?? null;
    if (malformed !== null && malformed !== 'truncated' && malformed !== 'wrong_types') {
      throw new FaultSettingsError('malformed must be "truncated", "wrong_types" or null');
    }
    if (b.stall_feed !== undefined && typeof b.stall_feed !== 'boolean') {
      throw new FaultSettingsError('stall_feed must be a boolean');
    }
    const only = b.only ?? [];
    if (!Array.isArray(only) || !only.every((r) => typeof r === 'string' && /^[A-Z]+ \/\S*$/.test(r))) {
      throw new FaultSettingsError('only must be a list of "METHOD /path" strings');
    }
    this.current = {
      latency_ms: num('latency_ms', 0, 120_000, 0),
      error_rate: num('error_rate', 0, 1, 0),
      error_status: num('error_status', 400, 599, 500),
      rate_limit: rateLimit,
      malformed,
      stall_feed: b.stall_feed === true,
      hold_response_ms: num('hold_response_ms', 0, 120_000, 0),
      only: only as string[],
    };
    this.counter = 0;
    this.releasePending();
    return this.current;
  }

  reset(): void {
    this.current = { ...DEFAULTS };
    this.counter = 0;
    this.releasePending();
  }

  /** Requests waiting out a latency or an answer held back right now (GET /__sim/held). */
  get held(): number {
    return this.pending.size;
  }

  /** Stream frames a stalled feed has not delivered since the simulator started (GET /__sim/feed). */
  get withheld(): number {
    return this.withheldFrames;
  }

  /**
   * Whether a stream frame (message or pong) must be dropped because the feed is stalled; a dropped frame is
   * counted, so a test learns from the control surface that the simulator did receive what it sent meanwhile.
   */
  withhold(): boolean {
    if (!this.current.stall_feed) return false;
    this.withheldFrames += 1;
    return true;
  }

  /** Whether request faults apply to this request (all do unless `only` names routes). */
  applies(target?: FaultTarget): boolean {
    const { only } = this.current;
    if (only.length === 0) return true;
    if (!target) return false;
    const route = `${target.method} ${target.path}`;
    return only.some((r) => (r.endsWith('*') ? route.startsWith(r.slice(0, -1)) : route === r));
  }

  /**
   * Waits the configured latency, then says whether this request is answered with a fault instead. Simulators
   * pass the request's method and path so `only` can aim faults at one route.
   */
  async gate(target?: FaultTarget, signal?: AbortSignal): Promise<FaultDecision> {
    if (!this.applies(target)) return null;
    const { latency_ms: latency, rate_limit: rateLimit, error_rate: rate } = this.current;
    if (latency > 0) await this.wait(latency, signal);
    if (rateLimit) {
      if (rateLimit.remaining !== null) {
        rateLimit.remaining -= 1;
        if (rateLimit.remaining <= 0) this.current.rate_limit = null;
      }
      return { kind: 'rate_limited', retryAfterSeconds: rateLimit.retry_after };
    }
    this.counter += 1;
    if (rate > 0 && Math.floor(this.counter * rate) > Math.floor((this.counter - 1) * rate)) {
      return { kind: 'error', status: this.current.error_status };
    }
    return null;
  }

  /**
   * Holds back whatever the handler writes to `res` for `hold_response_ms`, or until the settings change, when the
   * request faults apply to this request (the request itself is processed at once).
   */
  holdResponse(res: { end: (...args: never[]) => unknown }, target?: FaultTarget): void {
    const ms = this.current.hold_response_ms;
    if (ms <= 0 || !this.applies(target)) return;
    const generation = this.generation;
    const end = res.end.bind(res) as (...args: unknown[]) => unknown;
    (res as { end: (...args: unknown[]) => unknown }).end = (...args: unknown[]) => {
      if (generation !== this.generation) end(...args);
      else void this.wait(ms).then(() => end(...args));
      return res;
    };
  }

  /**
   * Corrupts the successful answer the handler writes to `res` when `malformed` is set and the request faults apply
   * to this request. The status and headers stay (Content-Length is recomputed), so the client sees a 2xx it cannot
   * read, as from a venue deploying a broken build.
   */
  malformResponse(res: ServerResponse, target?: FaultTarget): void {
    const mode = this.current.malformed;
    if (mode === null || !this.applies(target)) return;
    const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    let ok = false;
    (res as { writeHead: (...args: unknown[]) => ServerResponse }).writeHead = (...args: unknown[]) => {
      ok = typeof args[0] === 'number' && args[0] >= 200 && args[0] < 300;
      const headers = args.find((a, i) => i > 0 && typeof a === 'object' && a !== null && !Array.isArray(a));
      if (ok && headers) {
        // The body's length changes: Node sets the new one at end().
        const kept = Object.entries(headers).filter(([k]) => k.toLowerCase() !== 'content-length');
        return writeHead(
          args[0],
          ...args.slice(1).map((a) => (a === headers ? Object.fromEntries(kept) : a)),
        );
      }
      return writeHead(...args);
    };
    (res as { end: (...args: unknown[]) => ServerResponse }).end = (...args: unknown[]) => {
      const [chunk] = args;
      if (
        !(ok || (!res.headersSent && res.statusCode < 300)) ||
        chunk === undefined ||
        typeof chunk === 'function'
      ) {
        return end(...args);
      }
      if (!res.headersSent) res.removeHeader('content-length');
      return end(malformBody(Buffer.from(chunk as string | Uint8Array).toString('utf8'), mode));
    };
  }

  /** Resolves after `ms`, when the signal aborts, or when the settings change, whichever comes first. */
  private wait(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        this.pending.delete(done);
        resolve();
      };
      // Unreferenced: a request still held when its test ends must not keep the process alive.
      const timer = setTimeout(done, ms);
      timer.unref();
      signal?.addEventListener('abort', done, { once: true });
      this.pending.add(done);
    });
  }

  private releasePending(): void {
    this.generation += 1;
    for (const done of [...this.pending]) done();
  }
}

/** The corrupted body for a malformed-payload fault. */
export function malformBody(text: string, mode: Malformation): string {
  if (mode === 'truncated') return text.slice(0, Math.floor(text.length / 2));
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text.slice(0, Math.floor(text.length / 2));
  }
  const wrong = (v: unknown): unknown => {
    if (typeof v === 'string') return true;
    if (typeof v === 'number' || typeof v === 'boolean') return '?';
    if (Array.isArray(v)) return v.map(wrong);
    if (v && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, wrong(x)]));
    return v;
  };
  return JSON.stringify(wrong(parsed));
}
