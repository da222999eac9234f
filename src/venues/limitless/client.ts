// Limitless REST over VenueHttp: public reads, and authenticated reads signed per attempt over exactly the path and
// query string that go on the wire. Decodes every answer against its payload schema.
import type { Static, TSchema } from 'typebox';
import type { VenueContext, VenueSession } from '../port.js';
import { decodeResponse, type PayloadDecoder } from '../shared/payload.js';
import { type QueryValue, VenueHttp } from '../shared/venue-http.js';
import { authHeaders, credentialsOf } from './auth.js';
import { LIMITLESS_DESCRIPTOR } from './descriptor.js';

export interface LimitlessClientOptions {
  /** REST base, e.g. https://api.limitless.exchange */
  restUrl: string;
  /** Socket.IO base, e.g. wss://ws.limitless.exchange (the client adds the /markets namespace). */
  wsUrl: string;
  /** Deadline of one request attempt. */
  timeoutMs: number;
  /** How often a streamed book is checked against REST (catches a silent feed); 0 turns it off. */
  bookReconcileMs?: number;
  /** The counterpart publishes no limit (a simulator): send without pacing. */
  unpaced?: boolean;
}

export interface GetRequest {
  path: string;
  query?: Record<string, QueryValue>;
  operation: string;
}

export class LimitlessClient {
  readonly http: VenueHttp;

  constructor(readonly options: LimitlessClientOptions) {
    this.http = new VenueHttp({
      venue: 'limitless',
      baseUrl: options.restUrl,
      timeoutMs: options.timeoutMs,
      rateLimit: LIMITLESS_DESCRIPTOR.rateLimit,
      unpaced: options.unpaced,
    });
  }

  async get<T extends TSchema>(
    ctx: VenueContext,
    decoder: PayloadDecoder<T>,
    req: GetRequest,
  ): Promise<Static<T>> {
    const res = await this.http.send(ctx, { method: 'GET', ...req, idempotent: true });
    return decodeResponse(decoder, res, 'limitless', req.operation);
  }

  /** An authenticated GET; credentials are read from the session for this call only. */
  async getPrivate<T extends TSchema>(
    ctx: VenueContext,
    session: VenueSession,
    decoder: PayloadDecoder<T>,
    req: GetRequest,
  ): Promise<Static<T>> {
    const credentials = credentialsOf(session);
    const onWire = new URL(this.http.url(req.path, req.query));
    const pathWithQuery = `${onWire.pathname}${onWire.search}`;
    const res = await this.http.send(ctx, {
      method: 'GET',
      ...req,
      headers: () => authHeaders(credentials, 'GET', pathWithQuery, ''),
      idempotent: true,
    });
    return decodeResponse(decoder, res, 'limitless', req.operation);
  }

  /**
   * A signed call with a body (POST /orders, POST /orders/status/batch, DELETE /orders/{id}): the HMAC covers the
   * exact body bytes sent. `idempotent` false for an order submission: a lost answer is never sent again.
   */
  async sendPrivate<T extends TSchema>(
    ctx: VenueContext,
    session: VenueSession,
    decoder: PayloadDecoder<T>,
    req: GetRequest & { method: 'POST' | 'DELETE'; body?: unknown; idempotent: boolean },
  ): Promise<Static<T>> {
    const credentials = credentialsOf(session);
    const onWire = new URL(this.http.url(req.path, req.query));
    const pathWithQuery = `${onWire.pathname}${onWire.search}`;
    const body = req.body === undefined ? '' : JSON.stringify(req.body);
    const res = await this.http.send(ctx, {
      method: req.method,
      path: req.path,
      query: req.query,
      operation: req.operation,
      ...(req.body === undefined ? {} : { body }),
      headers: () => authHeaders(credentials, req.method, pathWithQuery, body),
      idempotent: req.idempotent,
    });
    return decodeResponse(decoder, res, 'limitless', req.operation);
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
