// Polymarket's error table: the exchange's own error texts (CLOB `{"error": …}` bodies and `errorMsg` of order
// answers) mapped to the wire contract's codes. Exact phrases first, broad ones after; anything unmatched falls to
// the shared defaults (429/5xx → 503, 401/403 → authentication_failed, other 4xx → 400 with the venue's text).
import { AppError } from '../../errors/app-error.js';
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

/**
 * The CLOB's refusal of a deposit-wallet (signature type 3) order although the API key is the wallet owner's, as
 * the SDK binds it: still answered for some accounts (py-clob-client-v2 #70, #103, open; clob-client-v2 #73). For
 * types 0-2 the same text means the key is not the signer's, an authentication failure, so only type 3 is mapped.
 */
export function depositWalletRefusal(
  message: string,
  signatureType: number,
  cause: unknown,
): AppError | null {
  if (signatureType !== 3 || !/order signer address has to be the address of the api key/i.test(message))
    return null;
  return new AppError(
    'forbidden',
    'polymarket refused this deposit-wallet (signature_type 3) order for this account, although its API key ' +
      "belongs to the wallet's owner: the exchange still refuses such orders for some accounts (open upstream: " +
      'py-clob-client-v2 #70, #103). Nothing was placed. Retrying does not help; ask Polymarket support to enable ' +
      `the account's deposit-wallet trading. Exchange said: ${message}`,
    { cause },
  );
}
