// Polymarket CLOB V2 taker fee (docs.polymarket.com/trading/fees; @polymarket/clob-client-v2 `fees/index.js`):
// fee = C × rate × (p × (1 − p))^exponent in pUSD, with rate and exponent from the market's `/clob-markets` `fd`,
// charged to takers only and rounded to 5 decimals. The same function prices an estimate's fills and the fee of
// a user's past fills, so the two never disagree.
import { Decimal } from '../decimal.js';
import type { FeeResult, FeeWalk } from './fee-result.js';

/** Decimal places Polymarket rounds a fee to (0.00001 pUSD is the smallest fee charged). */
export const POLYMARKET_FEE_PLACES = 5;

/** The fee of one match of `size` shares at `price`, rounded as the venue charges it. */
export function polymarketTakerFee(rate: Decimal, exponent: number, price: Decimal, size: Decimal): Decimal {
  if (rate.isZero() || size.isZero()) return Decimal.ZERO;
  const curve = price.mul(Decimal.ONE.sub(price)).pow(exponent);
  return size.mul(rate).mul(curve).round(POLYMARKET_FEE_PLACES, 'half_up');
}

export function polymarketFee(schedule: { rate: string; exponent: number }, walk: FeeWalk): FeeResult {
  const rate = Decimal.parse(schedule.rate);
  if (rate.isZero()) {
    return {
      fee: Decimal.ZERO,
      info: {
        exchange: 'polymarket',
        fee_type: 'none',
        is_estimate: false,
        note: 'fees are not enabled on this market',
      },
    };
  }
  // Each level is a separate match against resting orders, and each match is charged and rounded on its own.
  let fee = Decimal.ZERO;
  for (const f of walk.fills) fee = fee.add(polymarketTakerFee(rate, schedule.exponent, f.price, f.size));
  return {
    fee,
    info: {
      exchange: 'polymarket',
      fee_type: schedule.exponent === 0 ? 'linear' : 'quadratic',
      is_estimate: false,
      note: `taker fee = shares × ${schedule.rate} × (p(1−p))^${schedule.exponent}, per match, rounded to 5 decimals`,
    },
  };
}
