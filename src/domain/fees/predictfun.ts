// Predict.fun taker fee (dev.predict.fun/trading/fees; docs.predict.fun/the-basics/predict-fees-and-limits): the
// market's `feeRateBps` × min(p, 1 − p) × shares, worth the same in dollars on both sides (a buyer pays it in shares
// at the trade price, a seller in USDT). Makers pay nothing. Predict.fun may discount an account's fee, which a
// market-data estimate cannot know, so the figure is the undiscounted fee.
import { Decimal } from '../decimal.js';
import type { FeeResult, FeeWalk } from './fee-result.js';

const BPS = Decimal.fromInt(10_000);
/** USDT has 18 decimals on chain; a fee is never finer than that. */
const FEE_PLACES = 18;

export function predictfunTakerFee(feeRateBps: Decimal, fills: FeeWalk['fills']): Decimal {
  let fee = Decimal.ZERO;
  for (const f of fills) fee = fee.add(f.size.mul(Decimal.min(f.price, Decimal.ONE.sub(f.price))));
  return fee.mul(feeRateBps).div(BPS, FEE_PLACES, 'floor');
}

export function predictfunFee(schedule: { feeRateBps: string | null }, walk: FeeWalk): FeeResult {
  if (schedule.feeRateBps === null) {
    return {
      fee: null,
      info: {
        exchange: 'predictfun',
        fee_type: 'linear',
        is_estimate: true,
        note: 'the market does not state its feeRateBps',
      },
    };
  }
  const bps = Decimal.parse(schedule.feeRateBps);
  return {
    fee: predictfunTakerFee(bps, walk.fills),
    info: {
      exchange: 'predictfun',
      fee_type: bps.isZero() ? 'none' : 'linear',
      is_estimate: true,
      note: `taker fee = ${schedule.feeRateBps} bps × min(p, 1−p) × shares, before any account fee discount`,
    },
  };
}
