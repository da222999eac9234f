// The one entry point from a market's fee schedule and a book walk to a fee.

import type { FeeResult, FeeWalk } from './fee-result.js';
import { kalshiFee } from './kalshi.js';
import { limitlessFee } from './limitless.js';
import { opinionFee } from './opinion.js';
import { polymarketFee } from './polymarket.js';
import { predictfunFee } from './predictfun.js';
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
