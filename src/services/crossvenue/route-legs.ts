// The legs of a routed order or a paired execution: each is an order of its own sent through POST /orders' path
// (OrdersService.create: the market's rules, the send hook that journals it before it leaves, the order-outcome
// policy), under an Idempotency-Key of its own that names its parent: `\u0001route/<route id>/<leg>`. No HTTP header
// can carry a control character, so no client's own key can take a leg's. Sending a leg again under its key replays
// its journal row (reconciled with the exchange when its answer was lost) instead of sending it: a leg is sent once
// whoever drives the route again. A leg refused before anything reached the exchange has no journal row; its parent
// records the refusal, so it is never sent later either.
import { type Static, Type } from 'typebox';
import { ExchangeId } from '../../domain/exchanges.js';
import { type Fill, Order, OrderType, Side } from '../../domain/trading.js';
import { isAppError } from '../../errors/app-error.js';
import type { JournalRow, OrderJournalRepo } from '../../store/order-journal-repo.js';
import { UNSETTLED } from '../../store/order-journal-repo.js';
import type { SessionResolver } from '../../vault/session-resolver.js';
import type { VenueSession } from '../../venues/port.js';
import type { ExchangesService } from '../exchanges-service.js';
import { type OrdersService, orderOfRow } from '../trading/orders-service.js';
import { sessionOf, type TradingCaller, tradingContext } from '../trading/trading-caller.js';
import { VenueError, venueError } from './twins.js';

/** A leg as planned, stored in its parent's row before it is sent. */
export const LegSpec = Type.Object({
  /** The Idempotency-Key of the leg's journal row. */
  key: Type.String(),
  round: Type.Integer(),
  role: Type.Union([
    Type.Literal('leg'),
    Type.Literal('first'),
    Type.Literal('second'),
    Type.Literal('unwind'),
  ]),
  exchange: ExchangeId,
  svc_id: Type.String(),
  market_id: Type.String(),
  outcome: Type.String(),
  side: Side,
  order_type: OrderType,
  limit_price: Type.Number(),
  size: Type.Number(),
  /** Refused before anything was sent (no journal row): never sent later. */
  refused: Type.Optional(VenueError),
});
export type LegSpec = Static<typeof LegSpec>;

export const LEG_STATES = [
  'unsent',
  'pending',
  'filled',
  'partially_filled',
  'unfilled',
  'rejected',
] as const;
export type LegState = (typeof LEG_STATES)[number];

export interface LegOutcome {
  spec: LegSpec;
  /** The leg's order as the journal (and the exchange) has it; null when it was never sent. */
  order: Order | null;
  error: VenueError | null;
  state: LegState;
  /** Refused now, before anything reached the exchange: the parent records it. */
  refusedBeforeSending: boolean;
}

export const LegOut = Type.Object({
  exchange: ExchangeId,
  svc_id: Type.String(),
  round: Type.Integer({
    description: '1 for the planned legs; 2 for a shortfall routed again (on_leg_failure keep)',
  }),
  role: Type.String({ description: 'leg (routes); first | second | unwind (paired executions)' }),
  state: Type.Enum(LEG_STATES, {
    description:
      'unsent (planned, not sent yet: a retry sends it), pending (sent, outcome unknown: reconciled with the ' +
      'exchange, never sent again), filled, partially_filled, unfilled (the immediate order found nothing), rejected',
  }),
  planned: Type.Object({
    outcome: Type.String(),
    side: Side,
    order_type: OrderType,
    limit_price: Type.Number(),
    size: Type.Number(),
  }),
  order: Type.Union([Order, Type.Null()], {
    description: 'The leg as an order of its own (GET /orders/:id)',
  }),
  error: Type.Union([VenueError, Type.Null()]),
});
export type LegOut = Static<typeof LegOut>;

/** The journal key of leg `index` of the parent `parentId`. */
export function legKey(parentId: string, index: number): string {
  return `\u0001route/${parentId}/${index}`;
}

/** What an order's state means for its leg. */
export function legStateOf(order: Order): LegState {
  switch (order.status) {
    case 'pending':
      return 'pending';
    case 'rejected':
      return 'rejected';
    case 'filled':
      return 'filled';
    default:
      return order.filled > 0 ? 'partially_filled' : 'unfilled';
  }
}

export function legOut(outcome: LegOutcome): LegOut {
  const { spec } = outcome;
  return {
    exchange: spec.exchange,
    svc_id: spec.svc_id,
    round: spec.round,
    role: spec.role,
    state: outcome.state,
    planned: {
      outcome: spec.outcome,
      side: spec.side,
      order_type: spec.order_type,
      limit_price: spec.limit_price,
      size: spec.size,
    },
    order: outcome.order,
    error: outcome.error,
  };
}

/** A leg's caller: the route's customer, with the per-request credentials sent for that leg's exchange. */
export function legCaller(
  caller: TradingCaller,
  credentials: ReadonlyMap<string, unknown>,
  exchange: string,
): TradingCaller {
  return { ...caller, credentialsHeader: undefined, credentialsBody: credentials.get(exchange) };
}

/** The account's newest fills on a leg's market read to find the leg's own (it was sent moments before). */
const LEG_FILLS_READ = 500;

export class RouteLegs {
  constructor(
    private readonly orders: OrdersService,
    private readonly journal: OrderJournalRepo,
    private readonly exchanges: ExchangesService,
    private readonly sessions: SessionResolver,
    private readonly timeoutMs: number,
  ) {}

  /** Sends the leg, or replays it when its journal row exists (a leg recorded as refused is not sent). */
  async send(caller: TradingCaller, spec: LegSpec): Promise<LegOutcome> {
    if (spec.refused) {
      return { spec, order: null, error: spec.refused, state: 'rejected', refusedBeforeSending: false };
    }
    try {
      const order = await this.orders.create(
        caller,
        spec.exchange,
        {
          market_id: spec.market_id,
          outcome: spec.outcome,
          side: spec.side,
          price: spec.limit_price,
          size: spec.size,
          params: { order_type: spec.order_type },
        },
        spec.key,
      );
      return { spec, order, error: null, state: legStateOf(order), refusedBeforeSending: false };
    } catch (error) {
      if (!isAppError(error)) throw error;
      const row = await this.journal.byIdempotencyKey(caller.tenant, spec.key);
      return {
        spec,
        order: row ? orderOfRow(row) : null,
        error: venueError(error),
        state: 'rejected',
        refusedBeforeSending: row === undefined,
      };
    }
  }

  /** The leg as it stands, read from the journal; an unsettled one is reconciled first when `reconcile`. */
  async read(caller: TradingCaller, spec: LegSpec, reconcile: boolean): Promise<LegOutcome> {
    if (spec.refused) {
      return { spec, order: null, error: spec.refused, state: 'rejected', refusedBeforeSending: false };
    }
    let row = await this.journal.byIdempotencyKey(caller.tenant, spec.key);
    if (!row) return { spec, order: null, error: null, state: 'unsent', refusedBeforeSending: false };
    if (reconcile && UNSETTLED.includes(row.state)) row = await this.reconciled(caller, spec, row);
    return outcomeOfRow(spec, row);
  }

  /**
   * The exchange's own fills of a leg's order (its prices and the fees it charged), or null when they cannot be
   * read now or do not add up to what the order filled yet (an exchange may report a fill a moment after the
   * order). A leg that filled nothing has none.
   */
  async fills(caller: TradingCaller, outcome: LegOutcome): Promise<Fill[] | null> {
    const order = outcome.order;
    if (!order || !(order.filled > 0)) return [];
    try {
      const venue = this.exchanges.venueFor(outcome.spec.exchange, 'create_order');
      if (!venue.trading.fetchFills) return null;
      const session = await sessionOf(this.sessions, caller, venue);
      const all = await venue.trading.fetchFills(
        tradingContext(caller, this.timeoutMs),
        session,
        outcome.spec.market_id,
        LEG_FILLS_READ,
      );
      const id = order.id.toLowerCase();
      const own = all.filter((f) => f.order_id.toLowerCase() === id);
      const size = own.reduce((s, f) => s + f.size, 0);
      return Math.abs(size - order.filled) <= 1e-6 ? own : null;
    } catch (error) {
      if (isAppError(error)) return null;
      throw error;
    }
  }

  /** Cancels a leg still working at its exchange; the error when that fails (nothing is undone by it). */
  async cancel(caller: TradingCaller, outcome: LegOutcome): Promise<VenueError | null> {
    const id = outcome.order?.client_order_id ?? outcome.order?.id;
    if (!id) return null;
    try {
      await this.orders.cancel(caller, outcome.spec.exchange, id);
      return null;
    } catch (error) {
      if (!isAppError(error)) throw error;
      return venueError(error);
    }
  }

  private async reconciled(caller: TradingCaller, spec: LegSpec, row: JournalRow): Promise<JournalRow> {
    const venue = this.exchanges.venueFor(spec.exchange, 'create_order');
    let session: VenueSession | null = null;
    try {
      session = await sessionOf(this.sessions, caller, venue);
    } catch (error) {
      if (!isAppError(error)) throw error;
    }
    try {
      return await this.orders.reconcile(row, venue, session, tradingContext(caller, this.timeoutMs));
    } catch (error) {
      // The exchange cannot be asked now: the leg stays as the journal has it.
      if (isAppError(error)) return row;
      throw error;
    }
  }
}

function outcomeOfRow(spec: LegSpec, row: JournalRow): LegOutcome {
  const order = orderOfRow(row);
  const error =
    row.state === 'rejected'
      ? {
          error: row.errorMessage ?? 'the exchange refused this leg',
          code: row.errorCode ?? 'bad_request',
          retryable: false,
        }
      : null;
  return { spec, order, error, state: legStateOf(order), refusedBeforeSending: false };
}
