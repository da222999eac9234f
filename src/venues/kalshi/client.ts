// Kalshi REST over VenueHttp: one keep-alive pool, two pacers (Kalshi budgets reads and writes separately; basic
// tier: 200 read and 100 write tokens per second at 10 tokens a request, the write bucket holding two seconds),
// per-request RSA-PSS signing with the caller's key, and payload decoding at the boundary.
import type { Static, TSchema } from 'typebox';
import { Agent } from 'undici';
import type { VenueContext } from '../port.js';
import { decodeResponse, type PayloadDecoder, payloadDecoder } from '../shared/payload.js';
import { type QueryValue, type RetryPolicy, VenueHttp, type VenueResponse } from '../shared/venue-http.js';
import { authHeaders, type KalshiKey } from './auth.js';
import { KalshiHistoricalCutoff } from './payloads.js';

const decodeCutoff = payloadDecoder(KalshiHistoricalCutoff);

/** The live/historical boundary in epoch milliseconds (GET /historical/cutoff). */
export interface HistoricalCutoff {
  marketSettledMs: number;
  tradesCreatedMs: number;
  ordersUpdatedMs: number;
}

/** The cutoffs advance slowly (the live window is about three months): one read serves a minute of requests. */
const CUTOFF_TTL_MS = 60_000;

export interface KalshiAdapterOptions {
  /** REST base URL including /trade-api/v2 (the signed path starts at /trade-api). */
  restUrl: string;
  /** WebSocket URL (…/trade-api/ws/v2). */
  wsUrl: string;
  timeoutMs: number;
  /** Market stream heartbeat period (10 s by default); a socket silent for three is replaced. */
  streamHeartbeatMs?: number;
  /**
   * An API key for the market-data WebSocket: Kalshi authenticates every WebSocket connection, even for public
   * channels. Without one the adapter serves streams by polling the REST book.
   */
  streamCredentials?: { api_key_id: string; private_key: string } | null;
  retry?: Partial<RetryPolicy>;
  /** The counterpart publishes no limit (a simulator): send without pacing. */
  unpaced?: boolean;
}

export const READ_LIMIT = { requestsPerSecond: 20, burst: 20 };
export const WRITE_LIMIT = { requestsPerSecond: 10, burst: 20 };

interface Call {
  path: string;
  query?: Record<string, QueryValue>;
  operation: string;
  key?: KalshiKey;
}

export class KalshiClient {
  private readonly agent = new Agent({
    keepAliveTimeout: 10_000,
    connections: 64,
    connect: { timeout: 5_000 },
  });
  readonly read: VenueHttp;
  readonly write: VenueHttp;
  /** Event titles by event ticker: public, immutable in practice, and needed for every market's group title. */
  private readonly eventTitles = new Map<string, string>();

  constructor(readonly options: KalshiAdapterOptions) {
    const base = {
      venue: 'kalshi' as const,
      baseUrl: options.restUrl,
      timeoutMs: options.timeoutMs,
      dispatcher: this.agent,
      unpaced: options.unpaced,
    };
    this.read = new VenueHttp({ ...base, rateLimit: READ_LIMIT, retry: options.retry });
    this.write = new VenueHttp({ ...base, rateLimit: WRITE_LIMIT, retry: options.retry });
  }

  async get<T extends TSchema>(
    ctx: VenueContext,
    decoder: PayloadDecoder<T>,
    call: Call,
  ): Promise<Static<T>> {
    const res = await this.read.send(ctx, {
      method: 'GET',
      path: call.path,
      query: call.query,
      headers: this.headers('GET', call),
      idempotent: true,
      operation: call.operation,
    });
    return decodeResponse(decoder, res, 'kalshi', call.operation);
  }

  /** Order writes. `idempotent` only for cancels: an order submission is never sent twice. */
  async writeCall(
    ctx: VenueContext,
    method: 'POST' | 'DELETE',
    call: Call & { body?: unknown; idempotent: boolean },
  ): Promise<VenueResponse> {
    return this.write.send(ctx, {
      method,
      path: call.path,
      query: call.query,
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
      headers: this.headers(method, call),
      idempotent: call.idempotent,
      operation: call.operation,
    });
  }

  decode<T extends TSchema>(decoder: PayloadDecoder<T>, res: VenueResponse, operation: string): Static<T> {
    return decodeResponse(decoder, res, 'kalshi', operation);
  }

  cachedEventTitle(eventTicker: string): string | undefined {
    return this.eventTitles.get(eventTicker);
  }

  rememberEventTitle(eventTicker: string, title: string): void {
    if (this.eventTitles.size >= 50_000) this.eventTitles.clear();
    this.eventTitles.set(eventTicker, title);
  }

  private cutoffCache: { value: HistoricalCutoff; expiresMs: number } | null = null;
  private cutoffInFlight: Promise<HistoricalCutoff> | null = null;

  /**
   * The historical cutoffs, cached for a minute and shared by concurrent callers. A timestamp that does not parse
   * reads as 0 (nothing archived), so a malformed field never hides live data.
   */
  async historicalCutoff(ctx: VenueContext): Promise<HistoricalCutoff> {
    const cached = this.cutoffCache;
    if (cached && Date.now() < cached.expiresMs) return cached.value;
    this.cutoffInFlight ??= this.get(ctx, decodeCutoff, {
      path: '/historical/cutoff',
      operation: 'get_historical_cutoff',
    })
      .then((raw) => {
        const ms = (s: string) => {
          const t = Date.parse(s);
          return Number.isFinite(t) ? t : 0;
        };
        const value = {
          marketSettledMs: ms(raw.market_settled_ts),
          tradesCreatedMs: ms(raw.trades_created_ts),
          ordersUpdatedMs: ms(raw.orders_updated_ts),
        };
        this.cutoffCache = { value, expiresMs: Date.now() + CUTOFF_TTL_MS };
        return value;
      })
      .finally(() => {
        this.cutoffInFlight = null;
      });
    return this.cutoffInFlight;
  }

  private closing: Promise<void> | null = null;

  /** Closes the pool once; the runtime and the sandbox may both ask. */
  close(): Promise<void> {
    this.closing ??= this.agent.close();
    return this.closing;
  }

  private headers(method: string, call: Call): (() => Record<string, string>) | undefined {
    const { key } = call;
    if (!key) return undefined;
    const path = this.read.pathOnWire(call.path);
    return () => authHeaders(key, method, path);
  }
}
