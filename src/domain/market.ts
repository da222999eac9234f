// Unified market and event shapes (wire contract §2), in the spec's snake_case so they serialize as they are. The
// TypeBox schema is the type: adapters produce it, the store keeps it as the served document, and the HTTP layer
// documents and (in tests) validates responses with the very same schema.
import { type Static, type TSchema, Type } from 'typebox';
import { ExchangeId } from './exchanges.js';
import { ResolutionCheck } from './matching/resolution.js';

export const MARKET_STATUSES = ['active', 'closed', 'resolved', 'archived'] as const;
export const MarketStatus = Type.Enum(MARKET_STATUSES, {
  description: 'active, closed, resolved or archived',
});
export type MarketStatus = Static<typeof MarketStatus>;

/** An optional field that is null when the venue has no value (never a guessed one). */
const Nullable = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));

export const Outcome = Type.Object({
  name: Type.String(),
  price: Nullable(Type.Number()),
  token_id: Type.Optional(Type.String()),
});
export type Outcome = Static<typeof Outcome>;

export const RelationLink = Type.Object({
  svc_id: Type.String(),
  exchange: ExchangeId,
  confidence: Type.Number({ minimum: 0, maximum: 1 }),
  confidence_tier: Type.Enum(['HIGH', 'MEDIUM', 'LOW']),
  source: Type.String({ description: 'e.g. hierarchical, deterministic_graph' }),
  status: Type.String({ description: "The linked market's status" }),
  dependency_type: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  dependency_direction: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  resolution_check: Type.Optional(ResolutionCheck),
});
export type RelationLink = Static<typeof RelationLink>;

export const Market = Type.Object(
  {
    svc_id: Type.String({ description: '{exchange}:{exchange_market_id}' }),
    svc_group_id: Type.String({ description: '{exchange}:{exchange_group_id}' }),
    exchange: ExchangeId,
    exchange_market_id: Type.String(),
    exchange_group_id: Type.String(),
    question: Type.String(),
    group_title: Type.String(),
    status: MarketStatus,
    market_type: Type.Enum(['binary', 'categorical']),
    outcomes: Type.Array(Outcome),
    volume_total: Type.Union([Type.Number(), Type.Null()], {
      description: 'USDC; null when the venue has none',
    }),
    description: Type.Optional(Type.String()),
    rules: Type.Optional(Type.String()),
    slug: Type.Optional(Type.String()),
    url: Type.Optional(Type.String()),
    best_bid: Nullable(Type.Number()),
    best_ask: Nullable(Type.Number()),
    last_price: Nullable(Type.Number()),
    volume_24h: Nullable(Type.Number()),
    liquidity: Nullable(Type.Number()),
    open_interest: Nullable(Type.Number()),
    min_order_size: Nullable(Type.Number()),
    tick_size: Nullable(Type.Number()),
    outcome_count: Type.Optional(Type.Number()),
    condition_id: Type.Optional(Type.String()),
    created_at: Nullable(Type.String()),
    updated_at: Nullable(Type.String()),
    end_date: Nullable(Type.String()),
    event_start_time: Nullable(Type.String()),
    image_url: Nullable(Type.String()),
    icon_url: Nullable(Type.String()),
    price_updated_at: Nullable(Type.String()),
    matched_markets: Type.Optional(
      Type.Array(RelationLink, { description: 'Published same_market links; only with include_matches' }),
    ),
    related_markets: Type.Optional(
      Type.Array(RelationLink, { description: 'Published co_dependent links; only with include_related' }),
    ),
  },
  { description: 'A market of any exchange, in one schema' },
);
export type Market = Static<typeof Market>;

/** An event (group of markets) as a venue lists it; GET /events aggregates these per svc_group_id. */
export const MarketEvent = Type.Object({
  exchange: ExchangeId,
  exchange_group_id: Type.String(),
  title: Type.String(),
  status: MarketStatus,
  close_time: Nullable(Type.String()),
  volume_total: Nullable(Type.Number()),
});
export type MarketEvent = Static<typeof MarketEvent>;

/** One page of a venue's own pagination; `cursor` is the venue's token for the next page, null at the end. */
export interface Page<T> {
  items: T[];
  cursor: string | null;
}
