// Limitless's error table for mapVenueError. The API is NestJS: errors are `{ message, error?, statusCode }`, a
// guard answers 401 `Unauthorized` for a bad key, signature or stale timestamp, the throttler 429.
import type { VenueErrorRule } from '../shared/venue-errors.js';
import { mapVenueError } from '../shared/venue-errors.js';

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
  return mapVenueError(error, LIMITLESS_ERRORS);
}
