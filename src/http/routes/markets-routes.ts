// GET /markets (four scopes) and GET /events. The services answer JSON bytes concatenated from stored documents,
// sent as is; the schemas below validate the query and document the responses.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { MARKET_STATUSES } from '../../domain/market.js';
import type { EventsQuery, EventsService } from '../../services/catalogue/events-service.js';
import {
  MARKET_SCOPES,
  MAX_LIMIT,
  type MarketsQuery,
  type MarketsService,
} from '../../services/catalogue/markets-service.js';
import { principalOf } from '../plugins/authenticate.js';
import { AUTHED_ERRORS, ErrorBody } from '../schemas/common.js';
import { EventList, MarketList } from '../schemas/markets.js';

const Status = Type.Union(
  MARKET_STATUSES.map((s) => Type.Literal(s)),
  { description: 'Market status; default active. `all` is not a status.' },
);
const Search = Type.String({
  maxLength: 200,
  description:
    'Case-insensitive keywords over question and description; every word must match, whole words, a trailing * ' +
    'matches a prefix. An exact svc_id, native id / ticker or slug ranks first.',
});
const Exchanges = Type.String({ maxLength: 200, description: 'Comma-separated exchange ids; default all' });
const IdList = (what: string) =>
  Type.String({ maxLength: 20_000, description: `Comma-separated ${what}, at most 100` });

const MarketsQuerySchema = Type.Object(
  {
    scope: Type.Optional(
      Type.Union(
        MARKET_SCOPES.map((s) => Type.Literal(s)),
        { description: 'Default list; market_batch when svc_ids is given without scope' },
      ),
    ),
    include_matches: Type.Optional(
      Type.Boolean({ description: 'Adds matched_markets (same market elsewhere)' }),
    ),
    include_related: Type.Optional(
      Type.Boolean({ description: 'Adds related_markets (co-dependent markets)' }),
    ),
    exchanges: Type.Optional(Exchanges),
    status: Type.Optional(Status),
    search: Type.Optional(Search),
    min_volume: Type.Optional(Type.Number({ minimum: 0, description: 'USDC' })),
    min_liquidity: Type.Optional(Type.Number({ minimum: 0, description: 'USDC' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT, description: 'Default 100' })),
    cursor: Type.Optional(
      Type.String({ minLength: 1, maxLength: 512, description: 'pagination.next_cursor' }),
    ),
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

const EventsQuerySchema = Type.Object(
  {
    exchanges: Type.Optional(Exchanges),
    status: Type.Optional(Status),
    search: Type.Optional(Type.String({ maxLength: 200, description: 'Every word in the title' })),
    min_volume: Type.Optional(Type.Number({ minimum: 0 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Default 50' })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
    include_markets: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export function marketsRoutes(app: FastifyInstance, markets: MarketsService, events: EventsService): void {
  app.get<{ Querystring: MarketsQuery }>(
    '/markets',
    {
      schema: {
        summary: 'Markets: list and search, one market, a batch, or an event',
        tags: ['discovery'],
        querystring: MarketsQuerySchema,
        response: { 200: MarketList, ...AUTHED_ERRORS, 404: ErrorBody },
      },
    },
    async (request, reply) => sendJson(reply, await markets.query(request.query, callerOf(request))),
  );

  app.get<{ Querystring: EventsQuery }>(
    '/events',
    {
      schema: {
        summary: 'Events, highest volume first',
        tags: ['discovery'],
        querystring: EventsQuerySchema,
        response: { 200: EventList, ...AUTHED_ERRORS, 404: ErrorBody },
      },
    },
    async (request, reply) => sendJson(reply, await events.list(request.query)),
  );
}

function callerOf(request: FastifyRequest) {
  return { requestId: request.id, logger: request.log, tenant: principalOf(request).customerId };
}

/** The body is already UTF-8 JSON: Fastify sends a Buffer unchanged. */
function sendJson(reply: FastifyReply, body: Buffer): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(body);
}
