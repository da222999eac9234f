// Predict.fun's error table. Failures come as `{success: false, code, error: <slug>, message}`; the slug is the
// stable machine code (unauthorized, bad_request, not_found, create_order_*), the message the human text. Exact
// slugs first, broad message phrases after; unmatched falls to the shared defaults. A 401 is attributed by the
// client, which knows whether the call carried a wallet JWT (the user's credentials) or only our API key.
import { AppError } from '../../errors/app-error.js';
import { mapVenueError, type VenueErrorRule, VenueStatusError } from '../shared/venue-errors.js';

export const PREDICTFUN_ERROR_RULES: readonly VenueErrorRule[] = [
  { venueCode: 'not_found', message: /market not found|orderbook not found/i, code: 'market_not_found' },
  { venueCode: 'not_found', message: /category not found/i, code: 'event_not_found' },
  { venueCode: 'create_order_insufficient_collateral_allowance', code: 'insufficient_funds' },
  { venueCode: 'create_order_insufficient_shares_allowance', code: 'insufficient_funds' },
  { venueCode: 'create_order_insufficient_collateral', code: 'insufficient_funds' },
  { venueCode: 'create_order_insufficient_shares', code: 'insufficient_funds' },
  { venueCode: 'create_order_market_not_trading', code: 'bad_request' },
  { venueCode: 'create_order_min_order_value_not_met', code: 'validation_error' },
  { venueCode: 'create_order_price_out_of_range', code: 'validation_error' },
  { venueCode: 'create_order_invalid_price', code: 'validation_error' },
  { venueCode: 'create_order_invalid_amount', code: 'validation_error' },
  { venueCode: 'create_order_expired', code: 'validation_error' },
  { message: /order not found/i, code: 'order_not_found' },
  { message: /do not belong to/i, code: 'order_not_found' },
  { message: /allowance is less than|insufficient (collateral|balance)/i, code: 'insufficient_funds' },
];

function body(error: VenueStatusError): { error?: unknown; message?: unknown } | null {
  try {
    const parsed = JSON.parse(error.body) as unknown;
    return typeof parsed === 'object' && parsed !== null
      ? (parsed as { error?: unknown; message?: unknown })
      : null;
  } catch {
    return null;
  }
}

/** The `error` slug of a Predict.fun failure body, when it has one. */
export function predictfunErrorSlug(error: VenueStatusError): string | null {
  const slug = body(error)?.error;
  return typeof slug === 'string' ? slug : null;
}

/** The human text of a failure: `message` (the shared reader would take the `error` slug first). */
export function predictfunMessage(error: VenueStatusError): string {
  const message = body(error)?.message;
  return typeof message === 'string' && message.length > 0 ? message : error.venueMessage();
}

export function mapPredictfunError(error: unknown): unknown {
  if (error instanceof VenueStatusError) {
    const slug = predictfunErrorSlug(error);
    // Re-read with the message as the venue's text, so rules and client-facing errors quote the sentence.
    const readable = new VenueStatusError(
      error.venue,
      error.operation,
      error.status,
      JSON.stringify({ message: predictfunMessage(error) }),
      error.retryAfterMs,
      error.attempts,
    );
    return mapVenueError(readable, PREDICTFUN_ERROR_RULES, () => slug);
  }
  return mapVenueError(error, PREDICTFUN_ERROR_RULES);
}

/** A 401/403 on a call that carried only our API key: the operator's key is missing its rights, not the client's. */
export function operatorKeyRejected(error: VenueStatusError): AppError {
  return new AppError(
    'service_unavailable',
    `predictfun refused our API key (PREDICTFUN_API_KEY): ${predictfunMessage(error)}`,
    { cause: error },
  );
}

/** A 401/403 on a wallet call: the session's key, signature or JWT was not accepted. */
export function walletRejected(error: VenueStatusError): AppError {
  return new AppError(
    'authentication_failed',
    `predictfun rejected the credentials: ${predictfunMessage(error)}`,
    {
      cause: error,
    },
  );
}
