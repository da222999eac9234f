// POST /arbitrage/execute: two buys that pay 1 together at resolution (Yes on one venue and No on its twin, or the
// two outcomes of one market), executed so that the legging risk is bounded. The legs must be linked (a published
// same_market link, the outcomes complementary through it, or both outcomes of one binary market), else 400. Both
// books and fee models are read; the pair's cost on them (fees included) must be below 1 (or at most `max_cost`),
// else 409 and nothing is sent. The leg on the thinner book goes first as an immediate order at its planned limit;
// the second is sized to what the first filled, at the limit its book allows for that size; when the second fails
// or fills short, `on_leg_risk: unwind` (default) sells the unhedged excess on the first venue at no less than
// `unwind_limit` (default: the worst bid selling it took on the book as read), `hold` keeps it. Each leg is an
// order of its own through the order journal (route-legs.ts) under its parent's row (kind `arbitrage`), each
// written to that row before it is sent, so a retry under the same Idempotency-Key carries on where the last
// stopped and never sends a leg twice. Figures are priced on the books the execution was planned on, for the sizes
// the legs actually filled (the exchanges' own fills are at GET /fills).
import { hash, randomUUID } from 'node:crypto';
import { type Static, Type } from 'typebox';
import type { BookLevel } from '../../domain/book.js';
import { levelsFromBook, type WalkLevel, walkBook } from '../../domain/book-walk.js';
import {
  type PairLeg,
  pairCost,
  pairResult,
  priceBuy,
  thinnerLeg,
} from '../../domain/crossvenue/paired-execution.js';
import { belowMinValue } from '../../domain/crossvenue/route-split.js';
import { twinOutcome } from '../../domain/crossvenue/twin-outcome.js';
import { Decimal } from '../../domain/decimal.js';
import { ExchangeId } from '../../domain/exchanges.js';
import { feeFor } from '../../domain/fees/fee-for.js';
import { FeeInfo, type FeeSchedule } from '../../domain/fees/schedule.js';
import type { Fill, OrderType } from '../../domain/trading.js';
import { AppError, validationError } from '../../errors/app-error.js';
import type { LinksRepo } from '../../store/links-repo.js';
import type { RouteOrdersRepo, RouteRow } from '../../store/route-orders-repo.js';
import type { SessionResolver } from '../../vault/session-resolver.js';
import type { ExecutionPriceService } from '../market-data/execution-price-service.js';
import { amountOf } from '../market-data/execution-price-service.js';
import type { MarketTarget, MarketTargets } from '../market-data/market-target.js';
import type { OrderbookService } from '../market-data/orderbook-service.js';
import { sessionOf, type TradingCaller } from '../trading/trading-caller.js';
import { type Drive, LegParents } from './leg-parents.js';
import { legMinimums } from './order-minimums.js';
import {
  LegOut,
  type LegOutcome,
  type LegSpec,
  legCaller,
  legKey,
  legOut,
  type RouteLegs,
} from './route-legs.js';
import { credentialsMap, idempotencyKeyOf, PerExchangeCredentials } from './route-orders-service.js';

const DECIMAL = '^[0-9]+(\\.[0-9]+)?$';
const LOT = Decimal.parse('0.01');
const IMMEDIATE: readonly OrderType[] = ['ioc', 'fok'];

export const ON_LEG_RISK = ['unwind', 'hold'] as const;
export type OnLegRisk = (typeof ON_LEG_RISK)[number];

export const ArbitrageExecuteBody = Type.Object(
  {
    legs: Type.Array(
      Type.Object(
        {
          svc_id: Type.String({ minLength: 1, maxLength: 512 }),
          outcome: Type.String({ minLength: 1, maxLength: 200 }),
        },
        { additionalProperties: false },
      ),
      {
        minItems: 2,
        maxItems: 2,
        description: 'The two buys, as an opportunity of GET /arbitrage lists them',
      },
    ),
    size: Type.String({ pattern: DECIMAL, maxLength: 40, description: 'Pairs (contracts per leg)' }),
    max_cost: Type.Optional(
      Type.String({
        pattern: DECIMAL,
        maxLength: 20,
        description:
          'The most one pair may cost on the books, both legs’ prices and fees included; default: refuse unless ' +
          'a pair costs less than its payout of 1',
      }),
    ),
    on_leg_risk: Type.Optional(
      Type.Enum(ON_LEG_RISK, {
        description:
          'When the second leg fails or fills short: unwind (default) sells the unhedged excess on the first ' +
          'venue at no less than unwind_limit; hold keeps it',
      }),
    ),
    unwind_limit: Type.Optional(
      Type.String({
        pattern: DECIMAL,
        maxLength: 20,
        description:
          'The lowest price the unwind sells at; default: the worst bid selling the excess reached on the first ' +
          'venue’s book as read when the execution was planned',
      }),
    ),
    credentials: Type.Optional(PerExchangeCredentials),
  },
  { additionalProperties: false },
);
export type ArbitrageExecuteBody = Static<typeof ArbitrageExecuteBody>;

interface ArbTerms {
  legs: Array<{ svc_id: string; outcome: string }>;
  size: string;
  max_cost: string | null;
  on_leg_risk: OnLegRisk;
  unwind_limit: string | null;
}

/** One leg as planned: its market, the book sides read (as JSON numbers), its fee model and the planned figures. */
interface PlannedSide {
  exchange: ExchangeId;
  svc_id: string;
  market_id: string;
  outcome: string;
  order_type: OrderType;
  tick: number | null;
  asks: BookLevel[];
  bids: BookLevel[];
  book_timestamp: string;
  schedule: FeeSchedule;
  limit_price: number;
  est_cost: number;
  /** The venue's minimum order size and value for a buy on this market (absent on rows written before them). */
  min_size?: number | null;
  min_value?: number | null;
  /** The same for the unwind (a sell). */
  min_sell_size?: number | null;
  min_sell_value?: number | null;
}

interface ArbPlan {
  /** In execution order: [first, second]. */
  sides: [PlannedSide, PlannedSide];
  size: number;
  est_pair_cost: number;
  max_cost: number | null;
  link: {
    svc_id: string;
    exchange: ExchangeId;
    confidence: number;
    confidence_tier: string;
    inverted: boolean;
  } | null;
}

const Figures = Type.Object({
  filled: Type.Number(),
  est_avg_price: Type.Union([Type.Number(), Type.Null()]),
  est_notional: Type.Number(),
  est_fee: Type.Number(),
  realised: Type.Union(
    [
      Type.Object({
        fills: Type.Integer({ description: 'The exchange’s fills of this leg’s order' }),
        avg_price: Type.Union([Type.Number(), Type.Null()]),
        notional: Type.Number({ description: 'Σ fill price × size' }),
        fee: Type.Union([Type.Number(), Type.Null()], {
          description: 'Σ the fees the exchange charged on those fills; null when it reports none',
        }),
      }),
      Type.Null(),
    ],
    {
      description:
        'The leg as the exchange filled it (its fills at GET /fills); null when they cannot be read now or do not ' +
        'add up to what the order filled yet (and in GET /arbitrage/executions lists: read one by id)',
    },
  ),
});

export const ArbitrageExecution = Type.Object({
  id: Type.String(),
  status: Type.Enum(['pending', 'hedged', 'partially_hedged', 'unhedged', 'unfilled'] as const, {
    description:
      'pending while a leg’s outcome is unknown (repeat the POST with the same Idempotency-Key to go on); hedged: ' +
      'every contract bought first is hedged or unwound; partially_hedged / unhedged: some or all of it is held ' +
      'unhedged (residual); unfilled: the first leg filled nothing',
  }),
  created_at: Type.String(),
  size: Type.Number(),
  on_leg_risk: Type.Enum(ON_LEG_RISK),
  legs: Type.Array(Type.Intersect([LegOut, Type.Object({ figures: Figures })])),
  est_pair_cost: Type.Number({ description: 'Cost of one pair on the books as planned, fees included' }),
  hedged: Type.Number({ description: 'Pairs held, each paying 1 at resolution' }),
  fees: Type.Number({
    description: 'Every leg’s fee, as its exchange’s model prices it on the planned books (an estimate)',
  }),
  est_edge: Type.Number({
    description:
      'hedged − what the hedged pairs cost (fees included), priced like est_* on the books as planned for the sizes ' +
      'filled',
  }),
  est_edge_bps: Type.Union([Type.Number(), Type.Null()]),
  realised_fees: Type.Union([Type.Number(), Type.Null()], {
    description:
      'Every leg’s fees as its exchange charged them (the legs’ realised figures); null when unknown',
  }),
  realised_edge: Type.Union([Type.Number(), Type.Null()], {
    description:
      'hedged − what the hedged pairs cost, from the exchanges’ fills (their prices and the fees charged); null ' +
      'when some leg’s realised figures are unknown',
  }),
  realised_edge_bps: Type.Union([Type.Number(), Type.Null()]),
  unwind_pnl: Type.Number({
    description: 'The unwind’s proceeds net of fee minus what those contracts cost',
  }),
  residual: Type.Union(
    [
      Type.Object({
        exchange: ExchangeId,
        svc_id: Type.String(),
        outcome: Type.String(),
        size: Type.Number(),
        cost: Type.Number(),
      }),
      Type.Null(),
    ],
    { description: 'First-leg contracts neither hedged nor unwound: your unhedged exposure' },
  ),
  decision: Type.Object({
    books: Type.Array(
      Type.Object({
        exchange: ExchangeId,
        svc_id: Type.String(),
        outcome: Type.String(),
        timestamp: Type.String(),
      }),
    ),
    fee_models: Type.Array(FeeInfo),
    link: Type.Union([
      Type.Object({
        svc_id: Type.String(),
        exchange: ExchangeId,
        confidence: Type.Number(),
        confidence_tier: Type.String(),
        inverted: Type.Boolean(),
      }),
      Type.Null(),
    ]),
  }),
});
export type ArbitrageExecution = Static<typeof ArbitrageExecution>;

export const ArbitrageExecutionList = Type.Object({
  executions: Type.Array(ArbitrageExecution),
  pagination: Type.Object({
    count: Type.Integer(),
    has_more: Type.Boolean(),
    next_cursor: Type.Optional(Type.String()),
  }),
});
export type ArbitrageExecutionList = Static<typeof ArbitrageExecutionList>;

export const ArbitrageExecutionListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Default 50' })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
);
export type ArbitrageExecutionListQuery = Static<typeof ArbitrageExecutionListQuery>;

interface ArbBook {
  legs: LegSpec[];
}

export interface ArbitrageExecutionOptions {
  targets: Pick<MarketTargets, 'resolve'>;
  links: Pick<LinksRepo, 'twins'>;
  orderbook: Pick<OrderbookService, 'fullBook'>;
  fees: Pick<ExecutionPriceService, 'feeSchedule'>;
  legs: RouteLegs;
  repo: RouteOrdersRepo;
  sessions: SessionResolver;
  clock?: () => number;
}

export class ArbitrageExecutionService {
  private readonly clock: () => number;
  private readonly parents: LegParents<ArbitrageExecution>;

  constructor(private readonly options: ArbitrageExecutionOptions) {
    this.clock = options.clock ?? Date.now;
    this.parents = new LegParents(options.repo, options.legs, 'arbitrage', 'execution');
  }

  /** One of the caller's executions, its legs reconciled with their exchanges when their outcome is unknown. */
  async get(caller: TradingCaller, id: string): Promise<ArbitrageExecution> {
    const row = await this.parents.byId(caller, id, 'arbitrage execution');
    return this.viewOf(caller, row, true);
  }

  /** The caller's executions, newest first, their legs as the journal has them. */
  async list(caller: TradingCaller, q: ArbitrageExecutionListQuery): Promise<ArbitrageExecutionList> {
    const { rows, ...pagination } = await this.parents.page(caller, q);
    const executions = await Promise.all(rows.map((row) => this.viewOf(caller, row, false)));
    return { executions, pagination: { count: executions.length, ...pagination } };
  }

  private async viewOf(
    caller: TradingCaller,
    row: RouteRow,
    reconcile: boolean,
  ): Promise<ArbitrageExecution> {
    const book = JSON.parse(row.legs) as ArbBook;
    const outcomes = await this.parents.read(caller, book.legs, reconcile);
    // A list does not ask every exchange for every leg's fills; one execution read by id does.
    const fills = reconcile
      ? await Promise.all(outcomes.map((o) => this.options.legs.fills(caller, o)))
      : outcomes.map(() => null);
    return view(row, JSON.parse(row.request) as ArbTerms, JSON.parse(row.plan) as ArbPlan, outcomes, fills);
  }

  async execute(
    caller: TradingCaller,
    body: ArbitrageExecuteBody,
    rawKey: string | undefined,
  ): Promise<ArbitrageExecution> {
    const key = idempotencyKeyOf(rawKey);
    const terms: ArbTerms = {
      legs: body.legs.map((l) => ({ svc_id: l.svc_id, outcome: l.outcome })),
      size: body.size,
      max_cost: body.max_cost ?? null,
      on_leg_risk: body.on_leg_risk ?? 'unwind',
      unwind_limit: body.unwind_limit ?? null,
    };
    const size = amountOf(terms.size);
    const unwindLimit = terms.unwind_limit === null ? null : Decimal.parse(terms.unwind_limit);
    if (unwindLimit && !(unwindLimit.gt(Decimal.ZERO) && unwindLimit.lt(Decimal.ONE))) {
      throw validationError(['unwind_limit must be strictly between 0 and 1']);
    }
    const maxCost = terms.max_cost === null ? null : Decimal.parse(terms.max_cost);
    if (maxCost?.isZero()) throw validationError(['max_cost must be greater than 0']);
    const credentials = credentialsMap(body.credentials);
    const requestHash = hash('sha256', JSON.stringify(terms), 'hex');
    return this.parents.act(caller, key, requestHash, this.driver(caller, credentials), () =>
      this.place(caller, credentials, terms, size, maxCost, key, requestHash),
    );
  }

  private driver(
    caller: TradingCaller,
    credentials: ReadonlyMap<string, unknown>,
  ): Drive<ArbitrageExecution> {
    return (row, depth) => this.drive(caller, credentials, row, depth);
  }

  private async place(
    caller: TradingCaller,
    credentials: ReadonlyMap<string, unknown>,
    terms: ArbTerms,
    size: Decimal,
    maxCost: Decimal | null,
    key: string,
    requestHash: string,
  ): Promise<ArbitrageExecution> {
    const [a, b] = terms.legs as [ArbTerms['legs'][0], ArbTerms['legs'][0]];
    const targets = await Promise.all(
      [a, b].map((l) =>
        this.options.targets.resolve({ svc_id: l.svc_id, outcome: l.outcome }, 'arbitrage_execute', caller),
      ),
    );
    const [ta, tb] = targets as [MarketTarget, MarketTarget];
    const link = await this.linkOf(ta, tb);
    for (const t of [ta, tb]) {
      await sessionOf(this.options.sessions, legCaller(caller, credentials, t.venue.descriptor.id), t.venue);
    }
    const read = await Promise.all(
      [ta, tb].map(async (t) => {
        const [book, schedule] = await Promise.all([
          this.options.orderbook.fullBook(t, caller),
          this.options.fees.feeSchedule(t, caller),
        ]);
        return { t, book, schedule };
      }),
    );
    const both = read.map(({ t, book, schedule }) => {
      const tick = book.tick_size ?? t.market.tick_size ?? null;
      const pair: PairLeg = {
        asks: levelsFromBook(book.asks),
        fee: (fills) => feeFor(schedule, { side: 'buy', fills }).fee ?? Decimal.ZERO,
        tick: typeof tick === 'number' && tick > 0 ? Decimal.fromNumber(tick) : null,
      };
      return { t, book, schedule, pair, tick };
    });
    for (const l of both) {
      if (
        feeFor(l.schedule, { side: 'buy', fills: [{ price: Decimal.parse('0.5'), size: Decimal.ONE }] })
          .fee === null
      ) {
        throw new AppError(
          'not_supported',
          `${l.t.venue.descriptor.id} does not publish the fee this market charges`,
        );
      }
    }
    // The pairs both books hold now, in whole lots.
    const depth = both.map((l) => walkBook('buy', l.pair.asks, size).filled);
    const fill = Decimal.min(depth[0] as Decimal, depth[1] as Decimal)
      .div(LOT, 0, 'floor')
      .mul(LOT);
    if (fill.isZero()) throw new AppError('conflict', 'the books hold no pair now; nothing was sent');
    const priced = both.map((l) => priceBuy(l.pair, fill)) as [
      ReturnType<typeof priceBuy>,
      ReturnType<typeof priceBuy>,
    ];
    const cost = pairCost(priced[0], priced[1], fill) as Decimal;
    if (maxCost ? cost.gt(maxCost) : !cost.lt(Decimal.ONE)) {
      throw new AppError(
        'conflict',
        `a pair costs ${cost.toString()} on the books, fees included, ` +
          `${maxCost ? `more than max_cost ${maxCost.toString()}` : 'not less than its payout of 1'}; nothing was sent`,
      );
    }
    // A leg below its venue's minimum order would be refused there: such a pair is not executed.
    for (const [i, l] of both.entries()) {
      const min = legMinimums(
        l.t.venue.descriptor,
        'buy',
        l.book.min_order_size ?? l.t.market.min_order_size,
      );
      const leg = { size: fill, limitPrice: priced[i as 0 | 1].limit };
      if ((min.size && fill.lt(min.size)) || belowMinValue({ minValue: min.value }, leg)) {
        throw new AppError(
          'conflict',
          `${l.t.venue.descriptor.id} takes no order of ${fill.toString()} at ${leg.limitPrice.toString()} ` +
            `(its minimum: ${min.size ? `${min.size.toString()} contracts` : ''}${min.size && min.value ? ', ' : ''}` +
            `${min.value ? `$${min.value.toString()} an order` : ''}); nothing was sent`,
        );
      }
    }
    const first = thinnerLeg([both[0]?.pair as PairLeg, both[1]?.pair as PairLeg], priced);
    const order = first === 0 ? [0, 1] : [1, 0];
    const side = (i: number): PlannedSide => {
      const l = both[i] as (typeof both)[0];
      const p = priced[i as 0 | 1];
      const orderType = IMMEDIATE.find((t) => l.t.venue.descriptor.features.orderTypes.includes(t));
      if (!orderType)
        throw new AppError('not_supported', `${l.t.venue.descriptor.id} takes no immediate orders`);
      return {
        exchange: l.t.venue.descriptor.id,
        svc_id: l.t.market.svc_id,
        market_id: l.t.market.exchange_market_id,
        outcome: l.t.outcome.name,
        order_type: orderType,
        tick: l.tick,
        asks: l.book.asks,
        bids: l.book.bids,
        book_timestamp: l.book.timestamp,
        schedule: l.schedule,
        limit_price: p.limit.toNumber(),
        est_cost: p.cost.toNumber(),
        ...minimumsOf(l.t.venue.descriptor, l.book.min_order_size ?? l.t.market.min_order_size),
      };
    };
    const plan: ArbPlan = {
      sides: [side(order[0] as number), side(order[1] as number)],
      size: fill.toNumber(),
      est_pair_cost: cost.toNumber(),
      max_cost: maxCost?.toNumber() ?? null,
      link,
    };
    const id = randomUUID();
    const s0 = plan.sides[0];
    const book: ArbBook = {
      legs: [
        {
          key: legKey(id, 0),
          round: 1,
          role: 'first',
          exchange: s0.exchange,
          svc_id: s0.svc_id,
          market_id: s0.market_id,
          outcome: s0.outcome,
          side: 'buy',
          order_type: s0.order_type,
          limit_price: s0.limit_price,
          size: fill.toNumber(),
        },
      ],
    };
    return this.parents.commit(
      caller,
      { id, key, requestHash, terms, plan, legs: book },
      this.clock(),
      this.driver(caller, credentials),
    );
  }

  /** The link that makes the two legs one bet paying 1, or a 400 naming why they are not. */
  private async linkOf(a: MarketTarget, b: MarketTarget): Promise<ArbPlan['link']> {
    const binary = (t: MarketTarget) => t.market.outcomes.length === 2;
    if (a.market.svc_id === b.market.svc_id) {
      if (a.outcome.name === b.outcome.name || !binary(a)) {
        throw validationError([
          'the two legs must be the two outcomes of one binary market, or linked twins',
        ]);
      }
      return null;
    }
    const link = (await this.options.links.twins(a.market.svc_id)).find((l) => l.svc_id === b.market.svc_id);
    if (!link) {
      throw validationError([
        `${a.market.svc_id} and ${b.market.svc_id} are not linked (no published same_market link)`,
      ]);
    }
    const mapped = twinOutcome(
      a.market.outcomes.map((o) => o.name),
      a.outcome.name,
      b.market.outcomes.map((o) => o.name),
      link.inverted,
    );
    if (!mapped.ok) throw validationError([`${b.market.svc_id}: ${mapped.reason}`]);
    if (!binary(b) || !binary(a) || mapped.name === b.outcome.name) {
      throw validationError([
        `buying ${a.outcome.name} on ${a.market.svc_id} and ${b.outcome.name} on ${b.market.svc_id} is the same ` +
          'bet twice, not a pair: take the other outcome on one of them',
      ]);
    }
    return {
      svc_id: link.svc_id,
      exchange: link.exchange,
      confidence: link.confidence,
      confidence_tier: link.confidence_tier,
      inverted: link.inverted,
    };
  }

  /** Sends the next leg the state calls for (each written to the parent row first), and answers. */
  private async drive(
    caller: TradingCaller,
    credentials: ReadonlyMap<string, unknown>,
    row: RouteRow,
    depth = 0,
  ): Promise<ArbitrageExecution> {
    const terms = JSON.parse(row.request) as ArbTerms;
    const plan = JSON.parse(row.plan) as ArbPlan;
    let book = JSON.parse(row.legs) as ArbBook;
    let text = row.legs;
    const send = (l: LegSpec) => this.options.legs.send(legCaller(caller, credentials, l.exchange), l);
    const outcomes: LegOutcome[] = [];
    /** Writes `spec` to the parent row before it is sent; false when another driver wrote a leg first. */
    const append = async (spec: LegSpec): Promise<boolean> => {
      const next = JSON.stringify({ legs: [...book.legs, spec] });
      if (!(await this.options.repo.replaceLegs(row.seq, text, next, 1, this.clock()))) return false;
      book = { legs: [...book.legs, spec] };
      text = next;
      return true;
    };
    const again = () => this.parents.again(row, depth, this.driver(caller, credentials));
    for (let i = 0; i < 3; i++) {
      const spec = book.legs[i];
      if (spec) {
        const outcome = await send(spec);
        if (outcome.refusedBeforeSending && outcome.error) {
          const legs = book.legs.map((l, j) => (j === i ? { ...l, refused: outcome.error ?? undefined } : l));
          const next = JSON.stringify({ legs });
          if (!(await this.options.repo.replaceLegs(row.seq, text, next, 1, this.clock()))) return again();
          book = { legs: legs as LegSpec[] };
          text = next;
        }
        outcomes.push(outcome);
        if (outcome.state === 'pending') break;
        continue;
      }
      const next = this.nextLeg(row.id, i, terms, plan, outcomes);
      if (!next) break;
      if (!(await append(next))) return again();
      const outcome = await send(next);
      if (outcome.refusedBeforeSending && outcome.error) {
        const legs = book.legs.map((l, j) => (j === i ? { ...l, refused: outcome.error ?? undefined } : l));
        const t = JSON.stringify({ legs });
        if (await this.options.repo.replaceLegs(row.seq, text, t, 1, this.clock())) {
          book = { legs: legs as LegSpec[] };
          text = t;
        }
      }
      outcomes.push(outcome);
      if (outcome.state === 'pending') break;
    }
    const fills = await Promise.all(
      outcomes.map((o) => this.options.legs.fills(legCaller(caller, credentials, o.spec.exchange), o)),
    );
    return view(row, terms, plan, outcomes, fills);
  }

  /** The second leg (sized to the first's fill) or the unwind (the excess), or null when none is due. */
  private nextLeg(
    id: string,
    index: number,
    terms: ArbTerms,
    plan: ArbPlan,
    outcomes: readonly LegOutcome[],
  ): LegSpec | null {
    const filled = (o: LegOutcome | undefined) =>
      o?.order && o.order.filled > 0 ? Decimal.fromNumber(o.order.filled) : Decimal.ZERO;
    const first = outcomes[0];
    const f = filled(first);
    if (index === 1) {
      const size = f.div(LOT, 0, 'floor').mul(LOT);
      if (size.isZero()) return null;
      const s = plan.sides[1];
      const priced = priceBuy(sidePair(s), size);
      // Sized to what the first filled; its limit is what the planned book asks for that size.
      return {
        key: legKey(id, 1),
        round: 1,
        role: 'second',
        exchange: s.exchange,
        svc_id: s.svc_id,
        market_id: s.market_id,
        outcome: s.outcome,
        side: 'buy',
        order_type: s.order_type,
        limit_price: (priced.walk.filled.isZero()
          ? Decimal.fromNumber(s.limit_price)
          : priced.limit
        ).toNumber(),
        size: size.toNumber(),
        ...belowMinimum(
          s,
          'buy',
          size,
          priced.walk.filled.isZero() ? Decimal.fromNumber(s.limit_price) : priced.limit,
        ),
      };
    }
    if (index === 2) {
      if (terms.on_leg_risk !== 'unwind') return null;
      const excess = f.sub(filled(outcomes[1])).div(LOT, 0, 'floor').mul(LOT);
      if (!excess.gt(Decimal.ZERO)) return null;
      const s = plan.sides[0];
      let limit: Decimal | null = terms.unwind_limit === null ? null : Decimal.parse(terms.unwind_limit);
      if (limit === null) {
        const walk = walkBook('sell', levelsFromBook(s.bids), excess);
        if (walk.worstPrice === null) return null;
        limit = walk.worstPrice;
        const tick = s.tick !== null && s.tick > 0 ? Decimal.fromNumber(s.tick) : null;
        if (tick) limit = limit.div(tick, 0, 'floor').mul(tick);
      }
      return {
        key: legKey(id, 2),
        round: 1,
        role: 'unwind',
        exchange: s.exchange,
        svc_id: s.svc_id,
        market_id: s.market_id,
        outcome: s.outcome,
        side: 'sell',
        order_type: s.order_type,
        limit_price: limit.toNumber(),
        size: excess.toNumber(),
        ...belowMinimum(s, 'sell', excess, limit),
      };
    }
    return null;
  }
}

/** A side's minimum order size and value, for its buy and its sell, from the venue and the book. */
function minimumsOf(
  descriptor: Parameters<typeof legMinimums>[0],
  minOrderSize: number | null | undefined,
): Pick<PlannedSide, 'min_size' | 'min_value' | 'min_sell_size' | 'min_sell_value'> {
  const buy = legMinimums(descriptor, 'buy', minOrderSize, true);
  const sell = legMinimums(descriptor, 'sell', minOrderSize, true);
  return {
    min_size: buy.size?.toNumber() ?? null,
    min_value: buy.value?.toNumber() ?? null,
    min_sell_size: sell.size?.toNumber() ?? null,
    min_sell_value: sell.value?.toNumber() ?? null,
  };
}

/**
 * A second leg or unwind below its venue's minimum order is recorded as refused without being sent (the exchange
 * would refuse it): the execution goes on as if it had been (the unwind follows a refused second leg).
 */
function belowMinimum(
  s: PlannedSide,
  side: 'buy' | 'sell',
  size: Decimal,
  limit: Decimal,
): { refused?: { error: string; code: string; retryable: boolean } } {
  const minSize = side === 'buy' ? s.min_size : s.min_sell_size;
  const minValue = side === 'buy' ? s.min_value : s.min_sell_value;
  const tooSmall = typeof minSize === 'number' && size.lt(Decimal.fromNumber(minSize));
  const tooLittle = belowMinValue(
    { minValue: typeof minValue === 'number' ? Decimal.fromNumber(minValue) : null },
    { size, limitPrice: limit },
  );
  if (!tooSmall && !tooLittle) return {};
  return {
    refused: {
      error:
        `${s.exchange} takes no ${side} of ${size.toString()} at ${limit.toString()} (its minimum: ` +
        `${tooSmall ? `${minSize} contracts` : `$${minValue} an order`}); not sent`,
      code: 'validation_error',
      retryable: false,
    },
  };
}

function realisedFigures(
  r: ReturnType<typeof realisedOf>,
): ArbitrageExecution['legs'][0]['figures']['realised'] {
  if (r === null) return null;
  return {
    fills: r.count,
    avg_price: r.filled.isZero() ? null : r.notional.div(r.filled, 12).toNumber(),
    notional: r.notional.toNumber(),
    fee: r.fee?.toNumber() ?? null,
  };
}

function sidePair(s: PlannedSide): PairLeg {
  return {
    asks: levelsFromBook(s.asks),
    fee: (fills) => feeFor(s.schedule, { side: 'buy', fills }).fee ?? Decimal.ZERO,
    tick: s.tick !== null && s.tick > 0 ? Decimal.fromNumber(s.tick) : null,
  };
}

/** A leg's figures for `filled` contracts, priced on the side of the planned book it took. */
function figuresOf(s: PlannedSide, o: LegOutcome): { filled: Decimal; notional: Decimal; fee: Decimal } {
  const filled = o.order && o.order.filled > 0 ? Decimal.fromNumber(o.order.filled) : Decimal.ZERO;
  if (filled.isZero()) return { filled, notional: Decimal.ZERO, fee: Decimal.ZERO };
  const side = o.spec.side;
  const levels: WalkLevel[] = levelsFromBook(side === 'buy' ? s.asks : s.bids);
  const walk = walkBook(side, levels, filled);
  const fee = feeFor(s.schedule, { side, fills: walk.fills }).fee ?? Decimal.ZERO;
  return { filled, notional: walk.notional, fee };
}

/** A leg as its exchange filled it, from its fills; null when they are unknown. */
function realisedOf(fills: readonly Fill[] | null) {
  if (fills === null) return null;
  let notional = Decimal.ZERO;
  let filled = Decimal.ZERO;
  let fee: Decimal | null = Decimal.ZERO;
  for (const f of fills) {
    const size = Decimal.fromNumber(f.size);
    filled = filled.add(size);
    notional = notional.add(Decimal.fromNumber(f.price).mul(size));
    fee = fee === null || f.fee === null ? null : fee.add(Decimal.fromNumber(f.fee));
  }
  return { count: fills.length, filled, notional, fee };
}

function view(
  row: RouteRow,
  terms: ArbTerms,
  plan: ArbPlan,
  outcomes: readonly LegOutcome[],
  fills: ReadonlyArray<readonly Fill[] | null>,
): ArbitrageExecution {
  const sideOf = (o: LegOutcome) => (o.spec.role === 'second' ? plan.sides[1] : plan.sides[0]);
  const figures = outcomes.map((o) => figuresOf(sideOf(o), o));
  const none = { filled: Decimal.ZERO, notional: Decimal.ZERO, fee: Decimal.ZERO };
  const [f1, f2, f3] = [figures[0] ?? none, figures[1] ?? none, figures[2] ?? none];
  const result = pairResult(
    f1.filled,
    f1.notional.add(f1.fee),
    { filled: f2.filled, cost: f2.notional.add(f2.fee) },
    { sold: f3.filled, netProceeds: f3.notional.sub(f3.fee) },
  );
  const pending = outcomes.some((o) => o.state === 'pending' || o.state === 'unsent');
  const status: ArbitrageExecution['status'] = pending
    ? 'pending'
    : f1.filled.isZero()
      ? 'unfilled'
      : result.residual.isZero()
        ? 'hedged'
        : result.hedged.isZero() && f3.filled.isZero()
          ? 'unhedged'
          : 'partially_hedged';
  const fees = f1.fee.add(f2.fee).add(f3.fee);
  const realised = outcomes.map((_, i) => realisedOf(fills[i] ?? null));
  const known = realised.every((r) => r !== null && r.fee !== null);
  const zero = { count: 0, filled: Decimal.ZERO, notional: Decimal.ZERO, fee: Decimal.ZERO };
  const [r1, r2, r3] = [0, 1, 2].map((i) => realised[i] ?? zero) as [typeof zero, typeof zero, typeof zero];
  const actual = known
    ? pairResult(
        r1.filled,
        r1.notional.add(r1.fee ?? Decimal.ZERO),
        { filled: r2.filled, cost: r2.notional.add(r2.fee ?? Decimal.ZERO) },
        { sold: r3.filled, netProceeds: r3.notional.sub(r3.fee ?? Decimal.ZERO) },
      )
    : null;
  const bps = (edge: Decimal, cost: Decimal) =>
    cost.isZero() ? null : edge.mul(Decimal.fromInt(10_000)).div(cost, 4).toNumber();
  const s0 = plan.sides[0];
  return {
    id: row.id,
    status,
    created_at: new Date(row.createdMs).toISOString(),
    size: plan.size,
    on_leg_risk: terms.on_leg_risk,
    legs: outcomes.map((o, i) => {
      const f = figures[i] ?? none;
      return {
        ...legOut(o),
        figures: {
          filled: f.filled.toNumber(),
          est_avg_price: f.filled.isZero() ? null : f.notional.div(f.filled, 12).toNumber(),
          est_notional: f.notional.toNumber(),
          est_fee: f.fee.toNumber(),
          realised: realisedFigures(realised[i] ?? null),
        },
      };
    }),
    est_pair_cost: plan.est_pair_cost,
    hedged: result.hedged.toNumber(),
    fees: fees.toNumber(),
    est_edge: result.edge.toNumber(),
    est_edge_bps: bps(result.edge, result.hedgedCost),
    realised_fees: known
      ? realised.reduce((sum, r) => sum.add(r?.fee ?? Decimal.ZERO), Decimal.ZERO).toNumber()
      : null,
    realised_edge: actual ? actual.edge.toNumber() : null,
    realised_edge_bps: actual ? bps(actual.edge, actual.hedgedCost) : null,
    unwind_pnl: result.unwindPnl.toNumber(),
    residual: result.residual.isZero()
      ? null
      : {
          exchange: s0.exchange,
          svc_id: s0.svc_id,
          outcome: s0.outcome,
          size: result.residual.toNumber(),
          cost: result.residualCost.toNumber(),
        },
    decision: {
      books: plan.sides.map((s) => ({
        exchange: s.exchange,
        svc_id: s.svc_id,
        outcome: s.outcome,
        timestamp: s.book_timestamp,
      })),
      fee_models: plan.sides.map((s) => feeFor(s.schedule, { side: 'buy', fills: [] }).info),
      link: plan.link,
    },
  };
}
