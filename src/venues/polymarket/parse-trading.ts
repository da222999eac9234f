// Pure normalizers for Polymarket's account payloads: CLOB orders and user trades, Data API positions and the
// public tape. Order states stay strict: a status we do not know is a payload error, never a guess.
import type { Trade } from '../../domain/book.js';
import { Decimal } from '../../domain/decimal.js';
import { polymarketTakerFee } from '../../domain/fees/polymarket.js';
import type { Fill, Order, OrderStatus, Position, Side } from '../../domain/trading.js';
import { PolymarketParseError, toNumber } from './parse.js';
import type {
  PolymarketDataPosition,
  PolymarketDataTrade,
  PolymarketOpenOrder,
  PolymarketUserTrade,
} from './payloads.js';

export function isoFromSeconds(raw: number | string | null | undefined): string {
  const n = toNumber(raw);
  if (n === null) throw new PolymarketParseError(`not an epoch time: ${String(raw)}`);
  // Some payloads carry milliseconds where others carry seconds.
  return new Date(n > 1e12 ? n : n * 1000).toISOString();
}

function side(raw: string): Side {
  const s = raw.toLowerCase();
  if (s === 'buy' || s === 'sell') return s;
  throw new PolymarketParseError(`unknown side ${raw}`);
}

function amount(raw: string, field: string): number {
  const n = toNumber(raw);
  if (n === null || n < 0) throw new PolymarketParseError(`${field} is not an amount: ${raw}`);
  return n;
}

/**
 * The exchange takes a GTD order off the book one minute before its `expiration` (its documented security
 * threshold), so from then on a cancelled GTD order is an expired one.
 */
export const GTD_SECURITY_SECONDS = 60;

/** CLOB order status (`LIVE`, `ORDER_STATUS_LIVE`, …) with the fill and expiry context it needs. */
export function orderStatus(
  raw: string,
  filled: number,
  size: number,
  expiration: number,
  nowSeconds: number,
): OrderStatus {
  const status = raw.toUpperCase().replace(/^ORDER_STATUS_/, '');
  switch (status) {
    case 'LIVE':
      return filled > 0 ? 'partially_filled' : 'open';
    case 'MATCHED':
      return filled + 1e-9 >= size ? 'filled' : 'partially_filled';
    case 'CANCELED':
    case 'CANCELLED':
    case 'CANCELED_MARKET_RESOLVED':
      return expiration > 0 && expiration - GTD_SECURITY_SECONDS <= nowSeconds ? 'expired' : 'cancelled';
    case 'DELAYED':
      return 'pending';
    case 'UNMATCHED':
    case 'INVALID':
      return 'rejected';
    default:
      throw new PolymarketParseError(`unknown order status ${raw}`);
  }
}

export function openOrderToOrder(
  o: PolymarketOpenOrder,
  nowSeconds: number,
  updatedAt: string | null = null,
): Order {
  const size = amount(o.original_size, 'original_size');
  const filled = amount(o.size_matched, 'size_matched');
  const expiration = toNumber(o.expiration ?? null) ?? 0;
  const status = orderStatus(o.status, filled, size, expiration, nowSeconds);
  return {
    id: o.id,
    market_id: o.market,
    outcome: o.outcome,
    side: side(o.side),
    price: amount(o.price, 'price'),
    size,
    filled,
    status,
    created_at: isoFromSeconds(o.created_at),
    // The venue reports no change time; a new untouched order has none by definition.
    updated_at: status === 'open' ? null : updatedAt,
  };
}

/**
 * The CLOB V2 fee of one fill: the rate the trade applied (`fee_rate_bps`, the market's `fd.r` × 10,000; 0 for a
 * maker) on the market's curve, size × rate × (p(1 − p))^exponent, by the same function the execution estimate
 * uses. (The V1 formula, rate × min(p, 1 − p), overstates it 8× at p = 0.5 with exponent 2.)
 */
export function tradeFee(
  rateBps: number | string | undefined,
  exponent: number,
  price: number,
  size: number,
): number | null {
  // A trade without a fee rate did not report its fee: unknown, not zero.
  const bps = toNumber(rateBps ?? null);
  if (bps === null) return null;
  if (bps <= 0) return 0;
  const rate = Decimal.fromNumber(bps).div(Decimal.fromInt(10_000), 12);
  return polymarketTakerFee(rate, exponent, Decimal.fromNumber(price), Decimal.fromNumber(size)).toNumber();
}

/** Whether a user trade carries a fee rate, so the market's fee exponent is needed to price its fills. */
export function tradeHasFeeRate(t: PolymarketUserTrade): boolean {
  const charged = (raw: number | string | undefined) => (toNumber(raw ?? null) ?? 0) > 0;
  return charged(t.fee_rate_bps) || t.maker_orders.some((m) => charged(m.fee_rate_bps));
}

/**
 * The fills one user trade holds for us: the taker side when we were the taker, and each of our maker orders it
 * matched. A maker order on the other token of the market (a mint or merge) trades the same direction as the taker.
 * A trade whose settlement failed on chain (status FAILED, REST `TRADE_STATUS_FAILED`) moved nothing: no fills.
 */
export function userTradeFills(
  t: PolymarketUserTrade,
  me: { apiKey: string; address: string },
  /** The market's fee exponent (`/clob-markets` `fd.e`); only read when the trade carries a fee rate. */
  feeExponent = 0,
): Fill[] {
  const fills: Fill[] = [];
  if (t.status.toUpperCase().replace(/^TRADE_STATUS_/, '') === 'FAILED') return fills;
  const createdAt = isoFromSeconds(t.match_time);
  const takerSide = side(t.side);
  const iAmTaker = t.trader_side ? t.trader_side.toUpperCase() === 'TAKER' : t.owner === me.apiKey;
  if (iAmTaker) {
    const price = amount(t.price, 'price');
    const size = amount(t.size, 'size');
    fills.push({
      fill_id: t.id,
      order_id: t.taker_order_id,
      market_id: t.market,
      outcome: t.outcome,
      side: takerSide,
      price,
      size,
      is_taker: true,
      fee: tradeFee(t.fee_rate_bps, feeExponent, price, size),
      created_at: createdAt,
    });
  }
  const address = me.address.toLowerCase();
  for (const m of t.maker_orders) {
    const mine = m.owner === me.apiKey || (m.maker_address ?? '').toLowerCase() === address;
    if (!mine) continue;
    const price = amount(m.price, 'maker price');
    const size = amount(m.matched_amount, 'matched_amount');
    const sameToken = m.asset_id === t.asset_id;
    const opposite: Side = takerSide === 'buy' ? 'sell' : 'buy';
    fills.push({
      fill_id: `${t.id}:${m.order_id}`,
      order_id: m.order_id,
      market_id: t.market,
      outcome: m.outcome,
      side: m.side ? side(m.side) : sameToken ? opposite : takerSide,
      price,
      size,
      is_taker: false,
      fee: tradeFee(m.fee_rate_bps, feeExponent, price, size),
      created_at: createdAt,
    });
  }
  return fills;
}

export function dataPositionToPosition(p: PolymarketDataPosition): Position {
  return {
    market_id: p.conditionId,
    outcome: p.outcome,
    size: p.size,
    average_price: p.avgPrice ?? null,
    current_price: p.curPrice ?? null,
  };
}

/** What a Data API tape row is: its transaction and what it traded (the tape has no trade id). */
export function tapeRowKey(r: PolymarketDataTrade): string {
  const tx = r.transactionHash ?? `${r.conditionId}:${r.timestamp}`;
  return `${tx}:${r.outcomeIndex ?? r.asset}:${r.side}:${r.size}@${r.price}`;
}

/**
 * Data API tape rows carry no trade id: a row is named by its key (`tapeRowKey`), so it has the same id on
 * whichever page it is read. Identical rows of one transaction, which nothing tells apart, get a count after the
 * first in one batch.
 */
export function dataTradesToTrades(rows: readonly PolymarketDataTrade[]): Trade[] {
  const seen = new Map<string, number>();
  return rows.map((r) => {
    const key = tapeRowKey(r);
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    const s = side(r.side);
    return {
      id: n === 0 ? key : `${key}:${n}`,
      price: r.price,
      size: r.size,
      side: s,
      // The tape is requested with takerOnly=true, so the row's side is the aggressor's.
      aggressor_side: s,
      timestamp: isoFromSeconds(r.timestamp),
      outcome: r.outcome ?? '',
      tx_hash: r.transactionHash ?? null,
      taker_address: r.proxyWallet ?? null,
    };
  });
}
