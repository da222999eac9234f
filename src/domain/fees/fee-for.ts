// The one entry point from a market's fee schedule and a book walk to a fee.

import type { WalkFill, WalkSide } from '../book-walk.js';
import { Decimal } from '../decimal.js';
import type { FeeResult, FeeWalk } from './fee-result.js';
import { kalshiFee, kalshiTakerFee } from './kalshi.js';
import { limitlessFee } from './limitless.js';
import { opinionFee } from './opinion.js';
import { polymarketFee, polymarketTakerFee } from './polymarket.js';
import { predictfunFee, predictfunTakerFee } from './predictfun.js';
import type { FeeSchedule } from './schedule.js';

export type { FeeResult, FeeWalk } from './fee-result.js';

export function feeFor(schedule: FeeSchedule, walk: FeeWalk): FeeResult {
  switch (schedule.venue) {
    case 'polymarket':
      return polymarketFee(schedule, walk);
    case 'kalshi':
      return kalshiFee(schedule, walk);
    case 'predictfun':
      return predictfunFee(schedule, walk);
    case 'limitless':
      return limitlessFee();
    case 'opinion':
      return opinionFee();
  }
}

/**
 * `feeFor(schedule, { side, fills }).fee` as a function of the fills, with the schedule's rates parsed once: for
 * callers that price many walks of one book (the arbitrage scan). Null when the schedule computes no fee.
 */
export function takerFeeFunction(
  schedule: FeeSchedule,
  side: WalkSide,
): ((fills: readonly WalkFill[]) => Decimal) | null {
  const probe = feeFor(schedule, { side, fills: [{ price: Decimal.parse('0.5'), size: Decimal.ONE }] });
  if (probe.fee === null) return null;
  switch (schedule.venue) {
    case 'polymarket': {
      const rate = Decimal.parse(schedule.rate);
      if (rate.isZero()) return () => Decimal.ZERO;
      return (fills) => {
        let fee = Decimal.ZERO;
        for (const f of fills) fee = fee.add(polymarketTakerFee(rate, schedule.exponent, f.price, f.size));
        return fee;
      };
    }
    case 'kalshi': {
      const multiplier = Decimal.parse(schedule.multiplier);
      return (fills) => kalshiTakerFee(multiplier, fills);
    }
    case 'predictfun': {
      const bps = Decimal.parse(schedule.feeRateBps as string);
      return (fills) => predictfunTakerFee(bps, fills);
    }
    default:
      return (fills) => feeFor(schedule, { side, fills }).fee as Decimal;
  }
}
