// GET /execution-price: what a taker order of `amount` contracts would pay (or receive) right now. The live book
// (stream or REST, exactly as GET /orderbook reads it) is walked by the one pure walk in `domain/book-walk.ts` and
// the venue's fee for the fills comes from `domain/fees/`, with the market's fee parameters read from the venue
// and kept a minute (fee schedules change on the venue's release cycle, not per request). Everything inside is an
// exact decimal; numbers are made only for the response.
import { type Static, Type } from 'typebox';
import { levelsFromBook, walkBook } from '../../domain/book-walk.js';
import { Decimal } from '../../domain/decimal.js';
import { ExchangeId } from '../../domain/exchanges.js';
import { feeFor } from '../../domain/fees/fee-for.js';
import { FeeInfo, type FeeSchedule } from '../../domain/fees/schedule.js';
import { validationError } from '../../errors/app-error.js';
import type { CallerContext } from '../caller-context.js';
import { FreshCache } from './fresh-cache.js';
import { MarketSelectorFields, type MarketTarget, type MarketTargets } from './market-target.js';
import type { OrderbookService } from './orderbook-service.js';

/** Contracts are asked to at most this many decimals (finer than any venue's lot: Kalshi 0.01, Polymarket 1e-6). */
export const AMOUNT_MAX_DECIMALS = 6;
/** More contracts than any book holds; keeps the arithmetic and the response numbers sane. */
const AMOUNT_MAX = Decimal.parse('1000000000000');

export const ExecutionPriceQuery = Type.Object(
  {
    ...MarketSelectorFields,
    side: Type.Union([Type.Literal('buy'), Type.Literal('sell')], {
      description: 'buy walks the asks, sell walks the bids',
    }),
    amount: Type.String({
      pattern: '^[0-9]+(\\.[0-9]+)?$',
      maxLength: 40,
      description: `Contracts, > 0, at most ${AMOUNT_MAX_DECIMALS} decimals (a plain decimal: 12.5)`,
    }),
  },
  { additionalProperties: false },
);
export type ExecutionPriceQuery = Static<typeof ExecutionPriceQuery>;

const Num = Type.Number();
const NullableNum = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });

export const ExecutionEstimate = Type.Object({
  svc_id: Type.String(),
  exchange: ExchangeId,
  market_id: Type.String(),
  outcome: Type.String(),
  token_id: Type.String(),
  side: Type.Union([Type.Literal('buy'), Type.Literal('sell')]),
  amount: Type.Number({ description: 'Contracts asked for' }),
  avg_price: NullableNum('Volume-weighted average price of the fill; null when nothing would fill'),
  total_cost: Type.Number({
    description:
      'Σ price × size of the filled part: paid on a buy (positive), received on a sell (negative), so that ' +
      'net_cost = total_cost + fee_estimate on both sides',
  }),
  filled_amount: Num,
  fully_filled: Type.Boolean({ description: 'True when the side holds at least `amount` contracts' }),
  slippage: NullableNum('How far avg_price is from the best price, against the taker, in price units (≥ 0)'),
  levels_consumed: Type.Integer({ minimum: 0 }),
  best_price: NullableNum('Price of the first level walked'),
  worst_price: NullableNum('Price of the last level consumed'),
  fee_estimate: NullableNum(
    "The venue's taker fee for the fill; null when the venue does not publish enough",
  ),
  net_cost: NullableNum('total_cost + fee_estimate; null when the fee is unknown'),
  fee_info: FeeInfo,
  timestamp: Type.String({ description: "The venue's time of the book walked, ISO 8601" }),
});
export type ExecutionEstimate = Static<typeof ExecutionEstimate>;

const FEE_SCHEDULE_TTL_MS = 60_000;

/** A request's `amount` as an exact decimal: > 0, at most AMOUNT_MAX_DECIMALS places, at most AMOUNT_MAX. */
export function amountOf(raw: string): Decimal {
  const amount = Decimal.parse(raw);
  if (amount.isZero()) throw validationError(['amount must be greater than 0']);
  if (amount.places > AMOUNT_MAX_DECIMALS) {
    throw validationError([`amount has more than ${AMOUNT_MAX_DECIMALS} decimals`]);
  }
  if (amount.gt(AMOUNT_MAX)) throw validationError([`amount must be at most ${AMOUNT_MAX.toString()}`]);
  return amount;
}

const num = (d: Decimal | null): number | null => (d === null ? null : d.toNumber());

export class ExecutionPriceService {
  private readonly feeSchedules = new FreshCache<FeeSchedule>(FEE_SCHEDULE_TTL_MS);

  constructor(
    private readonly targets: MarketTargets,
    private readonly orderbook: OrderbookService,
    /** Deadline of one venue request. */
    private readonly venueTimeoutMs: number,
  ) {}

  async estimate(q: ExecutionPriceQuery, caller: CallerContext): Promise<ExecutionEstimate> {
    const amount = amountOf(q.amount);
    const target = await this.targets.resolve(q, 'fetch_execution_price', caller);
    const [book, schedule] = await Promise.all([
      this.orderbook.fullBook(target, caller),
      this.feeSchedule(target, caller),
    ]);
    const walk = walkBook(q.side, levelsFromBook(q.side === 'buy' ? book.asks : book.bids), amount);
    const { fee, info } = feeFor(schedule, walk);
    const totalCost = q.side === 'buy' ? walk.notional : walk.notional.neg();
    return {
      svc_id: target.market.svc_id,
      exchange: book.exchange,
      market_id: book.market_id,
      outcome: target.outcome.name,
      token_id: book.token_id,
      side: q.side,
      amount: amount.toNumber(),
      avg_price: num(walk.avgPrice),
      total_cost: totalCost.toNumber(),
      filled_amount: walk.filled.toNumber(),
      fully_filled: walk.fullyFilled,
      slippage: num(walk.slippage),
      levels_consumed: walk.levelsConsumed,
      best_price: num(walk.bestPrice),
      worst_price: num(walk.worstPrice),
      fee_estimate: num(fee),
      net_cost: fee === null ? null : totalCost.add(fee).toNumber(),
      fee_info: info,
      timestamp: book.timestamp,
    };
  }

  /** The market's fee parameters, kept a minute (also what cross-venue answers price fees with). */
  feeSchedule(target: MarketTarget, caller: CallerContext): Promise<FeeSchedule> {
    const fetchFeeSchedule = target.venue.marketData.fetchFeeSchedule;
    if (!fetchFeeSchedule) {
      throw new Error(`${target.venue.descriptor.id} declares fetch_execution_price without a method`);
    }
    return this.feeSchedules.get(target.market.svc_id, () =>
      fetchFeeSchedule.call(
        target.venue.marketData,
        { ...caller, signal: AbortSignal.timeout(this.venueTimeoutMs) },
        target.market,
        target.outcome.name,
      ),
    );
  }
}
