// One arbitrage direction of a published same_market link and its answer on the wire. A binary link gives two
// directions: buy A's Yes and, on B, the outcome that is A's No (B's No, or B's Yes through an inverted link); or
// buy A's No and B's counterpart of A's Yes. Each has a stable id (the link's two markets and the outcome bought
// on the first), so a client can follow it across answers and WebSocket messages, and its two legs' `{svc_id,
// outcome}` are what POST /arbitrage/execute takes. The math is domain/crossvenue/arbitrage.ts; this file turns
// books and fee schedules into its legs and its answer into the resource.
import { createHash } from 'node:crypto';
import { type Static, Type } from 'typebox';
import type { OrderBook } from '../../domain/book.js';
import { levelsFromBook } from '../../domain/book-walk.js';
import {
  type ArbitrageLeg,
  evaluateArbitrage,
  mayProfit,
  type PairPrice,
} from '../../domain/crossvenue/arbitrage.js';
import { twinOutcome } from '../../domain/crossvenue/twin-outcome.js';
import { Decimal } from '../../domain/decimal.js';
import { ExchangeId } from '../../domain/exchanges.js';
import { feeFor, takerFeeFunction } from '../../domain/fees/fee-for.js';
import { FeeInfo, type FeeSchedule } from '../../domain/fees/schedule.js';
import type { SameMarketPair } from '../../store/links-repo.js';
import type { MarketTarget } from '../market-data/market-target.js';

export const ArbitrageLegOut = Type.Object({
  svc_id: Type.String(),
  exchange: ExchangeId,
  market_id: Type.String(),
  outcome: Type.String({ description: "This venue's outcome bought (its own spelling)" }),
  side: Type.Literal('buy'),
  token_id: Type.String(),
  best_price: Type.Number({ description: 'The best ask of the outcome bought' }),
  best_size: Type.Number({ description: 'Contracts at the best ask' }),
  depth: Type.Number({ description: 'Contracts the asks hold in all' }),
  book_ts: Type.String({ description: "The venue's time of the book priced" }),
  book_state: Type.Literal('fresh', { description: 'Only fresh books are priced' }),
  tick_size: Type.Union([Type.Number(), Type.Null()]),
  min_order_size: Type.Union([Type.Number(), Type.Null()]),
  fee_model: FeeInfo,
});

export const EdgePoint = Type.Object({
  size: Type.Number({ description: 'Contracts of each leg (pairs)' }),
  total_cost: Type.Number({ description: "Both legs' book cost plus each venue's taker fee" }),
  net_profit: Type.Number({
    description: 'size (the pairs pay 1 each whichever way it settles) − total_cost',
  }),
  edge_bps: Type.Number({ description: 'net_profit / size × 10,000' }),
  legs: Type.Array(
    Type.Object({ avg_price: Type.Number(), worst_price: Type.Number(), fee: Type.Number() }),
    { minItems: 2, maxItems: 2, description: 'Per leg, in the order of `legs`' },
  ),
});

export const ResolutionCheckOut = Type.Object({
  checked: Type.Boolean({ description: 'False: nobody has compared how the two markets settle' }),
  comparable: Type.Union([Type.Boolean(), Type.Null()], {
    description:
      'False: the twins can settle differently (left out unless include_unsafe=true); null: unknown',
  }),
  differences: Type.Array(Type.String()),
  note: Type.Optional(Type.String()),
});

export const ArbitrageOpportunity = Type.Object({
  id: Type.String({ description: 'Stable per link and direction' }),
  legs: Type.Array(ArbitrageLegOut, {
    minItems: 2,
    maxItems: 2,
    description: 'Buy both; one contract of each pays 1 whichever way the bet settles',
  }),
  edge_bps: Type.Number({ description: "The best edge_bps of the curve's points" }),
  edge_curve: Type.Array(EdgePoint, {
    description:
      'At min_size, at 10, 100 and 1,000 contracts, and at the largest profitable size, where both books hold them',
  }),
  max_profitable_size: Type.Union([Type.Number(), Type.Null()], {
    description: 'The largest whole number of pairs both books hold with a positive net profit; null: none',
  }),
  max_net_profit: Type.Union([Type.Number(), Type.Null()], {
    description: 'Net profit at max_profitable_size',
  }),
  link: Type.Object({
    svc_id: Type.String(),
    linked_svc_id: Type.String(),
    confidence: Type.Number(),
    confidence_tier: Type.String(),
    source: Type.String(),
    inverted: Type.Boolean({
      description: "The twin asks the question the other way round (its Yes is the other's No)",
    }),
  }),
  link_confidence: Type.Number(),
  resolution_check: ResolutionCheckOut,
  unsafe: Type.Boolean({ description: 'The resolution check found the twins can settle differently' }),
});
export type ArbitrageOpportunity = Static<typeof ArbitrageOpportunity>;

/** One leg of a direction: the outcome bought and the venue it is bought on. */
export interface DirectionLeg {
  target: MarketTarget;
}

export interface Direction {
  id: string;
  pair: SameMarketPair;
  legs: [DirectionLeg, DirectionLeg];
}

/** What a leg is priced from. */
export interface LegQuote {
  book: OrderBook;
  schedule: FeeSchedule;
}

const lower = (s: string) => s.trim().toLowerCase();
const binary = (t: readonly MarketTarget[]) =>
  t.length === 2 &&
  t.some((o) => lower(o.outcome.name) === 'yes') &&
  t.some((o) => lower(o.outcome.name) === 'no');

export function directionId(pair: SameMarketPair, firstOutcome: string): string {
  const digest = createHash('sha256')
    .update(`${pair.a.svc_id}\u0000${pair.b.svc_id}\u0000${lower(firstOutcome)}`)
    .digest('base64url');
  return `arb_${digest.slice(0, 22)}`;
}

/**
 * The link's two directions, from both markets' outcomes (each with its token); a reason when the link cannot be
 * traded as one (not two yes/no markets, or outcomes the link does not map).
 */
export function directionsOf(
  pair: SameMarketPair,
  a: readonly MarketTarget[],
  b: readonly MarketTarget[],
): Direction[] | string {
  if (!binary(a) || !binary(b)) return 'arbitrage pairs yes/no markets only';
  const ownNames = a.map((t) => t.outcome.name);
  const twinNames = b.map((t) => t.outcome.name);
  const out: Direction[] = [];
  for (const first of a) {
    const other = a.find((t) => t !== first) as MarketTarget;
    // B's outcome that wins exactly when `first` loses: the twin of A's other outcome.
    const mapped = twinOutcome(ownNames, other.outcome.name, twinNames, pair.inverted);
    if (!mapped.ok) return mapped.reason;
    const second = b.find((t) => lower(t.outcome.name) === lower(mapped.name)) as MarketTarget;
    out.push({
      id: directionId(pair, first.outcome.name),
      pair,
      legs: [{ target: first }, { target: second }],
    });
  }
  return out;
}

/** The key of one outcome's book. */
export function bookKey(target: MarketTarget): string {
  return `${target.market.svc_id}\u0000${target.outcome.token_id}`;
}

/** The fee model of a buy on this schedule, and whether it computes a fee. */
export function feeModel(schedule: FeeSchedule): { info: Static<typeof FeeInfo>; known: boolean } {
  const probe = feeFor(schedule, {
    side: 'buy',
    fills: [{ price: Decimal.parse('0.5'), size: Decimal.ONE }],
  });
  return { info: feeFor(schedule, { side: 'buy', fills: [] }).info, known: probe.fee !== null };
}

function arbitrageLeg(quote: LegQuote): ArbitrageLeg {
  const fee = takerFeeFunction(quote.schedule, 'buy');
  return { asks: levelsFromBook(quote.book.asks), fee: fee ?? (() => Decimal.ZERO) };
}

const num = (d: Decimal) => d.toNumber();

function point(p: PairPrice): Static<typeof EdgePoint> {
  return {
    size: num(p.size),
    total_cost: num(p.cost),
    net_profit: num(p.netProfit),
    edge_bps: num(p.edgeBps),
    legs: p.legs.map((l) => ({
      avg_price: num(l.avgPrice),
      worst_price: num(l.worstPrice),
      fee: num(l.fee),
    })),
  };
}

export interface PriceOptions {
  minSize: number;
  /** Only an edge of at least this many bps; null: only a positive net profit. */
  minEdgeBps: number | null;
}

/** Why a direction priced from its books is not an opportunity at these options, or the opportunity. */
export type Priced = { ok: true; opportunity: ArbitrageOpportunity } | { ok: false; reason: string };

/**
 * Prices one direction from its legs' current (fresh) books and fee schedules. A leg whose fee the model cannot
 * compute is never priced (its cost would be a guess).
 */
export function priceDirection(
  dir: Direction,
  quotes: readonly [LegQuote, LegQuote],
  options: PriceOptions,
): Priced {
  const models = quotes.map((q) => feeModel(q.schedule));
  for (const [i, m] of models.entries()) {
    if (!m.known)
      return {
        ok: false,
        reason: `${dir.legs[i]?.target.venue.descriptor.id} does not publish this market's taker fee`,
      };
  }
  const legs: [ArbitrageLeg, ArbitrageLeg] = [arbitrageLeg(quotes[0]), arbitrageLeg(quotes[1])];
  // Most pairs of twins cost more than 1 at the best asks: nothing to walk.
  if (options.minEdgeBps === null || options.minEdgeBps >= 0) {
    if (!mayProfit(legs)) return { ok: false, reason: 'the best asks cost at least the payout' };
  }
  const evaluation = evaluateArbitrage(legs, options.minSize);
  if (!evaluation) return { ok: false, reason: 'the books hold fewer contracts than min_size' };
  const best = evaluation.best;
  // Only a negative floor lists a direction that does not pay (a near miss).
  const floor = options.minEdgeBps;
  if ((floor === null || floor >= 0) && !best.netProfit.gt(Decimal.ZERO)) {
    return { ok: false, reason: 'no size pays more than it costs' };
  }
  if (floor !== null && best.edgeBps.lt(Decimal.fromNumber(floor))) {
    return { ok: false, reason: 'below the edge asked for' };
  }
  const check = dir.pair.resolution_check ?? null;
  // `unknown` alone means one side does not state a rule the other does: not a known way to settle differently, so
  // the pair is not unsafe, but it is not vouched for either (comparable null).
  const known = check ? check.differences.filter((d) => d !== 'unknown') : [];
  const resolution_check: Static<typeof ResolutionCheckOut> = check
    ? {
        checked: true,
        comparable: known.length > 0 ? false : check.differences.length === 0 ? true : null,
        differences: [...check.differences],
      }
    : {
        checked: false,
        comparable: null,
        differences: [],
        note: 'the two markets’ resolution rules have not been compared: unverified',
      };
  const { pair } = dir;
  return {
    ok: true,
    opportunity: {
      id: dir.id,
      legs: [0, 1].map((i) => {
        const { target } = dir.legs[i] as DirectionLeg;
        const { book } = quotes[i] as LegQuote;
        const asks = legs[i]?.asks ?? [];
        const depth = asks.reduce((s, l) => s.add(l.size), Decimal.ZERO);
        return {
          svc_id: target.market.svc_id,
          exchange: target.venue.descriptor.id,
          market_id: target.market.exchange_market_id,
          outcome: target.outcome.name,
          side: 'buy' as const,
          token_id: book.token_id,
          best_price: num(asks[0]?.price ?? Decimal.ZERO),
          best_size: num(asks[0]?.size ?? Decimal.ZERO),
          depth: num(depth),
          book_ts: book.timestamp,
          book_state: 'fresh' as const,
          tick_size: book.tick_size ?? target.market.tick_size ?? null,
          min_order_size: book.min_order_size ?? target.market.min_order_size ?? null,
          fee_model: (models[i] as (typeof models)[number]).info,
        };
      }),
      edge_bps: num(best.edgeBps),
      edge_curve: evaluation.curve.map(point),
      max_profitable_size: evaluation.maxProfitable ? num(evaluation.maxProfitable.size) : null,
      max_net_profit: evaluation.maxProfitable ? num(evaluation.maxProfitable.netProfit) : null,
      link: {
        svc_id: pair.a.svc_id,
        linked_svc_id: pair.b.svc_id,
        confidence: pair.confidence,
        confidence_tier: pair.confidence_tier,
        source: pair.source,
        inverted: pair.inverted,
      },
      link_confidence: pair.confidence,
      resolution_check,
      unsafe: resolution_check.comparable === false,
    },
  };
}

/** What an opportunity's client needs told again when it changes: everything but the books' times. */
export function substance(o: ArbitrageOpportunity): string {
  return JSON.stringify([o.legs.map((l) => [l.best_price, l.best_size, l.depth]), o.edge_curve, o.unsafe]);
}
