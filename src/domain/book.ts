// Order book and price-series shapes. Prices are 0..1, sizes in contracts/shares. The TypeBox schema is the type.
import { type Static, Type } from 'typebox';
import { ExchangeId } from './exchanges.js';

/** [price, size] */
export const BookLevel = Type.Tuple([Type.Number(), Type.Number()]);
export type BookLevel = Static<typeof BookLevel>;

export const OrderBook = Type.Object({
  exchange: ExchangeId,
  market_id: Type.String(),
  outcome: Type.String(),
  token_id: Type.String(),
  bids: Type.Array(BookLevel, { description: 'Sorted by price descending' }),
  asks: Type.Array(BookLevel, { description: 'Sorted by price ascending' }),
  timestamp: Type.String(),
  tick_size: Type.Union([Type.Number(), Type.Null()]),
  min_order_size: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
});
export type OrderBook = Static<typeof OrderBook>;

export const CANDLE_INTERVALS = ['1m', '1h', '6h', '1d', '1w', 'max'] as const;
export const CandleInterval = Type.Enum(CANDLE_INTERVALS);
export type CandleInterval = Static<typeof CandleInterval>;

export const Candle = Type.Object({
  timestamp: Type.String({ description: 'Period start, UTC ISO 8601' }),
  open: Type.Number(),
  high: Type.Number(),
  low: Type.Number(),
  close: Type.Number(),
  volume: Type.Union([Type.Number(), Type.Null()], {
    description: 'Null when the venue publishes prices without traded size',
  }),
});
export type Candle = Static<typeof Candle>;

const Side = Type.Enum(['buy', 'sell']);

export const Trade = Type.Object({
  id: Type.String(),
  price: Type.Number(),
  size: Type.Number(),
  side: Side,
  aggressor_side: Type.Union([Side, Type.Null()]),
  timestamp: Type.String(),
  outcome: Type.String(),
  tx_hash: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  taker_address: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});
export type Trade = Static<typeof Trade>;
