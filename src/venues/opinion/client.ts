// REST access to Opinion's OpenAPI over VenueHttp: every call is a GET carrying an `apikey` header, answered
// in an envelope whose errno (or code) must be 0. Public reads use the operator's key, private ones the
// session's. Lists page with page/limit (at most 20 per page); `walk` follows them up to a bound.
import type { Static, TSchema } from 'typebox';
import { AppError } from '../../errors/app-error.js';
import type { VenueContext, VenueSession } from '../port.js';
import { decodeResponse, type PayloadDecoder, payloadDecoder } from '../shared/payload.js';
import { VenuePayloadError, VenueStatusError } from '../shared/venue-errors.js';
import { type QueryValue, VenueHttp, type VenueResponse } from '../shared/venue-http.js';
import { keyHeaders, operatorKeyOrThrow, sessionKey } from './auth.js';
import { isKeyRejected } from './errors.js';
import { OpinionEnvelope } from './payloads.js';

export interface OpinionClientOptions {
  /** REST base, e.g. https://openapi.opinion.trade/openapi. */
  restUrl: string;
  /** The operator's key for public data; absent means public calls answer 503 OPINION_API_KEY not configured. */
  apiKey?: string | undefined;
  timeoutMs: number;
  /** The counterpart publishes no limit (a simulator): send without pacing. */
  unpaced?: boolean;
}

export interface OpinionGet {
  path: string;
  query?: Record<string, QueryValue>;
  operation: string;
}

export interface OpinionPost {
  path: string;
  /** The exact JSON body. */
  body: string;
  /** Safe to send again after an ambiguous failure (a cancel); an order never is. */
  idempotent: boolean;
  operation: string;
}

/** Opinion's page size ceiling (the SDK refuses more; the docs say "max 20"). */
export const OPINION_PAGE_LIMIT = 20;

const decodeEnvelope = payloadDecoder(OpinionEnvelope);

export class OpinionClient {
  /** 15 requests/s per API key (docs overview); the operator key carries every public read. */
  private readonly publicHttp: VenueHttp;
  /**
   * Private reads go out under many users' keys, each with its own 15/s; they are paced together at twice
   * that, as one user's calls are few.
   */
  private readonly privateHttp: VenueHttp;
  private closing: Promise<void> | null = null;

  constructor(private readonly options: OpinionClientOptions) {
    const common = {
      venue: 'opinion' as const,
      baseUrl: options.restUrl,
      timeoutMs: options.timeoutMs,
      unpaced: options.unpaced,
    };
    this.publicHttp = new VenueHttp({ ...common, rateLimit: { requestsPerSecond: 15, burst: 15 } });
    this.privateHttp = new VenueHttp({ ...common, rateLimit: { requestsPerSecond: 30, burst: 30 } });
  }

  get hasOperatorKey(): boolean {
    return this.options.apiKey !== undefined && this.options.apiKey !== '';
  }

  /** A public read under the operator's key; a refused operator key is our configuration's fault (503). */
  async public<T extends TSchema>(
    ctx: VenueContext,
    decoder: PayloadDecoder<T>,
    req: OpinionGet,
  ): Promise<Static<T>> {
    const key = operatorKeyOrThrow(this.options.apiKey);
    try {
      return await this.get(this.publicHttp, key, ctx, decoder, req);
    } catch (error) {
      if (isKeyRejected(error)) {
        throw new AppError('service_unavailable', 'opinion rejected the configured OPINION_API_KEY', {
          cause: error,
        });
      }
      throw error;
    }
  }

  /** A read under the session's own key (positions, balance, identity of that key's wallet). */
  async private<T extends TSchema>(
    ctx: VenueContext,
    session: VenueSession,
    decoder: PayloadDecoder<T>,
    req: OpinionGet,
  ): Promise<Static<T>> {
    return this.get(this.privateHttp, sessionKey(session), ctx, decoder, req);
  }

  /** A write under the session's own key (orders, cancels). */
  async post<T extends TSchema>(
    ctx: VenueContext,
    session: VenueSession,
    decoder: PayloadDecoder<T>,
    req: OpinionPost,
  ): Promise<Static<T>> {
    const res = await this.privateHttp.send(ctx, {
      method: 'POST',
      path: req.path,
      body: req.body,
      headers: { ...keyHeaders(sessionKey(session)), 'content-type': 'application/json' },
      idempotent: req.idempotent,
      operation: req.operation,
    });
    return this.unwrap(res, decoder, req.operation);
  }

  /**
   * Follows page/limit pages from page 1 until `max` items, the reported total, or a short page. `fetchPage`
   * gets the page number and returns that page's items and the venue's total.
   */
  async walk<I>(
    fetchPage: (page: number) => Promise<{ list: I[]; total: number | null }>,
    max: number,
  ): Promise<{ list: I[]; total: number | null }> {
    const items: I[] = [];
    let total: number | null = null;
    for (let page = 1; items.length < max; page++) {
      const result = await fetchPage(page);
      total = result.total;
      items.push(...result.list);
      if (result.list.length < OPINION_PAGE_LIMIT || (total !== null && page * OPINION_PAGE_LIMIT >= total))
        break;
    }
    return { list: items.slice(0, max), total };
  }

  async close(): Promise<void> {
    this.closing ??= Promise.all([this.publicHttp.close(), this.privateHttp.close()]).then(() => undefined);
    await this.closing;
  }

  private async get<T extends TSchema>(
    http: VenueHttp,
    apiKey: string,
    ctx: VenueContext,
    decoder: PayloadDecoder<T>,
    req: OpinionGet,
  ): Promise<Static<T>> {
    const res = await http.send(ctx, {
      method: 'GET',
      path: req.path,
      query: req.query,
      headers: keyHeaders(apiKey),
      idempotent: true,
      operation: req.operation,
    });
    return this.unwrap(res, decoder, req.operation);
  }

  private unwrap<T extends TSchema>(
    res: VenueResponse,
    decoder: PayloadDecoder<T>,
    operation: string,
  ): Static<T> {
    const envelope = decodeResponse(decodeEnvelope, res, 'opinion', operation);
    const code = envelope.errno ?? envelope.code;
    if (code === null || code === undefined) {
      throw new VenuePayloadError('opinion', operation, ['envelope has neither errno nor code'], ['/errno']);
    }
    // Opinion reports refusals inside a 2xx envelope too; they are the venue's answer, kept with its status.
    if (code !== 0)
      throw new VenueStatusError('opinion', operation, res.status, res.text.slice(0, 4_000), null, 1);
    return decoder(envelope.result ?? null, 'opinion', operation);
  }
}
