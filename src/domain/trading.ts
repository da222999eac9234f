// Orders, fills, positions and balances as the API returns them (spec §2, wire contract §4).
export const ORDER_TYPES = ['gtc', 'ioc', 'fok', 'gtd'] as const;
export type OrderType = (typeof ORDER_TYPES)[number];

export const ORDER_STATUSES = [
  'pending',
  'open',
  'partially_filled',
  'filled',
  'cancelled',
  'rejected',
  'expired',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export type Side = 'buy' | 'sell';

export interface OrderRequest {
  market_id: string;
  outcome: string;
  side: Side;
  price: number;
  size: number;
  order_type: OrderType;
  /** Unix seconds; gtd only. */
  expiration?: number;
  /** Our idempotency key, sent to the venue where it accepts one, used to reconcile unknown outcomes. */
  client_order_id: string;
}

export interface Order {
  id: string;
  market_id: string;
  outcome: string;
  side: Side;
  price: number;
  size: number;
  filled: number;
  status: OrderStatus;
  created_at: string;
  updated_at: string | null;
}

export interface Fill {
  fill_id: string;
  order_id: string;
  market_id: string;
  outcome: string;
  side: Side;
  price: number;
  size: number;
  is_taker: boolean;
  fee: number;
  created_at: string;
}

export interface Position {
  market_id: string;
  outcome: string;
  size: number;
  average_price: number | null;
  current_price: number | null;
}

export interface Balance {
  raw: Record<string, unknown>;
}
