// GET /price: OHLCV candles of one outcome, over a window or at one instant.
import type { FastifyInstance } from 'fastify';
import { PriceQuery, PriceResponse, type PriceService } from '../../services/market-data/price-service.js';
import { AUTHED_ERRORS, ErrorBody } from '../schemas/common.js';
import { callerOf } from './caller.js';

export function priceRoutes(app: FastifyInstance, prices: PriceService): void {
  app.get<{ Querystring: PriceQuery }>(
    '/price',
    {
      schema: {
        summary: "One outcome's OHLCV candles",
        description:
          'Select the market by `svc_id`, or by `exchange` + `market_id`. Candles are the periods that start inside ' +
          '[start_ts, end_ts], oldest first, stamped with their UTC start; a period without data is absent, never ' +
          'filled. What a price is depends on the exchange, because each publishes a different series: kalshi ' +
          'candles are the OHLC and volume of trades (a period without trades has no candle); polymarket, ' +
          "limitless and opinion publish sampled prices, not trades (Polymarket's is its displayed price: the " +
          'book midpoint, or the last trade when the spread is over 10 cents), so their candles are the OHLC of ' +
          'those samples and `volume` is null. When an exchange lacks an interval, candles are rolled up from the ' +
          'finest data it has; an interval finer than that (opinion: 1m) is a 400. predictfun has no price history ' +
          '(501). An exchange that fails or times out is a 503.',
        tags: ['market data'],
        querystring: PriceQuery,
        response: { 200: PriceResponse, ...AUTHED_ERRORS, 404: ErrorBody, 501: ErrorBody },
      },
    },
    async (request) => prices.candles(request.query, callerOf(request)),
  );
}
