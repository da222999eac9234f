// One order on the simulated CLOB (user or house) and the ways Polymarket renders it: the REST OpenOrder and the
// user-channel `order` event. Prices are the order's own-token price; the book keeps everything from the YES side.
import type { Catalogue, PmMarket } from './catalogue.js';
import { fmtUnits, ONE } from './units.js';

export type Side = 'BUY' | 'SELL';
export type OrderType = 'GTC' | 'GTD' | 'FOK' | 'FAK';
export type OrderStatus = 'LIVE' | 'MATCHED' | 'CANCELED';

export interface PmOrder {
  /** EIP-712 order hash, lower-case hex (house orders use a synthetic hash). */
  id: string;
  /** Arrival sequence; time priority inside a price level. */
  seq: number;
  house: boolean;
  /** API key that owns the order (`owner`). */
  ownerKey: string;
  /** Maker (funder) address as the client sent it. */
  makerAddress: string;
  /** Maker address, lower-case: the account whose balances move. */
  account: string;
  market: PmMarket;
  outcome: 0 | 1;
  side: Side;
  /** Own-token limit price in micro units. */
  price: number;
  /** Original size in share base units. */
  size: number;
  matched: number;
  makerAmount: number;
  takerAmount: number;
  orderType: OrderType;
  /** Unix seconds, 0 = none (GTD only). */
  expiration: number;
  /** Unix seconds. */
  createdAt: number;
  status: OrderStatus;
  tradeIds: string[];
}

/** What an order arrives with; the rest is a new order's: nothing matched, live. Amounts default to 0, GTC, no expiry. */
export type NewOrderFields = Omit<
  PmOrder,
  'matched' | 'status' | 'tradeIds' | 'makerAmount' | 'takerAmount' | 'orderType' | 'expiration'
> &
  Partial<Pick<PmOrder, 'makerAmount' | 'takerAmount' | 'orderType' | 'expiration'>>;

export function newOrder(fields: NewOrderFields): PmOrder {
  return {
    makerAmount: 0,
    takerAmount: 0,
    orderType: 'GTC',
    expiration: 0,
    ...fields,
    matched: 0,
    status: 'LIVE',
    tradeIds: [],
  };
}

export function remaining(o: PmOrder): number {
  return o.size - o.matched;
}

/** Whether the order sits on the YES book's bid side: buying YES or selling NO. */
export function isYesBid(o: PmOrder): boolean {
  return (o.outcome === 0) === (o.side === 'BUY');
}

/** The order's price seen from the YES token. */
export function yesPrice(o: PmOrder): number {
  return o.outcome === 0 ? o.price : ONE - o.price;
}

export function outcomeName(outcome: 0 | 1): string {
  return outcome === 0 ? 'Yes' : 'No';
}

/** REST OpenOrder (GET /data/order/{id}, GET /data/orders). */
export function openOrderJson(o: PmOrder, cat: Catalogue): Record<string, unknown> {
  return {
    id: o.id,
    status: o.status,
    owner: o.ownerKey,
    maker_address: o.makerAddress,
    market: cat.conditionId(o.market),
    asset_id: cat.tokenId(o.market, o.outcome),
    side: o.side,
    original_size: fmtUnits(o.size),
    size_matched: fmtUnits(o.matched),
    price: fmtUnits(o.price),
    outcome: outcomeName(o.outcome),
    expiration: String(o.expiration),
    order_type: o.orderType,
    associate_trades: [...o.tradeIds],
    created_at: o.createdAt,
  };
}

/** User-channel `order` event, keyed as the recorded frames are. */
export function orderEventJson(
  o: PmOrder,
  cat: Catalogue,
  type: 'PLACEMENT' | 'UPDATE' | 'CANCELLATION',
  nowMs: number,
): Record<string, unknown> {
  return {
    asset_id: cat.tokenId(o.market, o.outcome),
    associate_trades: o.tradeIds.length > 0 ? [...o.tradeIds] : null,
    created_at: String(o.createdAt),
    event_type: 'order',
    expiration: String(o.expiration),
    id: o.id,
    maker_address: o.makerAddress,
    market: cat.conditionId(o.market),
    order_owner: o.ownerKey,
    order_type: o.orderType,
    original_size: fmtUnits(o.size),
    outcome: outcomeName(o.outcome),
    owner: o.ownerKey,
    price: fmtUnits(o.price),
    side: o.side,
    size_matched: fmtUnits(o.matched),
    status: o.status,
    timestamp: String(nowMs),
    type,
  };
}
