// The order-outcome policy, one place for every exchange: what a failed order submission means for the journal
// and for the caller. The adapters' error tables already turn each exchange's refusal into a wire-contract code
// (insufficient balance → 402 insufficient_funds, bad credentials → 403 authentication_failed, unknown order → 404
// order_not_found, exchange down → 503 service_unavailable); this decides whether the order may exist.
//  - Nothing was sent (the failure came before the send hook ran): rejected, with the error as it is.
//  - The exchange answered and said no (any code but 503): rejected, that answer is the evidence.
//  - A 503 after sending (a timeout, a reset, a 5xx, an answer we could not read): unknown. The order may exist; it is reconciled with the
//    exchange and never sent again. Only a failure that provably was not processed (connection refused, a 429 the
//    exchange answered instead of the order) is a rejection.
//  - Anything that is not an AppError after sending (a bug while reading the answer): unknown as well.
import { AppError } from '../../errors/app-error.js';
import { isUpstreamFailure } from '../../errors/codes.js';
import { VenueStatusError, VenueTransportError } from '../../venues/shared/venue-errors.js';

export type SendFailure = { kind: 'rejected'; error: AppError } | { kind: 'unknown'; error: unknown };

export function classifySendFailure(error: unknown, sent: boolean): SendFailure {
  if (!(error instanceof AppError)) {
    if (sent) return { kind: 'unknown', error };
    // Before sending, only our own code can fail this way: it is a bug, reported as one.
    throw error;
  }
  if (!sent) return { kind: 'rejected', error };
  if (!isUpstreamFailure(error.code)) return { kind: 'rejected', error };
  return neverReachedVenue(error) ? { kind: 'rejected', error } : { kind: 'unknown', error };
}

/** A failure somewhere in the cause chain that says the exchange did not process the request. */
function neverReachedVenue(error: Error): boolean {
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 5 && cause instanceof Error; depth++) {
    if (cause instanceof VenueTransportError) return !cause.maybeProcessed;
    if (cause instanceof VenueStatusError) return cause.status === 429;
    cause = cause.cause;
  }
  return false;
}
