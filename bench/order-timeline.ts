// Where bench:orders' added latency goes, read from the diagnostics channels node:http, undici and Fastify publish
// (no mark in our code): for each order, when the server (or the relay) saw the request, when Fastify called the
// route, when the exchange's order request was created and its answer's headers arrived, when the server finished
// its answer, and when the client had it. The listeners cost every HTTP path a few µs, so these figures come from
// a phase of their own, after the headline figures were taken without them.
import diagnostics from 'node:diagnostics_channel';
import { performance } from 'node:perf_hooks';
import { percentile } from './support.js';

/** One order's moments, ms on performance.now(). */
export interface Timeline {
  start: number;
  serverStart?: number;
  handlerStart?: number;
  exchangeSent?: number;
  exchangeAnswered?: number;
  serverFinish?: number;
  end?: number;
}

interface ServerMessage {
  socket: { localPort?: number };
}
interface UndiciRequest {
  origin: string;
  method: string;
}

/**
 * Records the moments of the order under way (`begin` … `finish`). `servicePorts`: the loopback ports of our server
 * and the relay (the simulators are node:http servers too); `serviceOrigins`: their URLs (the client's requests to
 * them are not the exchange's).
 */
export class TimelineRecorder {
  private current: Timeline | null = null;
  private readonly created = new WeakMap<object, number>();
  private readonly listeners: Array<[string, (message: unknown) => void]>;

  constructor(servicePorts: number[], serviceOrigins: string[]) {
    const ours = (m: unknown) => servicePorts.includes((m as ServerMessage).socket.localPort ?? -1);
    const exchange = (r: UndiciRequest) => r.method === 'POST' && !serviceOrigins.includes(r.origin);
    this.listeners = [
      [
        'http.server.request.start',
        (m) => {
          if (this.current && ours(m)) this.current.serverStart ??= performance.now();
        },
      ],
      [
        'tracing:fastify.request.handler:start',
        () => {
          if (this.current) this.current.handlerStart ??= performance.now();
        },
      ],
      [
        'undici:request:create',
        (m) => {
          const request = (m as { request: UndiciRequest }).request;
          if (this.current && exchange(request)) this.created.set(request, performance.now());
        },
      ],
      [
        'undici:request:headers',
        (m) => {
          const request = (m as { request: UndiciRequest }).request;
          const sent = this.created.get(request);
          if (!this.current || sent === undefined) return;
          this.current.exchangeSent = sent;
          this.current.exchangeAnswered = performance.now();
        },
      ],
      [
        'http.server.response.finish',
        (m) => {
          if (this.current && ours(m)) this.current.serverFinish ??= performance.now();
        },
      ],
    ];
    for (const [name, listener] of this.listeners) diagnostics.subscribe(name, listener);
  }

  begin(): void {
    this.current = { start: performance.now() };
  }

  finish(): Timeline {
    const done = { ...(this.current as Timeline), end: performance.now() };
    this.current = null;
    return done;
  }

  close(): void {
    for (const [name, listener] of this.listeners) diagnostics.unsubscribe(name, listener);
  }
}

/** The ms from one moment of a timeline to a later one (NaN when either was not seen). */
export function span(from: keyof Timeline, to: keyof Timeline): (t: Timeline) => number {
  return (t) => (t[to] ?? Number.NaN) - (t[from] ?? Number.NaN);
}

/** Median of `part` over the timelines where it is known; NaN when it is known for none. */
export function medianOf(timelines: Timeline[], part: (t: Timeline) => number): number {
  const values = timelines
    .map(part)
    .filter((v) => Number.isFinite(v))
    .sort((a, b) => a - b);
  return percentile(values, 50);
}
