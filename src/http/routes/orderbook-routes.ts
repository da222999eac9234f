// GET /orderbook: the live book of one outcome, or (with start_ts / end_ts / cursor) its recorded history.
import type { FastifyInstance } from 'fastify';
import type { MarketTargets } from '../../services/market-data/market-target.js';
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
  targets: MarketTargets,
): void {
  app.get<{ Querystring: OrderbookQuery }>(
    '/orderbook',
    {
      schema: {
        summary: "One outcome's order book: live, or recorded snapshots with start_ts / end_ts",
        description:
          'Select the market by `svc_id`, or by `exchange` + `market_id`. Bids are sorted best (highest) first, ' +
          'asks best (lowest) first. An exchange that cannot be reached is a 503, never an empty book.',
        tags: ['market data'],
        querystring: OrderbookQuery,
        response: { 200: LiveOrderbook, ...AUTHED_ERRORS, 404: ErrorBody, 501: ErrorBody },
      },
    },
    async (request) => {
      const q = request.query;
      if (q.start_ts !== undefined || q.end_ts !== undefined || q.cursor !== undefined) {
        // No book recorder runs in this build: resolving for the history capability answers 501 for every venue.
        await targets.resolve(q, 'fetch_orderbook_history', callerOf(request));
      }
      return orderbook.live(q, callerOf(request));
    },
  );
}
