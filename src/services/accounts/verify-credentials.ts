// Proves credentials work before anything is stored: one real authenticated call to the exchange (a balance read,
// or the adapter's authenticated ping). The exchange saying no is 403 authentication_failed; the exchange not
// answering is 503. The venue's own wording is not passed on: it could quote what it was sent.
import { AppError, isAppError } from '../../errors/app-error.js';
import type { VenueAdapter, VenueContext, VenueSession } from '../../venues/port.js';

const REJECTED = new Set(['authentication_failed', 'forbidden', 'unauthorized', 'credentials_required']);
/** A 4xx the venue gives an authenticated read it will not serve for these credentials. */
const REFUSED = new Set(['bad_request', 'not_found', 'insufficient_funds']);

export async function verifyCredentials(
  venue: VenueAdapter,
  ctx: VenueContext,
  session: VenueSession,
): Promise<void> {
  const exchange = venue.descriptor.id;
  const rejected = () =>
    new AppError('authentication_failed', `${exchange} rejected these credentials; nothing was stored`);
  const fetchBalance = venue.trading.fetchBalance;
  if (fetchBalance) {
    try {
      await fetchBalance.call(venue.trading, ctx, session);
      return;
    } catch (error) {
      if (!isAppError(error)) throw error;
      if (REJECTED.has(error.code) || REFUSED.has(error.code)) throw rejected();
      throw error;
    }
  }
  const outcome = await venue.ping(ctx, session);
  if (!outcome.reachable) {
    throw new AppError('service_unavailable', `${exchange} did not answer; nothing was stored, try again`);
  }
  if (!outcome.authenticated) throw rejected();
}
