// The one place a trading request's venue session comes from. Spec §5 names four credential modes; each resolves
// into the same VenueSession, which lives for one call and is dropped after it:
//  - per-request: `credentials` in the body (wins) or the X-Exchange-Credentials header; never stored or logged;
//  - stored (self) and managed: the customer's sealed record for that exchange (the credentials store);
//  - builder impersonation: the end-user's stored or managed record, once the builder program exists.
// This implementation knows the per-request mode; the credentials store plugs in through `StoredSessions`.
import type { ExchangeId } from '../domain/exchanges.js';
import { AppError } from '../errors/app-error.js';
import type { CredentialField, VenueSession } from '../venues/port.js';
import { decodeCredentialsHeader, sessionFrom } from './per-request-credentials.js';

export interface CredentialRequest {
  /** The calling key's customer: stored and managed records are looked up for this customer only. */
  customerId: string;
  exchange: ExchangeId;
  /** The venue's credential fields (its descriptor's `credentials`). */
  fields: readonly CredentialField[];
  /** The raw X-Exchange-Credentials header, when sent. */
  header?: string | undefined;
  /** A request body's `credentials` object, when sent (takes precedence over the header). */
  body?: unknown;
}

/** The credentials store's side of resolution: the customer's own stored or managed session, or null. */
export interface StoredSessions {
  sessionFor(customerId: string, exchange: ExchangeId): Promise<VenueSession | null>;
}

export class SessionResolver {
  constructor(private readonly stored: StoredSessions | null = null) {}

  /** The session a request trades with; 403 `credentials_required` when it has none for that exchange. */
  async resolve(request: CredentialRequest): Promise<VenueSession> {
    const perRequest = this.perRequest(request);
    if (perRequest) return perRequest;
    const stored = await this.stored?.sessionFor(request.customerId, request.exchange);
    if (stored) return stored;
    throw new AppError(
      'credentials_required',
      `no ${request.exchange} credentials: send X-Exchange-Credentials (or body credentials), or POST /onboard first`,
    );
  }

  /** The per-request session alone (body, then header), or null when the request carries none. */
  perRequest(request: CredentialRequest): VenueSession | null {
    if (request.body !== undefined && request.body !== null) {
      return sessionFrom(request.body, request.exchange, request.fields, 'per_request');
    }
    if (request.header !== undefined) {
      return decodeCredentialsHeader(request.header, request.exchange, request.fields);
    }
    return null;
  }
}
