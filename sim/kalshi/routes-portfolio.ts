// The signed portfolio surface: balance, positions, fills, orders (list/get) and order entry on the V2 event-order
// endpoints (create, amend, decrease, cancel, cancel-all). The legacy /portfolio/orders writes answer 410 as the
// exchange has retired them. Request bodies are decoded the way the exchange's Go service does: a JSON type
// mismatch is the flat decoding error, a missing or bad value the nested invalid-parameters error.
import { ownValue } from '../shared/own-key.js';
import type { BookSide } from './book.js';
import {
  ExchangeError,
  type NewOrder,
  type SelfTradePrevention,
  type SimExchange,
  type SimUser,
  type TimeInForce,
} from './exchange.js';
import { count, dollars, parseCount, parseDollars } from './fixed.js';
import { fillArchived, orderArchived } from './historical.js';
import {
  type Ctx,
  decodeError,
  intParam,
  listParam,
  nestedError,
  optionalInt,
  pageOf,
  send,
} from './http-util.js';
import { balanceJson, eventPositionJson, fillJson, orderJson, positionJson, sorted } from './render.js';

const TIFS: readonly TimeInForce[] = ['good_till_canceled', 'immediate_or_cancel', 'fill_or_kill'];
const STPS: readonly SelfTradePrevention[] = ['taker_at_cross', 'maker'];
const CLIENT_ORDER_ID = /^[-\w:+=/]{0,64}$/;
const TICK = 10_000;

type Body = Record<string, unknown>;

function invalid(details: string): never {
  throw nestedError(400, 'invalid_parameters', details);
}

/**
 * The shard an order write goes to (kalshi-typescript 3.30.0 `cancelOrderV2`: "If omitted, auto-routes when
 * market_ticker is provided; otherwise defaults to 0. Use -1 to require auto-routing. The market_ticker parameter
 * is required for auto-routing").
 */
function routeToShard(ex: SimExchange, index: string | null, ticker: string | null): number {
  const explicit = index === null || index === '' ? null : Number(index);
  if (explicit !== null && (!Number.isInteger(explicit) || explicit < -1))
    invalid('exchange_index must be an integer shard index or -1');
  if (explicit !== null && explicit !== -1) return explicit;
  if (ticker === null || ticker === '') {
    if (explicit === -1) invalid('market_ticker is required for auto-routing');
    return 0;
  }
  const market = ex.catalog.marketByTicker.get(ticker);
  if (!market) throw nestedError(404, 'market_not_found');
  return market.exchangeIndex;
}

/** A shard knows only the orders on its own markets: any other order is, to it, not found. */
function onShard(ex: SimExchange, user: SimUser, orderId: string, shard: number): void {
  const order = user.ordersById.get(orderId);
  const market = order ? ex.catalog.marketByTicker.get(order.ticker) : undefined;
  if (order && (market?.exchangeIndex ?? 0) !== shard) throw nestedError(404, 'not_found');
}

/** Parses a body, insisting on the JSON types the exchange's request structs declare. */
export function decodeBody(
  raw: string,
  struct: string,
  types: Record<string, 'string' | 'number' | 'boolean'>,
): Body {
  let value: unknown;
  try {
    value = raw === '' ? {} : JSON.parse(raw);
  } catch (error) {
    throw decodeError((error as Error).message);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw decodeError(
      `json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into Go value of type ${struct}`,
    );
  }
  const body = value as Body;
  for (const [field, type] of Object.entries(types)) {
    const v = ownValue(body, field);
    if (v === undefined || v === null) continue;
    if (typeof v !== type) {
      const got = Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v;
      throw decodeError(
        `json: cannot unmarshal ${got} into Go struct field ${struct}.${field} of type ${type === 'number' ? 'int64' : type === 'boolean' ? 'bool' : type}`,
      );
    }
  }
  return body;
}

function price(raw: unknown): number {
  if (typeof raw !== 'string') invalid('price is required');
  const micros = parseDollars(raw, 4);
  if (micros === null || micros <= 0 || micros >= 1_000_000 || micros % TICK !== 0) {
    throw nestedError(400, 'invalid_price', undefined, 'exchange');
  }
  return micros;
}

function contracts(raw: unknown, field = 'count'): number {
  if (typeof raw !== 'string') invalid(`${field} is required`);
  const centis = parseCount(raw);
  if (centis === null || centis <= 0) invalid(`${field} must be a positive fixed-point count`);
  return centis;
}

function bookSide(raw: unknown): BookSide {
  if (raw !== 'bid' && raw !== 'ask') invalid('side must be bid or ask');
  return raw;
}

function exchangeFailure(error: unknown): never {
  if (error instanceof ExchangeError) {
    if (error.code === 'invalid_order' || error.code === 'invalid_parameters') {
      throw nestedError(error.status, error.code, error.details);
    }
    throw nestedError(error.status, error.code, error.details, 'exchange');
  }
  throw error;
}

function averages(filled: number, cost: number, fees: number): Record<string, string> {
  if (filled <= 0) return {};
  // Averages per contract on the YES book (4 decimals), present only once something filled (recorded).
  return {
    average_fee_paid: dollars((fees * 100) / filled),
    average_fill_price: dollars((cost * 100) / filled),
  };
}

export function portfolioRoutes(ex: SimExchange) {
  return {
    balance(ctx: Ctx, user: SimUser): void {
      send(ctx, 200, balanceJson(ex, user));
    },

    positions(ctx: Ctx, user: SimUser): void {
      const limit = intParam(ctx, 'GetPositions', 'limit', 'Limit', { min: 1, max: 1000, fallback: 100 });
      const ticker = ctx.query.get('ticker');
      const eventTicker = ctx.query.get('event_ticker');
      const filters = listParam(ctx, 'count_filter') ?? [];
      const list = [...user.positions.values()].filter(
        (p) =>
          (!ticker || p.ticker === ticker) &&
          (!eventTicker || p.eventTicker === eventTicker) &&
          (filters.length === 0 ||
            (filters.includes('position') && p.centis !== 0) ||
            (filters.includes('total_traded') && p.totalTraded !== 0)),
      );
      const { page, cursor } = pageOf(list, ctx, limit);
      const resting = (t: string) =>
        user.orders.filter((o) => o.ticker === t && o.status === 'resting').length;
      const byEvent = new Map<string, typeof page>();
      for (const p of page) byEvent.set(p.eventTicker, [...(byEvent.get(p.eventTicker) ?? []), p]);
      send(ctx, 200, {
        cursor,
        event_positions: [...byEvent].map(([e, ps]) => eventPositionJson(e, ps)),
        market_positions: page.map((p) => positionJson(p, resting(p.ticker))),
      });
    },

    fills(ctx: Ctx, user: SimUser): void {
      const limit = intParam(ctx, 'GetFills', 'limit', 'Limit', { min: 1, max: 1000, fallback: 100 });
      const ticker = ctx.query.get('ticker');
      const orderId = ctx.query.get('order_id');
      const minTs = optionalInt(ctx, 'GetFills', 'min_ts', 'MinTs');
      const maxTs = optionalInt(ctx, 'GetFills', 'max_ts', 'MaxTs');
      const list = user.fills
        .filter(
          (f) =>
            !fillArchived(ex.cutoff, f) &&
            (!ticker || f.ticker === ticker) &&
            (!orderId || f.orderId === orderId) &&
            (minTs === null || f.timeMs >= minTs * 1000) &&
            (maxTs === null || f.timeMs <= maxTs * 1000),
        )
        .reverse();
      const { page, cursor } = pageOf(list, ctx, limit);
      send(ctx, 200, { cursor, fills: page.map(fillJson) });
    },

    orders(ctx: Ctx, user: SimUser): void {
      ex.expire();
      const limit = intParam(ctx, 'GetOrders', 'limit', 'Limit', { min: 1, max: 1000, fallback: 100 });
      const ticker = ctx.query.get('ticker');
      const events = listParam(ctx, 'event_ticker');
      const status = ctx.query.get('status');
      const minTs = optionalInt(ctx, 'GetOrders', 'min_ts', 'MinTs');
      const maxTs = optionalInt(ctx, 'GetOrders', 'max_ts', 'MaxTs');
      const eventOf = (t: string) => ex.catalog.marketByTicker.get(t)?.eventTicker ?? '';
      const list = user.orders
        .filter(
          (o) =>
            !orderArchived(ex.cutoff, o) &&
            (!ticker || o.ticker === ticker) &&
            (!events || events.includes(eventOf(o.ticker))) &&
            (!status || o.status === status) &&
            (minTs === null || o.createdMs >= minTs * 1000) &&
            (maxTs === null || o.createdMs <= maxTs * 1000),
        )
        .reverse();
      const { page, cursor } = pageOf(list, ctx, limit);
      send(ctx, 200, { cursor, orders: page.map(orderJson) });
    },

    order(ctx: Ctx, user: SimUser, orderId: string): void {
      ex.expire();
      const order = user.ordersById.get(orderId);
      // An archived order is served only by GET /historical/orders.
      if (!order || orderArchived(ex.cutoff, order)) throw nestedError(404, 'not_found');
      send(ctx, 200, { order: orderJson(order) });
    },

    create(ctx: Ctx, user: SimUser, raw: string): void {
      const body = decodeBody(raw, 'CreateOrderV2Request', {
        ticker: 'string',
        client_order_id: 'string',
        side: 'string',
        count: 'string',
        price: 'string',
        time_in_force: 'string',
        expiration_time: 'number',
        post_only: 'boolean',
        reduce_only: 'boolean',
        cancel_order_on_pause: 'boolean',
        self_trade_prevention_type: 'string',
        subaccount: 'number',
        order_group_id: 'string',
        exchange_index: 'number',
      });
      if (typeof body.ticker !== 'string' || body.ticker === '') invalid('ticker is required');
      const clientOrderId = (body.client_order_id as string | undefined) ?? '';
      if (!CLIENT_ORDER_ID.test(clientOrderId)) invalid('client_order_id is not valid');
      const tif = body.time_in_force as TimeInForce;
      if (!TIFS.includes(tif))
        invalid('time_in_force must be one of fill_or_kill, good_till_canceled, immediate_or_cancel');
      const stp = body.self_trade_prevention_type as SelfTradePrevention;
      if (!STPS.includes(stp)) invalid('self_trade_prevention_type must be taker_at_cross or maker');
      const expiration = (body.expiration_time as number | undefined) ?? null;
      if (expiration !== null) {
        if (tif !== 'good_till_canceled')
          invalid('expiration_time cannot be combined with this time_in_force');
        if (!Number.isInteger(expiration) || expiration * 1000 <= ex.clockMs())
          invalid('expiration_time must be in the future');
      }
      if ((body.subaccount ?? 0) !== 0) invalid('subaccount does not exist');
      const req: NewOrder = {
        ticker: body.ticker,
        clientOrderId,
        bookSide: bookSide(body.side),
        centis: contracts(body.count),
        yesPrice: price(body.price),
        tif,
        expirationS: expiration,
        postOnly: body.post_only === true,
        stp,
      };
      let result: ReturnType<SimExchange['place']>;
      try {
        result = ex.place(user, req);
      } catch (error) {
        exchangeFailure(error);
      }
      const { order } = result;
      send(
        ctx,
        201,
        sorted({
          client_order_id: order.clientOrderId,
          fill_count: count(result.filledCentis),
          order_id: order.orderId,
          remaining_count: count(order.status === 'resting' ? order.remainingCentis : 0),
          ts_ms: order.lastUpdateMs,
          ...averages(result.filledCentis, result.fillCost, result.fees),
        }),
      );
    },

    cancel(ctx: Ctx, user: SimUser, orderId: string): void {
      // Routed to one shard, which knows only its own orders: a cancel for an order on another shard is 404.
      const shard = routeToShard(ex, ctx.query.get('exchange_index'), ctx.query.get('market_ticker'));
      onShard(ex, user, orderId, shard);
      try {
        const { order, reducedBy } = ex.cancel(user, orderId);
        // Recorded: the V2 cancel acknowledgement carries no client_order_id.
        send(
          ctx,
          200,
          sorted({ order_id: order.orderId, reduced_by: count(reducedBy), ts_ms: order.lastUpdateMs }),
        );
      } catch (error) {
        exchangeFailure(error);
      }
    },

    cancelAll(ctx: Ctx, user: SimUser): void {
      for (const o of user.orders) {
        if (o.status === 'resting') ex.cancel(user, o.orderId);
      }
      ctx.res.writeHead(204).end();
    },

    amend(ctx: Ctx, user: SimUser, orderId: string, raw: string): void {
      const body = decodeBody(raw, 'AmendOrderV2Request', {
        ticker: 'string',
        side: 'string',
        price: 'string',
        count: 'string',
        client_order_id: 'string',
        updated_client_order_id: 'string',
        exchange_index: 'number',
      });
      const existing = user.ordersById.get(orderId);
      if (existing?.status !== 'resting') throw nestedError(404, 'not_found', undefined, 'exchange');
      if (body.ticker !== existing.ticker) invalid('ticker does not match the order');
      if (bookSide(body.side) !== existing.bookSide) invalid('side does not match the order');
      try {
        const result = ex.amend(user, orderId, {
          yesPrice: price(body.price),
          totalCentis: contracts(body.count),
        });
        const { order } = result;
        if (typeof body.updated_client_order_id === 'string' && body.updated_client_order_id !== '') {
          user.clientOrderIds.add(body.updated_client_order_id);
          order.clientOrderId = body.updated_client_order_id;
        }
        send(
          ctx,
          200,
          sorted({
            client_order_id: order.clientOrderId,
            fill_count: count(order.filledCentis),
            order_id: order.orderId,
            remaining_count: count(order.status === 'resting' ? order.remainingCentis : 0),
            ts_ms: order.lastUpdateMs,
            ...averages(result.filledCentis, result.fillCost, result.fees),
          }),
        );
      } catch (error) {
        exchangeFailure(error);
      }
    },

    decrease(ctx: Ctx, user: SimUser, orderId: string, raw: string): void {
      const body = decodeBody(raw, 'DecreaseOrderV2Request', {
        reduce_by: 'string',
        reduce_to: 'string',
        exchange_index: 'number',
        market_ticker: 'string',
      });
      const shard = routeToShard(
        ex,
        body.exchange_index === undefined ? null : String(body.exchange_index),
        (body.market_ticker as string | undefined) ?? null,
      );
      onShard(ex, user, orderId, shard);
      const by = body.reduce_by === undefined ? undefined : contracts(body.reduce_by, 'reduce_by');
      const to = body.reduce_to === undefined ? undefined : parseCount(String(body.reduce_to));
      if ((by === undefined) === (to === undefined || to === null))
        invalid('exactly one of reduce_by or reduce_to is required');
      try {
        const order = ex.decrease(user, orderId, { by, to: to ?? undefined });
        send(
          ctx,
          200,
          sorted({
            client_order_id: order.clientOrderId,
            order_id: order.orderId,
            remaining_count: count(order.remainingCentis),
            ts_ms: order.lastUpdateMs,
          }),
        );
      } catch (error) {
        exchangeFailure(error);
      }
    },
  };
}
