// Order book and price-series shapes. Prices are 0..1, sizes in contracts/shares.
import type { ExchangeId } from './exchanges.js';

/** [price, size] */
export type BookLevel = [number, number];

export interface OrderBook {
  exchange: ExchangeId;
  market_id: string;
  outcome: string;
  token_id: string;
  /** Sorted by price descending. */
  bids: BookLevel[];
  /** Sorted by price ascending. */
  asks: BookLevel[];
  timestamp: string;
  tick_size: number | null;
  min_order_size?: number | null;
}

export const CANDLE_INTERVALS = ['1m', '1h', '6h', '1d', '1w', 'max'] as const;
export type CandleInterval = (typeof CANDLE_INTERVALS)[number];

export interface Candle {
  timestamp: string;
  open: number;
  high: number;
  low: number;
  close: number;
  /** Null when the venue publishes prices without traded size. */
  volume: number | null;
}

export interface Trade {
  id: string;
  price: number;
  size: number;
  side: 'buy' | 'sell';
  aggressor_side: 'buy' | 'sell' | null;
  timestamp: string;
  outcome: string;
  tx_hash?: string | null;
  taker_address?: string | null;
}
