// Kalshi taker fee (kalshi.com/docs/kalshi-fee-schedule.pdf; docs.kalshi.com/getting_started/fee_rounding): the
// general trading fee is 0.07 × C × P × (1 − P), scaled by the series' `fee_multiplier`, rounded up to the next
// cent. Series of type quadratic, quadratic_with_maker_fees and quadratic_with_combo_maker_fees charge takers the
// same (they differ in maker fees); a `flat` series is priced from the schedule's specific table, which the API does
// not publish.
import { Decimal } from '../decimal.js';
import type { FeeResult, FeeWalk } from './fee-result.js';

const TAKER_RATE = Decimal.parse('0.07');
const QUADRATIC = new Set(['quadratic', 'quadratic_with_maker_fees', 'quadratic_with_combo_maker_fees']);

/**
 * One order's taker fee. Each fill's trade fee is rounded up to $0.0001 and the balance to the cent, with Kalshi's
 * fee accumulator refunding the over-rounding so the order pays what one equivalent fill would: the exact sum
 * rounded up to the cent.
 */
export function kalshiTakerFee(multiplier: Decimal, fills: FeeWalk['fills']): Decimal {
  let raw = Decimal.ZERO;
  for (const f of fills) raw = raw.add(f.size.mul(f.price).mul(Decimal.ONE.sub(f.price)));
  return raw.mul(TAKER_RATE).mul(multiplier).round(2, 'ceil');
}

export function kalshiFee(schedule: { feeType: string; multiplier: string }, walk: FeeWalk): FeeResult {
  if (!QUADRATIC.has(schedule.feeType)) {
    return {
      fee: null,
      info: {
        exchange: 'kalshi',
        fee_type: 'lookup_table',
        is_estimate: true,
        note: `series fee_type '${schedule.feeType}' is priced from Kalshi's specific fee table, which its API does not publish`,
      },
    };
  }
  const multiplier = Decimal.parse(schedule.multiplier);
  return {
    fee: kalshiTakerFee(multiplier, walk.fills),
    info: {
      exchange: 'kalshi',
      fee_type: 'quadratic',
      is_estimate: false,
      note: `taker fee = ceil(0.07 × ${schedule.multiplier} × C × P × (1−P)) to the cent`,
    },
  };
}
