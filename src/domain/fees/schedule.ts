// What a venue says about the taker fee of one market, as data: the adapter reads the parameters from the venue's
// payloads (or knows the venue publishes none) and the fee modules beside this file turn a book walk into a fee.
import { type Static, Type } from 'typebox';
import { ExchangeId } from '../exchanges.js';

export const FEE_TYPES = ['quadratic', 'linear', 'lookup_table', 'none'] as const;
export const FeeType = Type.Enum(FEE_TYPES);
export type FeeType = Static<typeof FeeType>;

/** How an estimate's fee was arrived at (wire contract §3, GET /execution-price). */
export const FeeInfo = Type.Object({
  exchange: ExchangeId,
  fee_type: FeeType,
  is_estimate: Type.Boolean({
    description:
      "False when the fee follows the venue's published formula and this market's parameters exactly; true when " +
      'something the venue does not publish (an account discount, an unpublished curve) may change it',
  }),
  note: Type.Optional(Type.String()),
});
export type FeeInfo = Static<typeof FeeInfo>;

/** Fee parameters of one market, per venue. Rates are decimal strings, read once from the venue's payload. */
export type FeeSchedule =
  /** CLOB V2 `fd` of `/clob-markets`: fee = C × r × (p(1 − p))^e; absent `fd` means no fee. */
  | { venue: 'polymarket'; rate: string; exponent: number }
  /** The series' `fee_type` and `fee_multiplier` (GET /series/{ticker}). */
  | { venue: 'kalshi'; feeType: string; multiplier: string }
  /** The market's `feeRateBps` (taker rate); null when the market document leaves it out. */
  | { venue: 'predictfun'; feeRateBps: string | null }
  /** Venues that publish a fee range but not the curve a market is charged on. */
  | { venue: 'limitless' }
  | { venue: 'opinion' };
