// OpenAPI shapes of the Market object (wire contract §2), RelationLink, and the /markets and /events bodies.
import { Type } from 'typebox';

const Nullable = <T extends ReturnType<typeof Type.Number> | ReturnType<typeof Type.String>>(t: T) =>
  Type.Optional(Type.Union([t, Type.Null()]));

export const RelationLink = Type.Object({
  svc_id: Type.String(),
  exchange: Type.String(),
  confidence: Type.Number({ minimum: 0, maximum: 1 }),
  confidence_tier: Type.String({ description: 'HIGH, MEDIUM or LOW' }),
  source: Type.String({ description: 'e.g. hierarchical, deterministic_graph' }),
  status: Type.String({ description: "The linked market's status" }),
  dependency_type: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  dependency_direction: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});

export const MarketSchema = Type.Object(
  {
    svc_id: Type.String({ description: '{exchange}:{exchange_market_id}' }),
    svc_group_id: Type.String({ description: '{exchange}:{exchange_group_id}' }),
    exchange: Type.String(),
    exchange_market_id: Type.String(),
    exchange_group_id: Type.String(),
    question: Type.String(),
    group_title: Type.String(),
    status: Type.String({ description: 'active, closed, resolved or archived' }),
    market_type: Type.String({ description: 'binary or categorical' }),
    outcomes: Type.Array(
      Type.Object({
        name: Type.String(),
        price: Nullable(Type.Number()),
        token_id: Type.Optional(Type.String()),
      }),
    ),
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
    matched_markets: Type.Optional(Type.Array(RelationLink)),
    related_markets: Type.Optional(Type.Array(RelationLink)),
  },
  { description: 'A market of any exchange, in one schema' },
);

const Pagination = Type.Object({
  count: Type.Integer(),
  total: Type.Integer({ description: 'Every match of the query; may trail a running sync by up to 30 s' }),
  has_more: Type.Boolean(),
  next_cursor: Type.Optional(Type.String({ description: 'Pass back as cursor; absent on the last page' })),
});

export const MarketList = Type.Object({
  scope: Type.String(),
  markets: Type.Array(MarketSchema),
  duplicate_ids: Type.Array(Type.String()),
  not_found_ids: Type.Array(Type.String()),
  pagination: Pagination,
  event: Type.Optional(
    Type.Object({
      event_id: Type.String(),
      title: Type.String(),
      market_count: Type.Integer(),
      exchange_count: Type.Integer(),
    }),
  ),
});

export const EventList = Type.Object({
  events: Type.Array(
    Type.Object({
      event_id: Type.String(),
      title: Type.String(),
      market_count: Type.Integer(),
      total_volume: Type.Union([Type.Number(), Type.Null()]),
      exchanges: Type.Array(Type.String()),
      status: Type.String(),
      close_time: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      markets: Type.Optional(Type.Array(MarketSchema)),
    }),
  ),
  pagination: Pagination,
});
