// POST /route/orders: a route quote's terms acted on. The split is planned again on the current books
// (RouteQuoteService.plan, the same code as GET /route/quote) and refused (409, nothing sent, the key not used) when
// its average fee-net price is worse than the best fee-net price on the books by more than `max_slippage`. Then the
// parent row (store/route-orders-repo.ts) is committed with every leg as planned, and the legs are sent concurrently
// as orders of their own through the order journal (route-legs.ts), each at its planned limit price as the
// exchange's immediate order type, so no leg pays more than the plan. A leg fails when it is refused, its outcome is
// unknown (pending), or it fills short. On a failure, `on_leg_failure`:
//  - cancel_rest: nothing more is sent, and every leg still working at its exchange (open, or pending there) is
//    cancelled;
//  - keep: the legs stand, and the shortfall (what neither filled nor may still fill) is routed once more on the
//    venues whose legs did not fail, planned on their current books under the same slippage bound; that second
//    round is written to the parent row before its legs are sent.
// A repeated POST under the same Idempotency-Key drives the stored route again: every leg with a journal row is
// replayed (reconciled with its exchange, never sent again), a planned leg without one (the server died between the
// parent's commit and its send) is sent now, and a second round is planned only if none was recorded. So after a
// crash no leg is sent twice and none is lost.
import { hash, randomUUID } from 'node:crypto';
import { type Static, Type } from 'typebox';
import { bestNetPrice, planSlippage } from '../../domain/crossvenue/route-split.js';
import { Decimal } from '../../domain/decimal.js';
import { ExchangeId } from '../../domain/exchanges.js';
import { AppError, validationError } from '../../errors/app-error.js';
import type { RouteOrdersRepo, RouteRow } from '../../store/route-orders-repo.js';
import type { SessionResolver } from '../../vault/session-resolver.js';
import type { ExchangesService } from '../exchanges-service.js';
import { amountOf } from '../market-data/execution-price-service.js';
import { MarketSelectorFields } from '../market-data/market-target.js';
import { sessionOf, type TradingCaller } from '../trading/trading-caller.js';
import { type Drive, LegParents } from './leg-parents.js';
import {
  LegOut,
  type LegOutcome,
  type LegSpec,
  legCaller,
  legKey,
  legOut,
  type RouteLegs,
} from './route-legs.js';
import { MAX_LEGS, type PlannedRoute, RouteQuote, type RouteQuoteService } from './route-quote-service.js';
import { MinTier, VenueError } from './twins.js';

export const ON_LEG_FAILURE = ['cancel_rest', 'keep'] as const;
export type OnLegFailure = (typeof ON_LEG_FAILURE)[number];

const DECIMAL = '^[0-9]+(\\.[0-9]+)?$';
/** The sizes a shortfall is routed in (the lot of today's routed exchanges, route-quote-service.ts). */
const SHORTFALL_LOT = Decimal.parse('0.01');
const LIST_LIMIT_MAX = 100;

/** Per-request credentials for several exchanges at once: `{ <exchange>: <that exchange's credential JSON> }`. */
export const PerExchangeCredentials = Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()), {
  description:
    'Per-request credentials by exchange id (each the JSON X-Exchange-Credentials carries for that exchange); ' +
    'never stored. Exchanges not named here trade with your stored or managed credentials',
});

export const RouteOrderBody = Type.Object(
  {
    ...MarketSelectorFields,
    side: Type.Union([Type.Literal('buy'), Type.Literal('sell')]),
    amount: Type.String({
      pattern: DECIMAL,
      maxLength: 40,
      description: 'Contracts, as on GET /route/quote',
    }),
    exchanges: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
        minItems: 1,
        maxItems: 5,
        description:
          'Exchanges to route across (each must serve route_orders); default: those you can trade (stored or ' +
          'managed credentials)',
      }),
    ),
    max_legs: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LEGS })),
    min_tier: Type.Optional(MinTier),
    max_slippage: Type.String({
      pattern: DECIMAL,
      maxLength: 20,
      description:
        'The most the plan’s average price per contract, net of fees, may be worse than the best fee-net price on ' +
        'the books it is planned on (the best `net_price` of /orderbook/consolidated), in price units (0.02 = 2 ' +
        'cents). A plan past it is refused with 409 and nothing is sent',
    }),
    on_leg_failure: Type.Optional(
      Type.Enum(ON_LEG_FAILURE, {
        description:
          'When a leg is refused, its outcome is unknown, or it fills short. cancel_rest (default): send nothing ' +
          'more and cancel any leg still working; keep: keep the legs and route the shortfall once more on the ' +
          'venues whose legs did not fail (same max_slippage)',
      }),
    ),
    credentials: Type.Optional(PerExchangeCredentials),
  },
  { additionalProperties: false },
);
export type RouteOrderBody = Static<typeof RouteOrderBody>;

/** What the parent row's request holds: the terms, never credentials (its hash is the Idempotency-Key's check). */
interface RouteTerms {
  svc_id: string | null;
  exchange: string | null;
  market_id: string | null;
  outcome: string | null;
  side: 'buy' | 'sell';
  amount: string;
  exchanges: string[] | null;
  max_legs: number | null;
  min_tier: MinTier | null;
  max_slippage: string;
  on_leg_failure: OnLegFailure;
}

const SecondRound = Type.Object({
  amount: Type.Number({ description: 'Contracts short after the first round' }),
  sent: Type.Boolean(),
  reason: Type.Union([Type.String(), Type.Null()], { description: 'Why nothing was sent, when nothing was' }),
  slippage: Type.Union([Type.Number(), Type.Null()]),
  exchanges: Type.Array(ExchangeId),
  decision: Type.Union([RouteQuote.properties.decision, Type.Null()]),
});
type SecondRound = Static<typeof SecondRound>;

/** The parent row's legs column: every leg planned so far, and the second round once decided. */
interface LegBook {
  legs: LegSpec[];
  second_round: SecondRound | null;
}

/** The parent row's plan column: what the first round was planned from. */
interface StoredPlan {
  svc_id: string;
  outcome: string;
  reference_price: number;
  slippage: number;
  est_net_cost: number;
  size: number;
  excluded: RouteQuote['excluded'];
  decision: RouteQuote['decision'];
}

export const ROUTE_STATUSES = ['pending', 'filled', 'partially_filled', 'unfilled', 'rejected'] as const;

export const RouteOrder = Type.Object({
  id: Type.String(),
  status: Type.Enum(ROUTE_STATUSES, {
    description:
      'pending while a leg is unsent or its outcome unknown; then filled (the amount), partially_filled, ' +
      'unfilled (nothing filled) or rejected (every leg refused)',
  }),
  created_at: Type.String(),
  svc_id: Type.String(),
  outcome: Type.String(),
  side: Type.Union([Type.Literal('buy'), Type.Literal('sell')]),
  amount: Type.Number(),
  filled: Type.Number({ description: 'Contracts the legs filled together' }),
  max_slippage: Type.Number(),
  on_leg_failure: Type.Enum(ON_LEG_FAILURE),
  legs: Type.Array(LegOut),
  plan: Type.Object({
    reference_price: Type.Number({
      description: 'The best fee-net price per contract on the books planned on',
    }),
    slippage: Type.Number({
      description: "The plan's average fee-net price minus reference_price (against you)",
    }),
    est_net_cost: Type.Number({ description: 'As on GET /route/quote' }),
    size: Type.Number(),
  }),
  second_round: Type.Union([SecondRound, Type.Null()]),
  cancellations: Type.Array(
    Type.Object({
      exchange: ExchangeId,
      svc_id: Type.String(),
      error: Type.Union([VenueError, Type.Null()]),
    }),
    { description: 'Legs cancelled (cancel_rest) by this answer; error when the cancel failed' },
  ),
  excluded: RouteQuote.properties.excluded,
  decision: RouteQuote.properties.decision,
});
export type RouteOrder = Static<typeof RouteOrder>;

export const RouteOrderList = Type.Object({
  route_orders: Type.Array(RouteOrder),
  pagination: Type.Object({
    count: Type.Integer(),
    has_more: Type.Boolean(),
    next_cursor: Type.Optional(Type.String()),
  }),
});
export type RouteOrderList = Static<typeof RouteOrderList>;

export const RouteOrderListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LIST_LIMIT_MAX, description: 'Default 50' })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
);
export type RouteOrderListQuery = Static<typeof RouteOrderListQuery>;

export interface RouteOrdersServiceOptions {
  quotes: Pick<RouteQuoteService, 'plan'>;
  legs: RouteLegs;
  repo: RouteOrdersRepo;
  exchanges: Pick<ExchangesService, 'filterList' | 'venueFor'>;
  sessions: SessionResolver;
  clock?: () => number;
}

/** Whether a leg failed: refused, unknown, or short of its planned size. */
export function failedLeg(o: LegOutcome): boolean {
  return o.state !== 'filled';
}

/** The credentials map of a body, read by exchange id through a Map (never an object index). */
export function credentialsMap(raw: Record<string, unknown> | undefined): Map<string, unknown> {
  return new Map(Object.entries(raw ?? {}));
}

export function idempotencyKeyOf(raw: string | undefined): string {
  if (raw === undefined) {
    throw new AppError('missing_parameter', 'the Idempotency-Key header is required', {
      validationErrors: ['Idempotency-Key header is required'],
    });
  }
  return raw;
}

export class RouteOrdersService {
  private readonly clock: () => number;
  private readonly parents: LegParents<RouteOrder>;

  constructor(private readonly options: RouteOrdersServiceOptions) {
    this.clock = options.clock ?? Date.now;
    this.parents = new LegParents(options.repo, options.legs, 'route', 'route');
  }

  async create(caller: TradingCaller, body: RouteOrderBody, rawKey: string | undefined): Promise<RouteOrder> {
    const key = idempotencyKeyOf(rawKey);
    const terms = termsOf(body);
    amountOf(terms.amount);
    const maxSlippage = Decimal.parse(terms.max_slippage);
    // Every named exchange must serve routed orders (404 unknown, 501 not served), before anything else.
    this.options.exchanges.filterList(terms.exchanges?.join(','), 'route_orders');
    const credentials = credentialsMap(body.credentials);
    for (const name of credentials.keys()) this.options.exchanges.venueFor(name, 'route_orders');
    const requestHash = fingerprint(terms);
    return this.parents.act(caller, key, requestHash, this.driver(caller, credentials), () =>
      this.place(caller, credentials, terms, maxSlippage, key, requestHash),
    );
  }

  async get(caller: TradingCaller, id: string): Promise<RouteOrder> {
    const row = await this.parents.byId(caller, id, 'routed order');
    const book = JSON.parse(row.legs) as LegBook;
    return view(row, book, await this.parents.read(caller, book.legs, true), []);
  }

  async list(caller: TradingCaller, q: RouteOrderListQuery): Promise<RouteOrderList> {
    const { rows, ...pagination } = await this.parents.page(caller, q);
    const routes = await Promise.all(
      rows.map(async (row) => {
        const book = JSON.parse(row.legs) as LegBook;
        return view(row, book, await this.parents.read(caller, book.legs, false), []);
      }),
    );
    return { route_orders: routes, pagination: { count: routes.length, ...pagination } };
  }

  private driver(caller: TradingCaller, credentials: ReadonlyMap<string, unknown>): Drive<RouteOrder> {
    return (row, depth) => this.drive(caller, credentials, row, depth);
  }

  /** Plans, checks slippage and credentials (refusals send nothing and store nothing), commits, then drives. */
  private async place(
    caller: TradingCaller,
    credentials: ReadonlyMap<string, unknown>,
    terms: RouteTerms,
    maxSlippage: Decimal,
    key: string,
    requestHash: string,
  ): Promise<RouteOrder> {
    const planned = await this.options.quotes.plan(quoteQuery(terms, terms.amount, terms.exchanges), caller);
    const { quote } = planned;
    if (quote.legs.length === 0) {
      const why = quote.excluded.map((e) => `${e.exchange}: ${e.reason}`).join('; ');
      throw new AppError('conflict', `no venue can take any of this order now${why ? ` (${why})` : ''}`);
    }
    const { reference, slippage } = slippageOf(terms.side, planned);
    if (slippage.gt(maxSlippage)) {
      throw new AppError(
        'conflict',
        `the plan moved past max_slippage: its average fee-net price is ${slippage.toString()} worse than the ` +
          `best on the books (${reference.toString()}); nothing was sent`,
      );
    }
    // Credentials for every exchange a leg goes to, checked before anything is written or sent (403).
    for (const exchange of new Set(quote.legs.map((l) => l.exchange))) {
      const venue = this.options.exchanges.venueFor(exchange, 'route_orders');
      await sessionOf(this.options.sessions, legCaller(caller, credentials, exchange), venue);
    }
    const id = randomUUID();
    const book: LegBook = {
      legs: quote.legs.map((l, i) => ({
        key: legKey(id, i),
        round: 1,
        role: 'leg',
        exchange: l.exchange,
        svc_id: l.svc_id,
        market_id: l.market_id,
        outcome: l.outcome,
        side: l.side,
        order_type: l.order_type as LegSpec['order_type'],
        limit_price: l.limit_price,
        size: l.size,
      })),
      second_round: null,
    };
    const plan: StoredPlan = {
      svc_id: quote.svc_id,
      outcome: quote.outcome,
      reference_price: reference.toNumber(),
      slippage: slippage.toNumber(),
      est_net_cost: quote.totals.est_net_cost,
      size: quote.totals.size,
      excluded: quote.excluded,
      decision: quote.decision,
    };
    return this.parents.commit(
      caller,
      { id, key, requestHash, terms, plan, legs: book },
      this.clock(),
      this.driver(caller, credentials),
    );
  }

  /** Sends (or replays) every leg, applies on_leg_failure once, and answers the route as it stands. */
  private async drive(
    caller: TradingCaller,
    credentials: ReadonlyMap<string, unknown>,
    row: RouteRow,
    depth = 0,
  ): Promise<RouteOrder> {
    const terms = JSON.parse(row.request) as RouteTerms;
    const plan = JSON.parse(row.plan) as StoredPlan;
    const book = JSON.parse(row.legs) as LegBook;
    const send = (l: LegSpec) => this.options.legs.send(legCaller(caller, credentials, l.exchange), l);
    const outcomes = await Promise.all(book.legs.map(send));
    // Refusals before sending are recorded, so no later drive sends those legs.
    const legs = outcomes.map((o) =>
      o.refusedBeforeSending && o.error ? { ...o.spec, refused: o.error } : o.spec,
    );
    let next: LegBook = { legs, second_round: book.second_round };
    const failed = outcomes.some(failedLeg);
    const fresh: LegSpec[] = [];
    if (failed && terms.on_leg_failure === 'keep' && book.second_round === null) {
      const round = await this.secondRound(caller, row.id, terms, plan, outcomes, legs.length);
      fresh.push(...round.legs);
      next = { legs: [...legs, ...round.legs], second_round: round.info };
    }
    const changed =
      fresh.length > 0 ||
      next.second_round !== book.second_round ||
      outcomes.some((o) => o.refusedBeforeSending);
    let current = row;
    if (changed) {
      const text = JSON.stringify(next);
      const nowMs = this.clock();
      const round = next.second_round ? 2 : 1;
      if (!(await this.options.repo.replaceLegs(row.seq, row.legs, text, round, nowMs))) {
        // Another driver of this route changed its legs first: follow its plan (our sends were replays or its).
        return this.parents.again(row, depth, this.driver(caller, credentials));
      }
      current = { ...row, legs: text, round, updatedMs: nowMs };
    }
    const more = await Promise.all(fresh.map(send));
    const all = [...outcomes.map((o, i) => ({ ...o, spec: legs[i] as LegSpec })), ...more];
    const cancellations: RouteOrder['cancellations'] = [];
    if (terms.on_leg_failure === 'cancel_rest' && all.some(failedLeg)) {
      for (const o of all) {
        const working =
          o.state === 'pending' || o.order?.status === 'open' || o.order?.status === 'partially_filled';
        if (!working || o.order === null) continue;
        const error = await this.options.legs.cancel(legCaller(caller, credentials, o.spec.exchange), o);
        cancellations.push({ exchange: o.spec.exchange, svc_id: o.spec.svc_id, error });
      }
    }
    const settled =
      cancellations.length > 0
        ? await Promise.all(
            all.map((o) =>
              this.options.legs.read(legCaller(caller, credentials, o.spec.exchange), o.spec, false),
            ),
          )
        : all;
    return view(current, next, settled, cancellations);
  }

  /** The shortfall routed once more on the venues whose legs did not fail (keep), or why it was not. */
  private async secondRound(
    caller: TradingCaller,
    routeId: string,
    terms: RouteTerms,
    plan: StoredPlan,
    outcomes: readonly LegOutcome[],
    firstIndex: number,
  ): Promise<{ legs: LegSpec[]; info: SecondRound }> {
    let short = Decimal.parse(terms.amount);
    const failedVenues = new Set<string>();
    for (const o of outcomes) {
      if (o.state === 'pending') short = short.sub(Decimal.fromNumber(o.spec.size));
      else if (o.order && o.order.filled > 0) short = short.sub(Decimal.fromNumber(o.order.filled));
      if (o.state === 'rejected' || o.state === 'pending') failedVenues.add(o.spec.exchange);
    }
    short = short.isNegative() ? Decimal.ZERO : short.div(SHORTFALL_LOT, 0, 'floor').mul(SHORTFALL_LOT);
    const exchanges = [...new Set(plan.decision.books.map((b) => b.exchange))].filter(
      (e) => !failedVenues.has(e),
    );
    const info = (reason: string | null, extra: Partial<SecondRound> = {}): SecondRound => ({
      amount: short.toNumber(),
      sent: false,
      reason,
      slippage: null,
      exchanges,
      decision: null,
      ...extra,
    });
    if (short.isZero()) return { legs: [], info: info('nothing is short of the amount') };
    if (exchanges.length === 0) return { legs: [], info: info('no venue is left whose leg did not fail') };
    let planned: PlannedRoute;
    try {
      planned = await this.options.quotes.plan(quoteQuery(terms, short.toString(), exchanges), caller);
    } catch (error) {
      if (error instanceof AppError) return { legs: [], info: info(`${error.code}: ${error.message}`) };
      throw error;
    }
    const { quote } = planned;
    if (quote.legs.length === 0) {
      return {
        legs: [],
        info: info('no venue left can take the shortfall now', { decision: quote.decision }),
      };
    }
    const slippage = planSlippage(terms.side, planned.plan, Decimal.fromNumber(plan.reference_price));
    if (slippage === null || slippage.gt(Decimal.parse(terms.max_slippage))) {
      return {
        legs: [],
        info: info('the shortfall’s plan is past max_slippage', {
          slippage: slippage?.toNumber() ?? null,
          decision: quote.decision,
        }),
      };
    }
    const legs: LegSpec[] = quote.legs.map((l, i) => ({
      key: legKey(routeId, firstIndex + i),
      round: 2,
      role: 'leg',
      exchange: l.exchange,
      svc_id: l.svc_id,
      market_id: l.market_id,
      outcome: l.outcome,
      side: l.side,
      order_type: l.order_type as LegSpec['order_type'],
      limit_price: l.limit_price,
      size: l.size,
    }));
    return {
      legs,
      info: info(null, { sent: true, slippage: slippage.toNumber(), decision: quote.decision }),
    };
  }
}

function termsOf(body: RouteOrderBody): RouteTerms {
  if (body.exchange !== undefined && body.svc_id !== undefined) {
    throw validationError(['give svc_id, or exchange with market_id, not both']);
  }
  return {
    svc_id: body.svc_id ?? null,
    exchange: body.exchange ?? null,
    market_id: body.market_id ?? null,
    outcome: body.outcome ?? null,
    side: body.side,
    amount: body.amount,
    exchanges: body.exchanges ? [...new Set(body.exchanges)].sort() : null,
    max_legs: body.max_legs ?? null,
    min_tier: body.min_tier ?? null,
    max_slippage: body.max_slippage,
    on_leg_failure: body.on_leg_failure ?? 'cancel_rest',
  };
}

function quoteQuery(terms: RouteTerms, amount: string, exchanges: readonly string[] | null) {
  return {
    ...(terms.svc_id !== null ? { svc_id: terms.svc_id } : {}),
    ...(terms.exchange !== null ? { exchange: terms.exchange } : {}),
    ...(terms.market_id !== null ? { market_id: terms.market_id } : {}),
    ...(terms.outcome !== null ? { outcome: terms.outcome } : {}),
    side: terms.side,
    amount,
    ...(exchanges !== null ? { exchanges: exchanges.join(',') } : {}),
    ...(terms.max_legs !== null ? { max_legs: terms.max_legs } : {}),
    ...(terms.min_tier !== null ? { min_tier: terms.min_tier } : {}),
  };
}

function slippageOf(side: 'buy' | 'sell', planned: PlannedRoute): { reference: Decimal; slippage: Decimal } {
  const reference = bestNetPrice(side, planned.venues);
  const slippage = reference === null ? null : planSlippage(side, planned.plan, reference);
  if (reference === null || slippage === null) throw new Error('a plan with legs has a best level');
  return { reference, slippage };
}

function fingerprint(terms: RouteTerms): string {
  return hash('sha256', JSON.stringify(terms), 'hex');
}

function statusOf(outcomes: readonly LegOutcome[], amount: Decimal, filled: Decimal): RouteOrder['status'] {
  if (outcomes.some((o) => o.state === 'pending' || o.state === 'unsent')) return 'pending';
  if (filled.gte(amount)) return 'filled';
  if (filled.gt(Decimal.ZERO)) return 'partially_filled';
  if (outcomes.length > 0 && outcomes.every((o) => o.state === 'rejected')) return 'rejected';
  return 'unfilled';
}

function view(
  row: RouteRow,
  book: LegBook,
  outcomes: readonly LegOutcome[],
  cancellations: RouteOrder['cancellations'],
): RouteOrder {
  const terms = JSON.parse(row.request) as RouteTerms;
  const plan = JSON.parse(row.plan) as StoredPlan;
  const amount = Decimal.parse(terms.amount);
  const filled = outcomes.reduce(
    (s, o) => (o.order && o.order.filled > 0 ? s.add(Decimal.fromNumber(o.order.filled)) : s),
    Decimal.ZERO,
  );
  return {
    id: row.id,
    status: statusOf(outcomes, amount, filled),
    created_at: new Date(row.createdMs).toISOString(),
    svc_id: plan.svc_id,
    outcome: plan.outcome,
    side: terms.side,
    amount: amount.toNumber(),
    filled: filled.toNumber(),
    max_slippage: Number(terms.max_slippage),
    on_leg_failure: terms.on_leg_failure,
    legs: outcomes.map(legOut),
    plan: {
      reference_price: plan.reference_price,
      slippage: plan.slippage,
      est_net_cost: plan.est_net_cost,
      size: plan.size,
    },
    second_round: book.second_round,
    cancellations,
    excluded: plan.excluded,
    decision: plan.decision,
  };
}
