// Polymarket's error table: the exchange's own error texts (CLOB `{"error": …}` bodies and `errorMsg` of order
// answers) mapped to the wire contract's codes. Exact phrases first, broad ones after; anything unmatched falls to
// the shared defaults (429/5xx → 503, 401/403 → authentication_failed, other 4xx → 400 with the venue's text).
import type { VenueErrorRule } from '../shared/venue-errors.js';
import { mapVenueError } from '../shared/venue-errors.js';

export const POLYMARKET_ERROR_RULES: readonly VenueErrorRule[] = [
  {
    message: /invalid signature|signer .* does not match|order signer address has to be/i,
    code: 'authentication_failed',
    describe: (m) => `polymarket refused the order signature: ${m}`,
  },
  { message: /unauthorized|invalid api key|api key not found/i, code: 'authentication_failed' },
  { message: /not enough balance|insufficient balance|balance.*allowance/i, code: 'insufficient_funds' },
  { message: /closed.only|banned|geoblock/i, code: 'forbidden' },
  {
    status: [400, 404],
    message: /order.*(not found|does not exist|doesn't exist)|no order found/i,
    code: 'order_not_found',
  },
  {
    status: [400, 404],
    message: /no orderbook exists|market not found|condition.*not found/i,
    code: 'market_not_found',
  },
];

export function mapPolymarketError(error: unknown): unknown {
  return mapVenueError(error, POLYMARKET_ERROR_RULES);
}

/** The exchange's answer for a FOK order it killed, or a FAK order that found nothing to fill. */
/** The CLOB's refusal of a price off the market's current tick ("breaks minimum tick size rule"). */
export function isTickSizeMessage(message: string): boolean {
  return /minimum tick size/i.test(message);
}

export function isKilledOrderMessage(message: string): boolean {
  return /fully filled or killed|fok_not_filled|fak_not_filled|couldn't be fully filled|no orders found to match/i.test(
    message,
  );
}
