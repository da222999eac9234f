// GET /route/quote: the cheapest split of one taker order across the venues that list the bet (the market and its
// published twins, twins.ts), net of each venue's taker fee, priced exactly on the live books GET /orderbook reads
// (the split itself is domain/crossvenue/route-split.ts). Only venues an order can be sent to are used: one that
// takes an immediate order type (ioc or fok) and publishes its fee; without `exchanges`, also only those the caller
// can trade (create_order, and stored or managed credentials there). Every venue left out is named with the reason,
// and the answer's `decision` records the books, fee models and links it was computed from.
import { type Static, Type } from 'typebox';
import { levelsFromBook } from '../../domain/book-walk.js';
import {
  type RouteLeg,
  type RoutePlan,
  type RouteVenue,
  splitRoute,
} from '../../domain/crossvenue/route-split.js';
import { Decimal } from '../../domain/decimal.js';
import { ExchangeId } from '../../domain/exchanges.js';
import { feeFor } from '../../domain/fees/fee-for.js';
import { FeeInfo } from '../../domain/fees/schedule.js';
import type { OrderType } from '../../domain/trading.js';
import { isAppError } from '../../errors/app-error.js';
import type { SessionResolver } from '../../vault/session-resolver.js';
import type { CallerContext } from '../caller-context.js';
import type { ExchangesService } from '../exchanges-service.js';
import { amountOf, type ExecutionPriceService } from '../market-data/execution-price-service.js';
import { MarketSelectorFields, type MarketTarget } from '../market-data/market-target.js';
import type { OrderbookService } from '../market-data/orderbook-service.js';
import { legMinimums } from './order-minimums.js';
import { MinTier, type Twins, type VenueOfBet } from './twins.js';

/** The most legs a route may have: one per exchange. */
export const MAX_LEGS = 5;

/**
 * Order sizes each exchange takes, as its adapter sends them: polymarket signs sizes of at most 2 decimals
 * (venues/polymarket/signing.ts), kalshi sends `count` with 2 (venues/kalshi/parse-trading.ts).
 */
const SIZE_STEP: Partial<Record<ExchangeId, Decimal>> = {
  polymarket: Decimal.parse('0.01'),
  kalshi: Decimal.parse('0.01'),
};
const DEFAULT_SIZE_STEP = Decimal.parse('0.01');
/** A route's legs are taker orders: sent as the first of these the exchange takes. */
const IMMEDIATE: readonly OrderType[] = ['ioc', 'fok'];

export const RouteQuoteQuery = Type.Object(
  {
    ...MarketSelectorFields,
    side: Type.Union([Type.Literal('buy'), Type.Literal('sell')]),
    amount: Type.String({
      pattern: '^[0-9]+(\\.[0-9]+)?$',
      maxLength: 40,
      description: 'Contracts, > 0, at most 6 decimals (a plain decimal: 12.5)',
    }),
    exchanges: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'Comma-separated exchanges to route across (quote only: credentials are not required); default: the ' +
          'exchanges you can trade (create_order, and stored or managed credentials there)',
      }),
    ),
    max_legs: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_LEGS, description: `Default ${MAX_LEGS}` }),
    ),
    min_tier: Type.Optional(MinTier),
  },
  { additionalProperties: false },
);
export type RouteQuoteQuery = Static<typeof RouteQuoteQuery>;

const Side = Type.Union([Type.Literal('buy'), Type.Literal('sell')]);
const NullableNum = Type.Union([Type.Number(), Type.Null()]);

export const RouteLegOut = Type.Object({
  exchange: ExchangeId,
  svc_id: Type.String(),
  market_id: Type.String(),
  outcome: Type.String(),
  token_id: Type.String(),
  side: Side,
  order_type: Type.String({ description: 'The immediate order type the leg would be sent as (ioc or fok)' }),
  limit_price: Type.Number({ description: "The worst price the leg's walk reaches, on the market's tick" }),
  size: Type.Number(),
  est_avg_price: Type.Number(),
  est_fee: Type.Number(),
  est_net_cost: Type.Number({
    description: 'Σ price × size (buy) or its negative (sell), plus the fee: as net_cost on /execution-price',
  }),
});

export const RouteQuote = Type.Object({
  svc_id: Type.String(),
  outcome: Type.String(),
  side: Side,
  amount: Type.Number(),
  legs: Type.Array(RouteLegOut),
  totals: Type.Object({
    size: Type.Number({ description: 'Contracts the legs fill together' }),
    est_net_cost: Type.Number(),
    est_avg_price: NullableNum,
    fully_filled: Type.Boolean(),
  }),
  best_single: Type.Union(
    [
      Type.Object({
        exchange: ExchangeId,
        svc_id: Type.String(),
        size: Type.Number(),
        est_net_cost: Type.Number(),
        fully_filled: Type.Boolean(),
      }),
      Type.Null(),
    ],
    { description: 'The best the same venues do one at a time (null when none alone can take any of it)' },
  ),
  savings: Type.Union([Type.Number(), Type.Null()], {
    description: "best_single's est_net_cost minus the route's, when both fill the same size; else null",
  }),
  excluded: Type.Array(Type.Object({ exchange: ExchangeId, svc_id: Type.String(), reason: Type.String() })),
  decision: Type.Object({
    books: Type.Array(
      Type.Object({
        exchange: ExchangeId,
        svc_id: Type.String(),
        outcome: Type.String(),
        token_id: Type.String(),
        timestamp: Type.String({ description: "The venue's time of the book priced" }),
        tick_size: NullableNum,
        min_order_size: NullableNum,
      }),
    ),
    fee_models: Type.Array(FeeInfo),
    links: Type.Array(
      Type.Object({
        svc_id: Type.String(),
        exchange: ExchangeId,
        confidence: Type.Number(),
        confidence_tier: Type.String(),
        source: Type.String(),
        inverted: Type.Boolean(),
      }),
    ),
  }),
});
export type RouteQuote = Static<typeof RouteQuote>;

interface Priced {
  target: MarketTarget;
  venue: RouteVenue;
  orderType: OrderType;
}

/** A quote with what it was computed from: POST /route/orders sends its legs and measures its slippage. */
export interface PlannedRoute {
  quote: RouteQuote;
  /** The venues priced (their levels and fee models), as the split saw them. */
  venues: RouteVenue[];
  plan: RoutePlan;
}

export class RouteQuoteService {
  constructor(
    private readonly twins: Twins,
    private readonly orderbook: Pick<OrderbookService, 'fullBook'>,
    private readonly fees: Pick<ExecutionPriceService, 'feeSchedule'>,
    private readonly exchanges: Pick<ExchangesService, 'filterList' | 'venueFor'>,
    private readonly sessions: Pick<SessionResolver, 'resolve'>,
  ) {}

  async quote(q: RouteQuoteQuery, caller: CallerContext): Promise<RouteQuote> {
    return (await this.plan(q, caller)).quote;
  }

  async plan(q: RouteQuoteQuery, caller: CallerContext): Promise<PlannedRoute> {
    const amount = amountOf(q.amount);
    const wanted = this.exchanges.filterList(q.exchanges, 'fetch_execution_price');
    const venues = await this.twins.of(q, 'fetch_execution_price', caller);
    const origin = venues[0];
    if (!origin?.ok) throw new Error('the selected market resolves or throws');
    const excluded: RouteQuote['excluded'] = [];
    const decision: RouteQuote['decision'] = { books: [], fee_models: [], links: [] };
    for (const v of venues) {
      if (v.link) {
        const { svc_id, exchange, confidence, confidence_tier, source, inverted } = v.link;
        decision.links.push({ svc_id, exchange, confidence, confidence_tier, source, inverted });
      }
    }
    // Each venue records into its own slot, so the answer lists venues in the same order whatever answers first.
    const slots = venues.map(() => ({
      excluded: [] as RouteQuote['excluded'],
      decision: { books: [], fee_models: [], links: [] } as RouteQuote['decision'],
    }));
    const results = await Promise.all(
      venues.map((v, i) => {
        const slot = slots[i] as (typeof slots)[number];
        return this.priced(v, q.side, wanted, caller, slot.excluded, slot.decision);
      }),
    );
    for (const slot of slots) {
      excluded.push(...slot.excluded);
      decision.books.push(...slot.decision.books);
      decision.fee_models.push(...slot.decision.fee_models);
    }
    const priced = results.filter((p): p is Priced => p !== null);
    const split = splitRoute(
      q.side,
      priced.map((p) => p.venue),
      amount,
      q.max_legs ?? MAX_LEGS,
    );
    const byId = new Map(priced.map((p) => [p.venue.id, p]));
    const leg = (l: RouteLeg) => {
      const p = byId.get(l.id) as Priced;
      return {
        exchange: p.target.venue.descriptor.id,
        svc_id: p.target.market.svc_id,
        market_id: p.target.market.exchange_market_id,
        outcome: p.target.outcome.name,
        token_id: p.target.outcome.token_id,
        side: q.side,
        order_type: p.orderType,
        limit_price: l.limitPrice.toNumber(),
        size: l.size.toNumber(),
        est_avg_price: (l.walk.avgPrice ?? Decimal.ZERO).toNumber(),
        est_fee: l.fee.toNumber(),
        est_net_cost: l.netCost.toNumber(),
      };
    };
    const plan = split.plan;
    const single = split.bestSingle;
    const notional = plan.legs.reduce((s, l) => s.add(l.walk.notional), Decimal.ZERO);
    const quote: RouteQuote = {
      svc_id: origin.target.market.svc_id,
      outcome: origin.target.outcome.name,
      side: q.side,
      amount: amount.toNumber(),
      legs: plan.legs.map(leg),
      totals: {
        size: plan.filled.toNumber(),
        est_net_cost: plan.netCost.toNumber(),
        est_avg_price: plan.filled.isZero() ? null : notional.div(plan.filled, 12).toNumber(),
        fully_filled: plan.filled.eq(amount),
      },
      best_single: single ? this.single(single, byId, amount) : null,
      savings: single?.filled.eq(plan.filled) ? single.netCost.sub(plan.netCost).toNumber() : null,
      excluded,
      decision,
    };
    return { quote, venues: priced.map((p) => p.venue), plan };
  }

  private single(
    p: RoutePlan,
    byId: Map<string, Priced>,
    amount: Decimal,
  ): NonNullable<RouteQuote['best_single']> {
    const only = byId.get(p.legs[0]?.id ?? '') as Priced;
    return {
      exchange: only.target.venue.descriptor.id,
      svc_id: only.target.market.svc_id,
      size: p.filled.toNumber(),
      est_net_cost: p.netCost.toNumber(),
      fully_filled: p.filled.eq(amount),
    };
  }

  /** The venue ready to be routed, or null after recording why it is left out. */
  private async priced(
    v: VenueOfBet,
    side: 'buy' | 'sell',
    wanted: readonly string[] | null,
    caller: CallerContext,
    excluded: RouteQuote['excluded'],
    decision: RouteQuote['decision'],
  ): Promise<Priced | null> {
    const exchange = v.ok ? v.target.venue.descriptor.id : v.exchange;
    const svcId = v.ok ? v.target.market.svc_id : v.svc_id;
    const out = (reason: string) => {
      excluded.push({ exchange, svc_id: svcId, reason });
      return null;
    };
    if (!v.ok) return out(v.error.error);
    if (wanted && !wanted.includes(exchange)) return out('not among the exchanges asked for');
    const venue = v.target.venue;
    if (!wanted) {
      const why = await this.untradable(exchange, venue.descriptor, caller);
      if (why) return out(why);
    }
    const orderType = IMMEDIATE.find((t) => venue.descriptor.features.orderTypes.includes(t));
    if (!orderType) return out(`${exchange} takes no immediate (ioc or fok) orders through this server`);
    if (venue.descriptor.features.takerFeeModel === null || !venue.marketData.fetchFeeSchedule)
      return out(`${exchange} does not publish the fee its takers pay (no taker fee model)`);
    let book: Awaited<ReturnType<OrderbookService['fullBook']>>;
    let schedule: Awaited<ReturnType<ExecutionPriceService['feeSchedule']>>;
    try {
      [book, schedule] = await Promise.all([
        this.orderbook.fullBook(v.target, caller),
        this.fees.feeSchedule(v.target, caller),
      ]);
    } catch (error) {
      if (!isAppError(error)) throw error;
      return out(`${error.code}: ${error.message}`);
    }
    const info = feeFor(schedule, { side, fills: [] }).info;
    decision.fee_models.push(info);
    if (
      feeFor(schedule, { side, fills: [{ price: Decimal.parse('0.5'), size: Decimal.ONE }] }).fee === null
    ) {
      return out(`${exchange} does not publish the fee this market charges (${info.note ?? info.fee_type})`);
    }
    const tick = book.tick_size ?? v.target.market.tick_size ?? null;
    const min = book.min_order_size ?? v.target.market.min_order_size ?? null;
    const minimums = legMinimums(venue.descriptor, side, min);
    decision.books.push({
      exchange,
      svc_id: svcId,
      outcome: v.target.outcome.name,
      token_id: book.token_id,
      timestamp: book.timestamp,
      tick_size: tick,
      min_order_size: min,
    });
    return {
      target: v.target,
      orderType,
      venue: {
        id: svcId,
        levels: levelsFromBook(side === 'buy' ? book.asks : book.bids),
        fee: (fills) => feeFor(schedule, { side, fills }).fee ?? Decimal.ZERO,
        lot: SIZE_STEP[exchange] ?? DEFAULT_SIZE_STEP,
        minSize: minimums.size,
        minValue: minimums.value,
        tick: typeof tick === 'number' && tick > 0 ? Decimal.fromNumber(tick) : null,
      },
    };
  }

  /** Why the caller cannot trade on `exchange`, or null when it can. */
  private async untradable(
    exchange: ExchangeId,
    descriptor: MarketTarget['venue']['descriptor'],
    caller: CallerContext,
  ): Promise<string | null> {
    try {
      this.exchanges.venueFor(exchange, 'create_order');
    } catch (error) {
      if (isAppError(error)) return `${exchange} takes no orders through this server (create_order)`;
      throw error;
    }
    if (caller.tenant === null) return `no ${exchange} credentials for this key`;
    try {
      await this.sessions.resolve({ customerId: caller.tenant, exchange, fields: descriptor.credentials });
      return null;
    } catch (error) {
      if (isAppError(error)) return `no usable ${exchange} credentials: ${error.message}`;
      throw error;
    }
  }
}
