// Opinion taker fee (docs.opinion.trade/trade-on-opinion.trade/fees): takers pay 0%–2% depending on how close the
// price is to 50%, at least $0.50 per order, less stacking account discounts; makers pay nothing. The curve is not
// published, so no fee is computed.
import type { FeeResult } from './fee-result.js';

export function opinionFee(): FeeResult {
  return {
    fee: null,
    info: {
      exchange: 'opinion',
      fee_type: 'lookup_table',
      is_estimate: true,
      note:
        'Opinion charges takers 0%–2% of notional, highest near 50%, at least $0.50 an order, less account ' +
        'discounts; the curve is not published',
    },
  };
}
