// GET /markets (four scopes) and GET /events. The services answer JSON bytes concatenated from stored documents,
// sent as is; the schemas (shared with the services) validate the query and document the responses.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { EventList, EventsQuery } from '../../services/catalogue/events-schema.js';
import type { EventsService } from '../../services/catalogue/events-service.js';
import { MarketList, MarketsQuery } from '../../services/catalogue/markets-schema.js';
import type { MarketsService } from '../../services/catalogue/markets-service.js';
import { AUTHED_ERRORS, ErrorBody } from '../schemas/common.js';
import { callerOf } from './caller.js';

export function marketsRoutes(app: FastifyInstance, markets: MarketsService, events: EventsService): void {
  app.get<{ Querystring: MarketsQuery }>(
    '/markets',
    {
      schema: {
        summary: 'Markets: list and search, one market, a batch, or an event',
        tags: ['discovery'],
        querystring: MarketsQuery,
        response: { 200: MarketList, ...AUTHED_ERRORS, 404: ErrorBody, 501: ErrorBody },
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
        querystring: EventsQuery,
        response: { 200: EventList, ...AUTHED_ERRORS, 404: ErrorBody, 501: ErrorBody },
      },
    },
    async (request, reply) => sendJson(reply, await events.list(request.query)),
  );
}

/** The body is already UTF-8 JSON: Fastify sends a Buffer unchanged. */
function sendJson(reply: FastifyReply, body: Buffer): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(body);
}
