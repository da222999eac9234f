// GET /markets as one schema: the query the route validates and the service reads, and the body the service
// writes (as concatenated JSON bytes) and the route documents.
import { type Static, Type } from 'typebox';
import { Market, MarketStatus } from '../../domain/market.js';

export const MARKET_SCOPES = ['list', 'market', 'market_batch', 'event'] as const;
export type MarketScope = (typeof MARKET_SCOPES)[number];
export const MAX_BATCH = 100;
export const MAX_LIMIT = 100;

/** The `status` filter of /markets and /events: a market status, `active` by default; `all` is not one. */
export const StatusFilter = Type.Enum(MarketStatus.enum, {
  description: 'Market status; default active. `all` is not a status.',
});

/** The `exchanges` filter of /markets and /events. */
export const ExchangesFilter = Type.String({
  maxLength: 200,
  description: 'Comma-separated exchange ids; default all',
});

/** A keyset cursor from `pagination.next_cursor`. */
export const Cursor = Type.String({ minLength: 1, maxLength: 512, description: 'pagination.next_cursor' });

const IdList = (what: string) =>
  Type.String({ maxLength: 20_000, description: `Comma-separated ${what}, at most ${MAX_BATCH}` });

export const MarketsQuery = Type.Object(
  {
    scope: Type.Optional(
      Type.Enum(MARKET_SCOPES, {
        description: 'Default list; market_batch when svc_ids is given without scope',
      }),
    ),
    include_matches: Type.Optional(
      Type.Boolean({ description: 'Adds matched_markets (same market elsewhere)' }),
    ),
    include_related: Type.Optional(
      Type.Boolean({ description: 'Adds related_markets (co-dependent markets)' }),
    ),
    exchanges: Type.Optional(ExchangesFilter),
    status: Type.Optional(StatusFilter),
    search: Type.Optional(
      Type.String({
        maxLength: 200,
        description:
          'Case-insensitive keywords over question and description; every word must match, whole words, a ' +
          'trailing * matches a prefix. An exact svc_id, native id / ticker or slug ranks first.',
      }),
    ),
    min_volume: Type.Optional(Type.Number({ minimum: 0, description: 'USDC' })),
    min_liquidity: Type.Optional(Type.Number({ minimum: 0, description: 'USDC' })),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_LIMIT, description: `Default ${MAX_LIMIT}` }),
    ),
    cursor: Type.Optional(Cursor),
    svc_id: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
    exchange: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    exchange_market_id: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
    svc_ids: Type.Optional(IdList('svc_ids')),
    external_market_keys: Type.Optional(IdList('{exchange}:{exchange_market_id} keys')),
    event_id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 512, description: 'svc_group_id, also as ev:{svc_group_id}' }),
    ),
    exchange_group_id: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
  },
  { additionalProperties: false },
);
export type MarketsQuery = Static<typeof MarketsQuery>;

export const Pagination = Type.Object({
  count: Type.Integer({ minimum: 0 }),
  total: Type.Integer({
    minimum: 0,
    description:
      'Every match of the query, counted up to 1,000 (see total_exact); may trail a running sync by up to 30 s',
  }),
  total_exact: Type.Boolean({
    description:
      'false when the query matches more than 1,000 markets: the count stopped there and total is a lower bound',
  }),
  has_more: Type.Boolean(),
  next_cursor: Type.Optional(Type.String({ description: 'Pass back as cursor; absent on the last page' })),
});
export type Pagination = Static<typeof Pagination>;

/** The `event` block of scope=event. */
export const EventHeader = Type.Object({
  event_id: Type.String(),
  title: Type.String(),
  market_count: Type.Integer({ minimum: 0 }),
  exchange_count: Type.Integer({ minimum: 0 }),
});
export type EventHeader = Static<typeof EventHeader>;

export const MarketList = Type.Object({
  scope: Type.Enum(MARKET_SCOPES),
  markets: Type.Array(Market),
  duplicate_ids: Type.Array(Type.String()),
  not_found_ids: Type.Array(Type.String()),
  pagination: Pagination,
  event: Type.Optional(EventHeader),
});
export type MarketList = Static<typeof MarketList>;
