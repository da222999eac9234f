// GET /orderbook: the live book of one outcome, or (with start_ts / end_ts / cursor) its recorded history.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import {
  HistoricalOrderbook,
  type OrderbookHistoryService,
} from '../../services/market-data/orderbook-history-service.js';
import {
  LiveOrderbook,
  OrderbookQuery,
  type OrderbookService,
} from '../../services/market-data/orderbook-service.js';
import { AUTHED_ERRORS, ErrorBody } from '../schemas/common.js';
import { callerOf } from './caller.js';

export function orderbookRoutes(
  app: FastifyInstance,
  orderbook: OrderbookService,
  history: OrderbookHistoryService,
): void {
  app.get<{ Querystring: OrderbookQuery }>(
    '/orderbook',
    {
      schema: {
        summary: "One outcome's order book: live, or recorded snapshots with start_ts / end_ts",
        description:
          'Select the market by `svc_id`, or by `exchange` + `market_id`. Bids are sorted best (highest) first, ' +
          'asks best (lowest) first. An exchange that cannot be reached is a 503, never an empty book. ' +
          '`start_ts`, `end_ts` or `cursor` switch to the recorded history: snapshots oldest first, `limit` ' +
          'snapshots per page (default 500, max 1000), `depth` levels per side of each snapshot; the window ' +
          "defaults to the day before `end_ts` (default now) and is held to the key's tier; 501 when this " +
          'server does not record books.',
        tags: ['market data'],
        querystring: OrderbookQuery,
        response: {
          200: Type.Union([LiveOrderbook, HistoricalOrderbook]),
          ...AUTHED_ERRORS,
          404: ErrorBody,
          501: ErrorBody,
        },
      },
    },
    async (request) => {
      const q = request.query;
      if (q.start_ts !== undefined || q.end_ts !== undefined || q.cursor !== undefined) {
        return history.history(q, callerOf(request));
      }
      return orderbook.live(q, callerOf(request));
    },
  );
}
