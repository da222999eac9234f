// What every venue's fee module answers for a book walk.
import type { WalkFill, WalkSide } from '../book-walk.js';
import type { Decimal } from '../decimal.js';
import type { FeeInfo } from './schedule.js';

/** The part of a book walk a fee depends on. */
export interface FeeWalk {
  side: WalkSide;
  fills: readonly WalkFill[];
}

export interface FeeResult {
  /** Null when the venue does not publish enough to compute it. */
  fee: Decimal | null;
  info: FeeInfo;
}
