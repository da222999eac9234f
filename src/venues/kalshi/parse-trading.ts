// Orders, fills and positions between our shapes and Kalshi's single YES book. Order entry (V2) takes a book side
// and a YES price: buy Yes at p = bid p; sell Yes at p = ask p; buy No at p = ask 1 − p; sell No at p = bid 1 − p.
// Kalshi reports direction only as the outcome an order positions you for (`outcome_side`: bid ≡ yes, ask ≡ no),
// so every order and fill read back is stated as buying that outcome at that outcome's price — "sell Yes at 0.60"
// reads back as "buy No at 0.40", the same contract on the same book.
import type { Fill, Order, OrderRequest, OrderStatus, Position, Side } from '../../domain/trading.js';
import { AppError } from '../../errors/app-error.js';
import { contracts, iso, type KalshiOutcome, KalshiParseError, MICROS, micros } from './parse.js';
import type { KalshiCreateOrderResponse, KalshiFill, KalshiMarketPosition, KalshiOrder } from './payloads.js';

export interface KalshiOrderBody {
  ticker: string;
  client_order_id: string;
  side: 'bid' | 'ask';
  count: string;
  price: string;
  time_in_force: 'good_till_canceled' | 'immediate_or_cancel' | 'fill_or_kill';
  self_trade_prevention_type: 'taker_at_cross';
  expiration_time?: number;
}

const TIME_IN_FORCE = {
  gtc: 'good_till_canceled',
  gtd: 'good_till_canceled',
  ioc: 'immediate_or_cancel',
  fok: 'fill_or_kill',
} as const;

/** Exactly `decimals` places or a 400: a client's price or size is never rounded behind its back. */
function fixed(value: number, decimals: number, what: string): string {
  const scaled = value * 10 ** decimals;
  const rounded = Math.round(scaled);
  if (!Number.isFinite(value) || Math.abs(scaled - rounded) > 1e-6) {
    throw new AppError('validation_error', `${what} ${value} has more than ${decimals} decimals`, {
      validationErrors: [`${what} must have at most ${decimals} decimals on kalshi`],
    });
  }
  return (rounded / 10 ** decimals).toFixed(decimals);
}

/** Our order → the V2 create-order body (YES book side, YES price in dollars, count in contracts). */
export function orderBody(req: OrderRequest, outcome: KalshiOutcome): KalshiOrderBody {
  if (!(req.price > 0 && req.price < 1)) {
    throw new AppError('validation_error', 'price must be strictly between 0 and 1', {
      validationErrors: ['price must be strictly between 0 and 1'],
    });
  }
  const priceMicros = Math.round(Number(fixed(req.price, 4, 'price')) * MICROS);
  const buysYes = (outcome === 'Yes') === (req.side === 'buy');
  const yesMicros = outcome === 'Yes' ? priceMicros : MICROS - priceMicros;
  const body: KalshiOrderBody = {
    ticker: req.market_id,
    client_order_id: req.client_order_id,
    side: buysYes ? 'bid' : 'ask',
    count: fixed(req.size, 2, 'size'),
    price: (yesMicros / MICROS).toFixed(4),
    time_in_force: TIME_IN_FORCE[req.order_type],
    self_trade_prevention_type: 'taker_at_cross',
  };
  if (req.order_type === 'gtd' && req.expiration !== undefined) body.expiration_time = req.expiration;
  return body;
}

/** The outcome an order or fill positions its owner for, from `outcome_side` or else `book_side`. */
function outcomeOf(
  outcomeSide: string | null | undefined,
  bookSide: string | null | undefined,
  what: string,
): KalshiOutcome {
  const side = outcomeSide ?? (bookSide === 'bid' ? 'yes' : bookSide === 'ask' ? 'no' : null);
  if (side === 'yes') return 'Yes';
  if (side === 'no') return 'No';
  throw new KalshiParseError(`${what}: no direction (outcome_side/book_side)`);
}

function priceFor(outcome: KalshiOutcome, yesPrice: string, what: string): number {
  const yes = micros(yesPrice);
  if (yes === null) throw new KalshiParseError(`${what}: bad yes price ${yesPrice}`);
  return (outcome === 'Yes' ? yes : MICROS - yes) / MICROS;
}

function count(raw: string, what: string): number {
  const n = contracts(raw);
  if (n === null) throw new KalshiParseError(`${what}: bad count ${raw}`);
  return n;
}

/** Kalshi's three order states onto ours; a canceled order past its expiration time expired. */
export function orderStatus(
  o: Pick<KalshiOrder, 'status' | 'expiration_time' | 'last_update_time'>,
  filled: number,
  remaining: number,
): OrderStatus {
  switch (o.status) {
    case 'resting':
      return filled > 0 ? 'partially_filled' : 'open';
    case 'executed':
      return 'filled';
    case 'canceled': {
      const expiry = o.expiration_time ? Date.parse(o.expiration_time) : Number.NaN;
      const updated = o.last_update_time ? Date.parse(o.last_update_time) : Number.NaN;
      return !Number.isNaN(expiry) && !Number.isNaN(updated) && updated >= expiry ? 'expired' : 'cancelled';
    }
    default:
      // `unknown` (WebSocket) or a new state: report what we can prove.
      return remaining > 0 ? 'open' : filled > 0 ? 'filled' : 'pending';
  }
}

export function parseOrder(o: KalshiOrder): Order {
  const what = `order ${o.order_id}`;
  const outcome = outcomeOf(o.outcome_side, o.book_side, what);
  const size = count(o.initial_count_fp, what);
  const filled = count(o.fill_count_fp, what);
  const remaining = count(o.remaining_count_fp, what);
  const created = iso(o.created_time);
  if (created === null) throw new KalshiParseError(`${what}: no created_time`);
  const updated = iso(o.last_update_time);
  return {
    id: o.order_id,
    market_id: o.ticker,
    outcome,
    side: 'buy',
    price: priceFor(outcome, o.yes_price_dollars, what),
    size,
    filled,
    status: orderStatus(o, filled, remaining),
    created_at: created,
    // Kalshi sets last_update_time = created_time on a new order; we report null until something changed.
    updated_at: updated !== null && updated !== created ? updated : null,
  };
}

/** The create answer carries counts only; the rest comes from what we sent. */
export function orderFromCreate(res: KalshiCreateOrderResponse, body: KalshiOrderBody): Order {
  const what = `order ${res.order_id}`;
  const outcome: KalshiOutcome = body.side === 'bid' ? 'Yes' : 'No';
  const size = count(body.count, what);
  const filled = count(res.fill_count, what);
  const remaining = count(res.remaining_count, what);
  const status: OrderStatus =
    remaining > 0 ? (filled > 0 ? 'partially_filled' : 'open') : filled >= size ? 'filled' : 'cancelled';
  const at = new Date(res.ts_ms).toISOString();
  return {
    id: res.order_id,
    market_id: body.ticker,
    outcome,
    side: 'buy',
    price: priceFor(outcome, body.price, what),
    size,
    filled,
    status,
    created_at: at,
    updated_at: status === 'open' ? null : at,
  };
}

export function parseFill(f: KalshiFill): Fill {
  const id = f.fill_id ?? f.trade_id;
  const ticker = f.ticker ?? f.market_ticker;
  if (!id || !ticker) throw new KalshiParseError(`fill of order ${f.order_id}: no id or ticker`);
  const what = `fill ${id}`;
  const outcome = outcomeOf(f.outcome_side, f.book_side, what);
  const created =
    iso(f.created_time) ?? (f.ts !== undefined && f.ts !== null ? new Date(f.ts * 1000).toISOString() : null);
  if (created === null) throw new KalshiParseError(`${what}: no time`);
  const side: Side = 'buy';
  return {
    fill_id: id,
    order_id: f.order_id,
    market_id: ticker,
    outcome,
    side,
    price: priceFor(outcome, f.yes_price_dollars, what),
    size: count(f.count_fp, what),
    is_taker: f.is_taker,
    // A fill without fee_cost has an unreported fee, not a zero one.
    fee: feeOf(f.fee_cost),
    created_at: created,
  };
}

/** A signed net position (+YES / −NO contracts) as the outcome held; null for a flat one. */
export function parsePosition(p: KalshiMarketPosition, currentYes: number | null): Position | null {
  const net = contracts(p.position_fp);
  if (net === null) throw new KalshiParseError(`position ${p.ticker}: bad position_fp ${p.position_fp}`);
  if (net === 0) return null;
  const outcome: KalshiOutcome = net > 0 ? 'Yes' : 'No';
  const size = Math.abs(net);
  const exposure = micros(p.market_exposure_dollars);
  const average = exposure === null ? null : Math.round(exposure / size) / MICROS;
  return {
    market_id: p.ticker,
    outcome,
    size,
    average_price: average !== null && average >= 0 && average <= 1 ? average : null,
    current_price:
      currentYes === null
        ? null
        : outcome === 'Yes'
          ? currentYes
          : Math.round((1 - currentYes) * MICROS) / MICROS,
  };
}

function feeOf(raw: string | null | undefined): number | null {
  const m = raw === undefined || raw === null ? null : micros(raw);
  return m === null ? null : m / MICROS;
}
