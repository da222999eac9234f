// GET /trades: one outcome's public trades, newest first, paged by an opaque cursor.
import type { FastifyInstance } from 'fastify';
import {
  TradesQuery,
  TradesResponse,
  type TradesService,
} from '../../services/market-data/trades-service.js';
import { AUTHED_ERRORS, ErrorBody } from '../schemas/common.js';
import { callerOf } from './caller.js';

export function tradesRoutes(app: FastifyInstance, trades: TradesService): void {
  app.get<{ Querystring: TradesQuery }>(
    '/trades',
    {
      schema: {
        summary: "One outcome's public trades, newest first",
        description:
          'Select the market by `svc_id`, or by `exchange` + `market_id`. Trades inside [start_ts, end_ts] (both ' +
          "inclusive, whole seconds; start_ts defaults to the start of the key's history window), newest first, " +
          '`limit` per page. `has_more` and `next_cursor` continue the walk; a cursor only works with the query it ' +
          'came from. A page may hold fewer than `limit` trades and still have more: the exchange is read a few ' +
          'pages per request. Exchanges without a public trade tape (opinion) answer 501; one that fails or times ' +
          'out is a 503.',
        tags: ['market data'],
        querystring: TradesQuery,
        response: { 200: TradesResponse, ...AUTHED_ERRORS, 404: ErrorBody, 501: ErrorBody },
      },
    },
    async (request) => trades.page(request.query, callerOf(request)),
  );
}
