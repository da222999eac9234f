// GET /events as one schema: the query the route validates and the service reads, and the body the service
// writes (as concatenated JSON bytes) and the route documents.
import { type Static, Type } from 'typebox';
import { ExchangeId } from '../../domain/exchanges.js';
import { Market, MarketStatus } from '../../domain/market.js';
import { Cursor, ExchangesFilter, Pagination, StatusFilter } from './markets-schema.js';

export const EVENTS_DEFAULT_LIMIT = 50;
export const EVENTS_MAX_LIMIT = 100;
/** Markets embedded per event with include_markets; the full list is GET /markets?scope=event. */
export const EVENT_MARKETS_EMBEDDED = 100;

export const EventsQuery = Type.Object(
  {
    exchanges: Type.Optional(ExchangesFilter),
    status: Type.Optional(StatusFilter),
    search: Type.Optional(Type.String({ maxLength: 200, description: 'Every word in the title' })),
    min_volume: Type.Optional(Type.Number({ minimum: 0 })),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: EVENTS_MAX_LIMIT, description: `Default ${EVENTS_DEFAULT_LIMIT}` }),
    ),
    cursor: Type.Optional(Cursor),
    include_markets: Type.Optional(
      Type.Boolean({ description: `Adds up to ${EVENT_MARKETS_EMBEDDED} markets per event` }),
    ),
    include_matches: Type.Optional(
      Type.Boolean({
        description:
          'Adds matched_events: events whose markets are same_market links of this event’s markets',
      }),
    ),
  },
  { additionalProperties: false },
);
export type EventsQuery = Static<typeof EventsQuery>;

/** An event on another exchange holding markets linked same_market to this event's markets. */
export const MatchedEvent = Type.Object({
  event_id: Type.String(),
  title: Type.String(),
  exchange: ExchangeId,
  status: MarketStatus,
  link_count: Type.Integer({ minimum: 1, description: 'same_market links between the two events’ markets' }),
  confidence: Type.Number({ minimum: 0, maximum: 1, description: 'The strongest of those links' }),
});
export type MatchedEvent = Static<typeof MatchedEvent>;

/** One event of the list, without its embedded markets. */
export const EventSummary = Type.Object({
  event_id: Type.String(),
  title: Type.String(),
  market_count: Type.Integer({ minimum: 0 }),
  total_volume: Type.Union([Type.Number(), Type.Null()]),
  exchanges: Type.Array(ExchangeId),
  status: MarketStatus,
  close_time: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  matched_events: Type.Optional(Type.Array(MatchedEvent, { description: 'Only with include_matches' })),
});
export type EventSummary = Static<typeof EventSummary>;

export const EventList = Type.Object({
  events: Type.Array(Type.Object({ ...EventSummary.properties, markets: Type.Optional(Type.Array(Market)) })),
  pagination: Pagination,
});
export type EventList = Static<typeof EventList>;
