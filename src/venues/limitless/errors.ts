// Limitless's error table for mapVenueError. The API is NestJS: errors are `{ message, error?, statusCode }`, a
// guard answers 401 `Unauthorized` for a bad key, signature or stale timestamp, the throttler 429.
import type { VenueErrorRule } from '../shared/venue-errors.js';
import { mapVenueError, VenueStatusError } from '../shared/venue-errors.js';

export const LIMITLESS_ERRORS: readonly VenueErrorRule[] = [
  {
    status: [401, 403],
    code: 'authentication_failed',
    describe: (m) => `limitless rejected the credentials: ${m}`,
  },
  {
    status: 404,
    message: 'Market not found',
    code: 'market_not_found',
    describe: () => 'limitless: market not found',
  },
  { status: 400, message: 'Invalid address', code: 'validation_error', describe: (m) => `limitless: ${m}` },
  { status: 400, message: 'Insufficient', code: 'insufficient_funds', describe: (m) => `limitless: ${m}` },
  { status: 400, message: 'not approved', code: 'insufficient_funds', describe: (m) => `limitless: ${m}` },
  {
    status: 404,
    message: 'Order not found',
    code: 'order_not_found',
    describe: () => 'limitless: order not found',
  },
  { status: 409, code: 'conflict', describe: (m) => `limitless: ${m}` },
];

export function mapLimitlessError(error: unknown): unknown {
  return mapVenueError(nestMessageFirst(error), LIMITLESS_ERRORS);
}

/**
 * NestJS answers `{ message, error: "Bad Request", statusCode }`: the reason is `message` (a string, or a list of
 * validation messages), `error` only the status's name. The rules match the reason, so it is put first.
 */
function nestMessageFirst(error: unknown): unknown {
  if (!(error instanceof VenueStatusError)) return error;
  let message: unknown;
  try {
    message = (JSON.parse(error.body) as { message?: unknown }).message;
  } catch {
    return error;
  }
  const text = Array.isArray(message) ? message.filter((m) => typeof m === 'string').join('; ') : message;
  if (typeof text !== 'string' || text === '') return error;
  return new VenueStatusError(
    error.venue,
    error.operation,
    error.status,
    JSON.stringify({ message: text }),
    error.retryAfterMs,
    error.attempts,
  );
}
