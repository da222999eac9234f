// GET /execution-price: the estimated fill of a hypothetical taker order on the live book, with the venue's fee.
import type { FastifyInstance } from 'fastify';
import {
  ExecutionEstimate,
  ExecutionPriceQuery,
  type ExecutionPriceService,
} from '../../services/market-data/execution-price-service.js';
import { AUTHED_ERRORS, ErrorBody } from '../schemas/common.js';
import { callerOf } from './caller.js';

export function executionPriceRoutes(app: FastifyInstance, executionPrice: ExecutionPriceService): void {
  app.get<{ Querystring: ExecutionPriceQuery }>(
    '/execution-price',
    {
      schema: {
        summary: 'What a taker order of `amount` contracts would fill at on the live book, fees included',
        description:
          'Select the market by `svc_id`, or by `exchange` + `market_id`; `outcome` defaults to yes. A buy walks ' +
          'the asks, a sell the bids. The fee follows the exchange’s published taker fee for this market ' +
          '(`fee_info` says how; `fee_estimate` is null where the exchange does not publish enough). An exchange ' +
          'that cannot be reached is a 503.',
        tags: ['market data'],
        querystring: ExecutionPriceQuery,
        response: { 200: ExecutionEstimate, ...AUTHED_ERRORS, 404: ErrorBody, 501: ErrorBody },
      },
    },
    async (request) => executionPrice.estimate(request.query, callerOf(request)),
  );
}
