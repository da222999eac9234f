// Orders, fills, positions and balances as the API returns them (spec §2, wire contract §4). The TypeBox schema
// is the type.
import { type Static, Type } from 'typebox';

export const ORDER_TYPES = ['gtc', 'ioc', 'fok', 'gtd'] as const;
export const OrderType = Type.Enum(ORDER_TYPES);
export type OrderType = Static<typeof OrderType>;

export const ORDER_STATUSES = [
  'pending',
  'open',
  'partially_filled',
  'filled',
  'cancelled',
  'rejected',
  'expired',
] as const;
export const OrderStatus = Type.Enum(ORDER_STATUSES);
export type OrderStatus = Static<typeof OrderStatus>;

export const Side = Type.Enum(['buy', 'sell']);
export type Side = Static<typeof Side>;

export const OrderRequest = Type.Object({
  market_id: Type.String(),
  outcome: Type.String(),
  side: Side,
  price: Type.Number(),
  size: Type.Number(),
  order_type: OrderType,
  expiration: Type.Optional(Type.Number({ description: 'Unix seconds; gtd only' })),
  client_order_id: Type.String({
    description:
      'Our idempotency key, sent to the venue where it accepts one, used to reconcile unknown outcomes',
  }),
});
export type OrderRequest = Static<typeof OrderRequest>;

export const Order = Type.Object({
  id: Type.String(),
  market_id: Type.String(),
  outcome: Type.String(),
  side: Side,
  price: Type.Number(),
  size: Type.Number(),
  filled: Type.Number(),
  status: OrderStatus,
  created_at: Type.String(),
  updated_at: Type.Union([Type.String(), Type.Null()]),
  client_order_id: Type.Optional(
    Type.String({
      description:
        'Our id for an order placed through POST /orders (journalled before sending); GET and DELETE accept it too',
    }),
  ),
  note: Type.Optional(
    Type.String({
      description:
        'Present when the order sent differs from the one asked for, and says how (e.g. a Polymarket ioc/fok buy ' +
        'rounded down to whole cents; `size` is then the size sent)',
    }),
  ),
});
export type Order = Static<typeof Order>;

export const Fill = Type.Object({
  fill_id: Type.String(),
  order_id: Type.String(),
  market_id: Type.String(),
  outcome: Type.String(),
  side: Side,
  price: Type.Number(),
  size: Type.Number(),
  is_taker: Type.Boolean(),
  fee: Type.Union([Type.Number(), Type.Null()], {
    description: 'As the exchange charged it, in USD; null when the exchange did not report it',
  }),
  created_at: Type.String(),
});
export type Fill = Static<typeof Fill>;

export const Position = Type.Object({
  market_id: Type.String(),
  outcome: Type.String(),
  size: Type.Number(),
  average_price: Type.Union([Type.Number(), Type.Null()]),
  current_price: Type.Union([Type.Number(), Type.Null()]),
});
export type Position = Static<typeof Position>;

export const Balance = Type.Object({
  raw: Type.Record(Type.String(), Type.Unknown(), { description: "The exchange's own payload" }),
});
export type Balance = Static<typeof Balance>;
