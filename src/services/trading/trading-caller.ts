// Who a trading call is for and the credentials the request carried (never stored, never logged): the
// X-Exchange-Credentials header and a body's `credentials`, resolved by SessionResolver with the stored ones.
import type { SessionResolver } from '../../vault/session-resolver.js';
import type { VenueAdapter, VenueContext, VenueSession } from '../../venues/port.js';
import type { CallerContext } from '../caller-context.js';
import { deadlineSignal } from './deadline-signal.js';

export interface TradingCaller extends CallerContext {
  tenant: string;
  credentialsHeader: string | undefined;
  credentialsBody: unknown;
}

/** The venue session this call trades with: the request's own credentials, else the customer's stored ones. */
export function sessionOf(
  sessions: SessionResolver,
  caller: TradingCaller,
  venue: VenueAdapter,
): Promise<VenueSession> {
  return sessions.resolve({
    customerId: caller.tenant,
    exchange: venue.descriptor.id,
    fields: venue.descriptor.credentials,
    header: caller.credentialsHeader,
    body: caller.credentialsBody,
  });
}

/** A venue call's context; private calls may retry once, so the deadline covers two attempts. */
export function tradingContext(caller: TradingCaller, timeoutMs: number): VenueContext {
  return {
    signal: deadlineSignal(timeoutMs * 2),
    requestId: caller.requestId,
    logger: caller.logger,
    tenant: caller.tenant,
  };
}
