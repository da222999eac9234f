// POST/GET/DELETE /orders through the order journal. Nothing is written while an order is being prepared (market
// rules, signing): the adapter's send hook writes the row (`sent`, with the exchange's order id where the client
// computes it) immediately before the request leaves, so an order is journalled before it is sent and a failure
// before that leaves no row, as nothing reached the exchange. The exchange's answer settles the row: `accepted` with
// the order, `rejected` with the refusal, or `unknown` when the answer was lost (order-outcome.ts). An unknown order
// is reconciled with the exchange (by the order hash or our client order id), on a GET of it, on a retried POST
// with the same Idempotency-Key, and by the reconciler job; it is never sent again. The journal's SQLite commits
// were the largest share of what POST /orders adds (bench/orders.ts): on SQLite the row is appended to an intent log
// before sending and committed behind with the acceptance (order-journal-repo.ts), so the answer waits for one append.
import { hash, randomUUID } from 'node:crypto';
import type { ExchangeId } from '../../domain/exchanges.js';
import type { Order, OrderRequest, Side } from '../../domain/trading.js';
import { AppError, validationError } from '../../errors/app-error.js';
import { ERROR_CODES, type ErrorCode } from '../../errors/codes.js';
import type { JournalRow, NewJournalEntry, OrderJournalRepo } from '../../store/order-journal-repo.js';
import { UNSETTLED } from '../../store/order-journal-repo.js';
import type { SessionResolver } from '../../vault/session-resolver.js';
import type { VenueAdapter, VenueContext, VenueSession } from '../../venues/port.js';
import type { ExchangesService } from '../exchanges-service.js';
import type { MarketTargets } from '../market-data/market-target.js';
import { classifySendFailure } from './order-outcome.js';
import { checkPriceAndSize, orderParams } from './order-rules.js';
import { sessionOf, type TradingCaller, tradingContext } from './trading-caller.js';

export interface PlaceOrderBody {
  market_id: string;
  outcome: string;
  side: Side;
  price: number;
  size: number;
  params?: Record<string, string> | undefined;
}

export const ORDER_LIST_STATUSES = ['open', 'closed', 'all'] as const;
export type OrderListStatus = (typeof ORDER_LIST_STATUSES)[number];

export interface ListOrdersQuery {
  exchange: string;
  market_id?: string | undefined;
  status?: OrderListStatus | undefined;
  limit?: number | undefined;
  start_ts?: number | undefined;
  end_ts?: number | undefined;
}

export interface OrdersServiceOptions {
  exchanges: ExchangesService;
  targets: MarketTargets;
  sessions: SessionResolver;
  journal: OrderJournalRepo;
  /** Deadline of one trading call to an exchange. */
  timeoutMs: number;
  /**
   * How long after it was sent an order the exchange still has no record of is reported rejected. Until then
   * absence proves nothing (the request may still be on its way) and the order stays pending.
   */
  absentAfterMs: number;
  /**
   * How long after it was sent an immediate order (ioc/fok) that the exchange has no record of, and of which the
   * account's fills show nothing, is settled as killed with nothing filled (immediateKilled below says why that is
   * safe). Several trading-call deadlines: well past the moment the request was answered or abandoned.
   */
  immediateAbsentAfterMs: number;
  /**
   * A `pending` row (what servers before the two-write journal wrote ahead of sending) never marked sent this long
   * after it was written was never sent: its process died.
   */
  sendDeadlineMs: number;
  clock?: () => number;
}

/**
 * Something taken from the customer for this order, outside the exchange (a builder's escrowed fee): taken after
 * every check passed and immediately before the order is sent, so a refused request takes nothing; given back when
 * the exchange refuses the order or it was never sent. Its `reference` is journalled with the order (and is part of
 * its Idempotency-Key fingerprint): a repeated POST replays the first result and takes nothing again.
 */
export interface OrderCharge {
  readonly reference: string;
  /** Takes it for the order about to be sent as `order` (its journal row, once written, has these keys). */
  take(order: ChargedOrder): Promise<void>;
  giveBack(): Promise<void>;
}

/** The journal keys of the order a charge is taken for. */
export interface ChargedOrder {
  customerId: string;
  exchange: string;
  clientOrderId: string;
}

/** What a journal row's request column holds: the order as we were asked for it, never credentials. */
interface JournalledRequest extends OrderRequest {
  exchange: ExchangeId;
  /** The OrderCharge taken for this order, if any. */
  charge_ref?: string;
}

/** The reference of the OrderCharge journalled with this row, if one was taken. */
export function chargeOfRow(row: JournalRow): string | null {
  return (JSON.parse(row.request) as JournalledRequest).charge_ref ?? null;
}

const CLOSED = new Set<Order['status']>(['filled', 'cancelled', 'rejected', 'expired']);
/** Unsettled journal rows reconciled inline by one list call; the job takes care of the rest. */
const LIST_RECONCILE_MAX = 20;
/**
 * The account's latest fills on the order's market read to find an immediate order's own (its fills are among the
 * newest: it was sent minutes ago at most).
 */
const IMMEDIATE_FILLS_READ = 500;

export class OrdersService {
  private readonly clock: () => number;
  /** POSTs under an Idempotency-Key being placed by this process, by customer and key. */
  private readonly inFlight = new Map<
    string,
    { requestHash: string; exchange: string; answer: Promise<Order> }
  >();

  constructor(private readonly options: OrdersServiceOptions) {
    this.clock = options.clock ?? Date.now;
  }

  async create(
    caller: TradingCaller,
    exchange: string,
    body: PlaceOrderBody,
    idempotencyKey: string | undefined,
    charge?: OrderCharge,
  ): Promise<Order> {
    const venue = this.options.exchanges.venueFor(exchange, 'create_order');
    const params = orderParams(
      venue.descriptor,
      new Map(Object.entries(body.params ?? {})),
      Math.floor(this.clock() / 1000),
    );
    const target = await this.options.targets.resolve(
      { exchange, market_id: body.market_id, outcome: body.outcome },
      'create_order',
      caller,
    );
    checkPriceAndSize(target.market, body.price, body.size);
    const session = await this.session(caller, venue);
    const request: JournalledRequest = {
      exchange: venue.descriptor.id,
      market_id: target.market.exchange_market_id,
      outcome: target.outcome.name,
      side: body.side,
      price: body.price,
      size: body.size,
      order_type: params.orderType,
      ...(params.expiration !== undefined ? { expiration: params.expiration } : {}),
      client_order_id: randomUUID(),
      ...(charge ? { charge_ref: charge.reference } : {}),
    };
    // Only a retry under the same Idempotency-Key reads the fingerprint, so an order without a key has none ('').
    if (idempotencyKey === undefined)
      return this.place(caller, venue, session, request, '', undefined, charge);
    const requestHash = fingerprint(request);
    const first = await this.options.journal.byIdempotencyKey(caller.tenant, idempotencyKey);
    if (first) return this.replay(caller, venue, session, first, requestHash);
    // A POST under this key still in flight on this node is joined: the second of two concurrent ones carrying one
    // fee_auth used to find the fee taken and answer 409; now both get the first's answer.
    const flightKey = `${caller.tenant}\n${idempotencyKey}`;
    const flying = this.inFlight.get(flightKey);
    if (flying) {
      if (flying.requestHash !== requestHash || flying.exchange !== venue.descriptor.id) {
        throw new AppError('conflict', 'this Idempotency-Key was already used for a different order');
      }
      return flying.answer;
    }
    const answer = this.place(caller, venue, session, request, requestHash, idempotencyKey, charge);
    this.inFlight.set(flightKey, { requestHash, exchange: venue.descriptor.id, answer });
    try {
      return await answer;
    } finally {
      this.inFlight.delete(flightKey);
    }
  }

  /** Takes the charge and sends the order (create's second half, once no earlier answer applies). */
  private async place(
    caller: TradingCaller,
    venue: VenueAdapter,
    session: VenueSession,
    request: JournalledRequest,
    requestHash: string,
    idempotencyKey: string | undefined,
    charge: OrderCharge | undefined,
  ): Promise<Order> {
    const keys: ChargedOrder = {
      customerId: caller.tenant,
      exchange: venue.descriptor.id,
      clientOrderId: request.client_order_id,
    };
    try {
      await charge?.take(keys);
    } catch (error) {
      // The same POST on another node may have taken this charge and written its row meanwhile: its answer is ours.
      const first =
        idempotencyKey === undefined
          ? undefined
          : await this.options.journal.byIdempotencyKey(caller.tenant, idempotencyKey);
      if (first) return this.replay(caller, venue, session, first, requestHash);
      throw error;
    }
    return this.send(caller, venue, session, request, charge, {
      ...keys,
      venueOrderId: null,
      idempotencyKey: idempotencyKey ?? null,
      requestHash,
      request: JSON.stringify(request),
      state: 'sent',
    });
  }

  /** GET /orders/:id: our journal's order (reconciled first when unsettled), else the exchange's. */
  async get(caller: TradingCaller, exchange: string, id: string): Promise<Order> {
    const venue = this.options.exchanges.venueFor(exchange, 'create_order');
    const session = await this.session(caller, venue);
    const ctx = this.ctx(caller);
    let row = await this.options.journal.find(caller.tenant, venue.descriptor.id, id);
    if (!row) return this.required(this.trading(venue).getOrder, 'getOrder')(ctx, session, id);
    if (UNSETTLED.includes(row.state)) row = await this.reconcile(row, venue, session, ctx);
    return this.refresh(row, venue, session, ctx);
  }

  /**
   * An accepted row's order as the exchange has it now, recorded as the row's last known state; a row not accepted
   * (or without the exchange's id) is answered as it stands.
   */
  async refresh(
    row: JournalRow,
    venue: VenueAdapter,
    session: VenueSession,
    ctx: VenueContext,
  ): Promise<Order> {
    if (row.state !== 'accepted' || row.venueOrderId === null) return orderOfRow(row);
    try {
      const order = await this.required(this.trading(venue).getOrder, 'getOrder')(
        ctx,
        session,
        row.venueOrderId,
      );
      await this.options.journal.update(
        row.id,
        { state: 'accepted', orderDoc: JSON.stringify(order), nowMs: this.clock() },
        ['accepted'],
      );
      return { ...order, client_order_id: row.clientOrderId };
    } catch (error) {
      // An order the exchange no longer lists (some drop cancelled orders) is reported as we last saw it.
      if (error instanceof AppError && error.code === 'order_not_found') return orderOfRow(row);
      throw error;
    }
  }

  async list(caller: TradingCaller, q: ListOrdersQuery): Promise<Order[]> {
    const status = q.status ?? 'open';
    const venue = this.options.exchanges.venueFor(
      q.exchange,
      status === 'open' ? 'create_order' : 'fetch_order_history',
    );
    if (q.start_ts !== undefined && q.end_ts !== undefined && q.start_ts > q.end_ts) {
      throw validationError(['start_ts must not be after end_ts']);
    }
    const session = await this.session(caller, venue);
    const ctx = this.ctx(caller);
    const trading = this.trading(venue);
    const marketId = q.market_id ?? null;
    const fromMs = q.start_ts !== undefined ? q.start_ts * 1000 : undefined;
    const toMs = q.end_ts !== undefined ? q.end_ts * 1000 + 999 : undefined;
    const journalled = await this.options.journal.list(caller.tenant, venue.descriptor.id, {
      ...(fromMs !== undefined ? { fromMs } : {}),
      ...(toMs !== undefined ? { toMs } : {}),
      limit: 500,
    });
    let unsettled = 0;
    const rows: JournalRow[] = [];
    for (const row of journalled) {
      if (UNSETTLED.includes(row.state) && unsettled++ < LIST_RECONCILE_MAX) {
        rows.push(await this.reconcile(row, venue, session, ctx));
      } else rows.push(row);
    }
    const fromVenue =
      status === 'open'
        ? await this.required(trading.listOpenOrders, 'listOpenOrders')(ctx, session, marketId)
        : await this.required(trading.fetchOrderHistory, 'fetchOrderHistory')(ctx, session, marketId);
    const byId = new Map<string, Order>();
    const clientIds = new Map(
      rows.flatMap((r) => (r.venueOrderId ? [[r.venueOrderId, r.clientOrderId]] : [])),
    );
    for (const order of fromVenue) {
      const clientOrderId = clientIds.get(order.id);
      byId.set(order.id, clientOrderId ? { ...order, client_order_id: clientOrderId } : order);
    }
    // What the journal knows and the exchange's list lacks: orders still pending, refused ones, and (history)
    // orders the exchange stops listing once they close without a fill.
    for (const row of rows) {
      const order = orderOfRow(row);
      if (byId.has(order.id)) continue;
      if (status === 'open' && order.status !== 'pending') continue;
      byId.set(order.id, order);
    }
    return [...byId.values()]
      .filter((o) => marketId === null || o.market_id === marketId)
      .filter((o) =>
        status === 'closed' ? CLOSED.has(o.status) : status === 'open' ? !CLOSED.has(o.status) : true,
      )
      .filter((o) => inWindow(o.created_at, fromMs, toMs))
      .sort((a, b) => b.created_at.localeCompare(a.created_at))
      .slice(0, q.limit ?? 100);
  }

  async cancel(caller: TradingCaller, exchange: string, id: string): Promise<Order> {
    const venue = this.options.exchanges.venueFor(exchange, 'cancel_order');
    const session = await this.session(caller, venue);
    const ctx = this.ctx(caller);
    let row = await this.options.journal.find(caller.tenant, venue.descriptor.id, id);
    if (row && UNSETTLED.includes(row.state)) row = await this.reconcile(row, venue, session, ctx);
    if (row && row.state === 'rejected') {
      throw new AppError(
        'conflict',
        `order ${id} was rejected by ${venue.descriptor.id}; there is nothing to cancel`,
      );
    }
    if (row && row.venueOrderId === null) {
      throw new AppError(
        'service_unavailable',
        `${venue.descriptor.id} has not confirmed order ${id} yet; cancel it once GET /orders/${id} shows it`,
      );
    }
    const venueOrderId = row?.venueOrderId ?? id;
    const trading = this.trading(venue);
    let cancelled: Order;
    try {
      cancelled = await this.required(trading.cancelOrder, 'cancelOrder')(ctx, session, venueOrderId);
    } catch (error) {
      // Exchanges word "no such order" and "no longer open" alike on a cancel: the order itself tells them apart.
      if (error instanceof AppError && error.code === 'conflict') {
        await this.required(trading.getOrder, 'getOrder')(ctx, session, venueOrderId);
      }
      throw error;
    }
    if (!row) return cancelled;
    await this.options.journal.update(
      row.id,
      { state: 'accepted', orderDoc: JSON.stringify(cancelled), nowMs: this.clock() },
      ['accepted'],
    );
    return { ...cancelled, client_order_id: row.clientOrderId };
  }

  /**
   * Asks the exchange about one unsettled row and records its word: the order (accepted), or, past
   * `absentAfterMs`, its absence (rejected). A `pending` row never marked sent past `sendDeadlineMs` was never sent.
   */
  async reconcile(
    row: JournalRow,
    venue: VenueAdapter,
    session: VenueSession | null,
    ctx: VenueContext,
  ): Promise<JournalRow> {
    const now = this.clock();
    const age = now - row.createdMs;
    if (row.state === 'pending') {
      if (age < this.options.sendDeadlineMs) return row;
      await this.options.journal.update(
        row.id,
        {
          state: 'rejected',
          errorCode: 'service_unavailable',
          errorMessage: 'the order was never sent (the server stopped before sending it); place it again',
          nowMs: now,
        },
        ['pending'],
      );
      return (await this.options.journal.byId(row.id)) ?? row;
    }
    if (session === null) {
      // Nobody can ask the exchange for this customer now (per-request credentials are gone): a later GET can.
      await this.options.journal.touch(row.id, now);
      return row;
    }
    const request = JSON.parse(row.request) as JournalledRequest;
    const found = await this.required(this.trading(venue).lookupOrder, 'lookupOrder')(ctx, session, {
      marketId: request.market_id,
      clientOrderId: row.clientOrderId,
      orderId: row.venueOrderId,
      sentAtMs: row.createdMs,
      terms: { outcome: request.outcome, side: request.side, price: request.price, size: request.size },
    });
    if (found) {
      await this.options.journal.update(
        row.id,
        { state: 'accepted', venueOrderId: found.id, orderDoc: JSON.stringify(found), nowMs: this.clock() },
        UNSETTLED,
      );
    } else if (
      age >= this.options.immediateAbsentAfterMs &&
      age < this.options.absentAfterMs &&
      (await this.immediateKilled(row, request, venue, session, ctx))
    ) {
      const killed: Order = {
        ...orderOfRow(row),
        status: 'cancelled',
        filled: 0,
        updated_at: new Date(this.clock()).toISOString(),
      };
      await this.options.journal.update(
        row.id,
        { state: 'accepted', orderDoc: JSON.stringify(killed), nowMs: this.clock() },
        ['sent', 'unknown'],
      );
    } else if (age >= this.options.absentAfterMs) {
      await this.options.journal.update(
        row.id,
        {
          state: 'rejected',
          errorCode: 'order_not_found',
          errorMessage: `${venue.descriptor.id} has no record of this order ${Math.round(age / 60_000)} minutes after it was sent`,
          nowMs: this.clock(),
        },
        ['sent', 'unknown'],
      );
    } else {
      await this.options.journal.touch(row.id, this.clock());
    }
    return (await this.options.journal.byId(row.id)) ?? row;
  }

  /**
   * Whether an immediate order the exchange has no record of was killed with nothing filled. Some exchanges keep no
   * record of an immediate order that matched nothing: Polymarket answers a FAK with nothing to match, or a FOK it
   * cannot fill, with an error and never books it ("a refused or killed order was never booked", its error-codes
   * page; docs/venues/polymarket-sim.md), so GET /data/order/{hash} answers null for it forever, exactly as for an
   * order that never arrived. Waiting `absentAfterMs` (minutes) for such an order blocked its parent (a route, a
   * paired execution) for as long. An immediate order cannot rest, so once the exchange has seen it, it is final at
   * once: filled (in part or whole: the exchange keeps it, and its fills are the account's) or killed (no record).
   * Settling it as killed with nothing filled is therefore right once (1) the exchange does not know the order,
   * (2) none of the account's fills is of it (by the order's own id, known before sending: otherwise we cannot
   * tell, and it waits as before), and (3) `immediateAbsentAfterMs` has passed since it was sent, several of our
   * trading-call deadlines: our request was answered or abandoned long before (a killed server's connection is
   * closed with it), so an order not matched by then is not waiting in an exchange's matching queue. It can never
   * cause a second submission: nothing here sends, and the row's Idempotency-Key replays this outcome to every
   * retry (a route's or execution's leg is never sent again under its key whatever its outcome).
   */
  private async immediateKilled(
    row: JournalRow,
    request: JournalledRequest,
    venue: VenueAdapter,
    session: VenueSession,
    ctx: VenueContext,
  ): Promise<boolean> {
    if (request.order_type !== 'ioc' && request.order_type !== 'fok') return false;
    const trading = this.trading(venue);
    if (row.venueOrderId === null || !trading.fetchFills) return false;
    const id = row.venueOrderId.toLowerCase();
    const fills = await trading.fetchFills(ctx, session, request.market_id, IMMEDIATE_FILLS_READ);
    return !fills.some((f) => f.order_id.toLowerCase() === id);
  }

  /** The session of a stored row's customer (no per-request credentials outlive their request), or null. */
  async storedSession(row: JournalRow, venue: VenueAdapter): Promise<VenueSession | null> {
    try {
      return await this.options.sessions.resolve({
        customerId: row.customerId,
        exchange: venue.descriptor.id,
        fields: venue.descriptor.credentials,
      });
    } catch (error) {
      if (error instanceof AppError && error.code === 'credentials_required') return null;
      throw error;
    }
  }

  /**
   * Places the order, journalling `entry` from the adapter's send hook. A concurrent POST that wrote the row of
   * this Idempotency-Key first wins: this one sends nothing and answers as a replay of that row.
   */
  private async send(
    caller: TradingCaller,
    venue: VenueAdapter,
    session: VenueSession,
    request: JournalledRequest,
    charge: OrderCharge | undefined,
    entry: Omit<NewJournalEntry, 'nowMs'>,
  ): Promise<Order> {
    const { journal } = this.options;
    const written: { row: JournalRow | null; taken: JournalRow | null } = { row: null, taken: null };
    const { exchange: _, ...orderRequest } = request;
    try {
      const order = await this.required(this.trading(venue).createOrder, 'createOrder')(
        this.ctx(caller),
        session,
        orderRequest,
        {
          beforeSend: async ({ orderId }) => {
            const { row, created } = await journal.insert({
              ...entry,
              venueOrderId: orderId,
              nowMs: this.clock(),
            });
            if (!created) {
              written.taken = row;
              throw new AppError('conflict', 'this Idempotency-Key was used by a concurrent order');
            }
            written.row = row;
          },
        },
      );
      const row = written.row as JournalRow | null;
      if (row === null)
        throw new Error(`the ${venue.descriptor.id} adapter placed an order without its send hook`);
      // Written behind: the answer does not wait for this commit (order-journal-repo.ts).
      await journal.updateBehind(
        row.id,
        {
          state: 'accepted',
          orderDoc: JSON.stringify(order),
          nowMs: this.clock(),
          ...(order.id !== row.venueOrderId ? { venueOrderId: order.id } : {}),
        },
        ['sent', 'unknown', 'accepted'],
      );
      return { ...order, client_order_id: row.clientOrderId };
    } catch (error) {
      const row = written.row as JournalRow | null;
      // Nothing of this request reached the exchange: what was taken for it goes back.
      if (charge && row === null) await charge.giveBack();
      if (written.taken) return this.replay(caller, venue, session, written.taken, entry.requestHash);
      const failure = classifySendFailure(error, row !== null);
      // The exchange refused it: likewise. An unknown outcome keeps the charge until the order is known.
      if (charge && row !== null && failure.kind === 'rejected') await charge.giveBack();
      // No row was written, so nothing reached the exchange: the error is the whole answer.
      if (row === null) throw failure.error;
      if (failure.kind === 'rejected') {
        await journal.update(
          row.id,
          {
            state: 'rejected',
            errorCode: failure.error.code,
            errorMessage: failure.error.message,
            nowMs: this.clock(),
          },
          ['sent'],
        );
        throw failure.error;
      }
      caller.logger.warn(
        { exchange: venue.descriptor.id, client_order_id: row.clientOrderId, err: failure.error },
        'order outcome unknown: it will be reconciled with the exchange, never sent again',
      );
      await journal.update(row.id, { state: 'unknown', nowMs: this.clock() }, ['sent']);
      return orderOfRow((await journal.byId(row.id)) ?? row);
    }
  }

  /** A POST repeated with an Idempotency-Key already used: the first result, once the exchange has settled it. */
  private async replay(
    caller: TradingCaller,
    venue: VenueAdapter,
    session: VenueSession,
    row: JournalRow,
    requestHash: string,
  ): Promise<Order> {
    if (row.requestHash !== requestHash || row.exchange !== venue.descriptor.id) {
      throw new AppError('conflict', 'this Idempotency-Key was already used for a different order');
    }
    const settled = UNSETTLED.includes(row.state)
      ? await this.reconcile(row, venue, session, this.ctx(caller))
      : row;
    if (settled.state === 'rejected') throw rejectionOf(settled);
    return orderOfRow(settled);
  }

  private session(caller: TradingCaller, venue: VenueAdapter): Promise<VenueSession> {
    return sessionOf(this.options.sessions, caller, venue);
  }

  private ctx(caller: TradingCaller): VenueContext {
    return tradingContext(caller, this.options.timeoutMs);
  }

  private trading(venue: VenueAdapter) {
    return venue.trading;
  }

  /** A facet method the descriptor promised (the registry checked it at start). */
  private required<F extends (...args: never[]) => unknown>(fn: F | undefined, name: string): F {
    if (!fn) throw new AppError('not_supported', `this exchange has no ${name}`);
    return fn;
  }
}

/** The Order a journal row stands for: the exchange's last word, or what was asked with its pending/rejected state. */
export function orderOfRow(row: JournalRow): Order {
  if (row.state === 'accepted' && row.orderDoc !== null) {
    return { ...(JSON.parse(row.orderDoc) as Order), client_order_id: row.clientOrderId };
  }
  const request = JSON.parse(row.request) as JournalledRequest;
  return {
    id: row.venueOrderId ?? row.clientOrderId,
    market_id: request.market_id,
    outcome: request.outcome,
    side: request.side,
    price: request.price,
    size: request.size,
    filled: 0,
    status: row.state === 'rejected' ? 'rejected' : 'pending',
    created_at: new Date(row.createdMs).toISOString(),
    updated_at: row.state === 'rejected' ? new Date(row.updatedMs).toISOString() : null,
    client_order_id: row.clientOrderId,
  };
}

function rejectionOf(row: JournalRow): AppError {
  const code =
    row.errorCode !== null && Object.hasOwn(ERROR_CODES, row.errorCode)
      ? (row.errorCode as ErrorCode)
      : 'bad_request';
  return new AppError(code, row.errorMessage ?? 'the exchange refused this order');
}

function inWindow(iso: string, fromMs: number | undefined, toMs: number | undefined): boolean {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return true;
  return (fromMs === undefined || t >= fromMs) && (toMs === undefined || t <= toMs);
}

/** What tells a retry of an order from a different order under the same key: the request without our own id. */
function fingerprint(request: JournalledRequest): string {
  const { client_order_id: _, ...fingerprinted } = request;
  // One-shot: createHash builds and frees a hash object (an OpenSSL context) per order.
  return hash('sha256', JSON.stringify(fingerprinted), 'hex');
}
