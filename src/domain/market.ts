// Unified market and event shapes (wire contract §2), in the spec's snake_case so they serialize as they are.
import type { ExchangeId } from './exchanges.js';

export const MARKET_STATUSES = ['active', 'closed', 'resolved', 'archived'] as const;
export type MarketStatus = (typeof MARKET_STATUSES)[number];

export interface Outcome {
  name: string;
  price?: number | null;
  token_id?: string;
}

export interface Market {
  svc_id: string;
  svc_group_id: string;
  exchange: ExchangeId;
  exchange_market_id: string;
  exchange_group_id: string;
  question: string;
  group_title: string;
  status: MarketStatus;
  market_type: 'binary' | 'categorical';
  outcomes: Outcome[];
  volume_total: number | null;
  description?: string;
  rules?: string;
  slug?: string;
  url?: string;
  best_bid?: number | null;
  best_ask?: number | null;
  last_price?: number | null;
  volume_24h?: number | null;
  liquidity?: number | null;
  open_interest?: number | null;
  min_order_size?: number | null;
  tick_size?: number | null;
  outcome_count?: number;
  condition_id?: string;
  created_at?: string | null;
  updated_at?: string | null;
  end_date?: string | null;
  event_start_time?: string | null;
  image_url?: string | null;
  icon_url?: string | null;
  price_updated_at?: string | null;
}

export interface MarketEvent {
  exchange: ExchangeId;
  exchange_group_id: string;
  title: string;
  status: MarketStatus;
  close_time?: string | null;
  volume_total?: number | null;
}

/** One page of a venue's own pagination; `cursor` is the venue's token for the next page, null at the end. */
export interface Page<T> {
  items: T[];
  cursor: string | null;
}
