// Cross-venue routes (wire contract §7): one bet across the venues that list it, through published same_market links.
import type { FastifyInstance } from 'fastify';
import {
  type ConsolidatedBookService,
  ConsolidatedOrderbook,
  ConsolidatedOrderbookQuery,
} from '../../services/crossvenue/consolidated-book-service.js';
import {
  RouteQuote,
  RouteQuoteQuery,
  type RouteQuoteService,
} from '../../services/crossvenue/route-quote-service.js';
import { AUTHED_ERRORS, ErrorBody } from '../schemas/common.js';
import { callerOf } from './caller.js';

export interface CrossVenueServices {
  consolidated: ConsolidatedBookService;
  routeQuote: RouteQuoteService;
}

export function crossVenueRoutes(app: FastifyInstance, services: CrossVenueServices): void {
  app.get<{ Querystring: ConsolidatedOrderbookQuery }>(
    '/orderbook/consolidated',
    {
      schema: {
        summary: "One outcome's live book merged with its twins' on other exchanges",
        description:
          'Select the market as on /orderbook (`svc_id`, or `exchange` + `market_id`; `outcome` defaults to yes). ' +
          'Its published same_market links at or above `min_tier` (default HIGH) name the twins; each twin’s ' +
          'outcome is mapped through the link (a twin asked the other way round maps yes to no). Levels are ' +
          '`[price, size, exchange, net_price]`, best first, `limit` per side (default 50, at most 100); ' +
          '`net_price` includes that exchange’s taker fee as /execution-price prices it. `venues` lists every ' +
          'book used, and every venue that failed with its error (left out of the levels); 503 only when all fail.',
        tags: ['market data'],
        querystring: ConsolidatedOrderbookQuery,
        response: { 200: ConsolidatedOrderbook, ...AUTHED_ERRORS, 404: ErrorBody, 501: ErrorBody },
      },
    },
    async (request) => services.consolidated.consolidated(request.query, callerOf(request)),
  );

  app.get<{ Querystring: RouteQuoteQuery }>(
    '/route/quote',
    {
      schema: {
        summary:
          'The cheapest split of a taker order across the exchanges that list the same outcome, fees included',
        description:
          'Select the market as on /execution-price; `side` and `amount` (contracts) as there. The order is split ' +
          'across the market and its published same_market twins (`min_tier`, default HIGH) to cost the least net ' +
          'of each exchange’s taker fee, in at most `max_legs` legs (default 5), each a whole number of the ' +
          'exchange’s size step and at least its minimum order, its limit price on the tick. Only exchanges that ' +
          'take immediate (ioc/fok) orders here and publish their fee are used; without `exchanges`, also only those ' +
          'you can trade (create_order, and stored or managed credentials). `excluded` says which were left out ' +
          'and why; `best_single` is the best one exchange alone does; `decision` records the books, fee models ' +
          'and links used. A quote sends nothing.',
        tags: ['market data'],
        querystring: RouteQuoteQuery,
        response: { 200: RouteQuote, ...AUTHED_ERRORS, 404: ErrorBody, 501: ErrorBody },
      },
    },
    async (request) => services.routeQuote.quote(request.query, callerOf(request)),
  );
}
