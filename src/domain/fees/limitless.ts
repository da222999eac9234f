// Limitless taker fee (docs.limitless.exchange/user-guide/fees): CLOB markets charge takers a fee that moves with
// the price (buys 0.40%–3.00% of notional, paid in shares; sells 0.42%–1.50%, paid in USDC) and is discounted by
// the account's rank (the profile's `feeRateBps`). Neither the curve nor an anonymous caller's rank is published,
// so no fee is computed.
import type { FeeResult } from './fee-result.js';

export function limitlessFee(): FeeResult {
  return {
    fee: null,
    info: {
      exchange: 'limitless',
      fee_type: 'lookup_table',
      is_estimate: true,
      note:
        'Limitless charges takers 0.40%–3.00% of notional on buys and 0.42%–1.50% on sells depending on price and ' +
        'account rank; the curve is not published',
    },
  };
}
