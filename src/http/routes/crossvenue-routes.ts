// Cross-venue routes (wire contract §7): one bet across the venues that list it, through published same_market links.
import type { FastifyInstance } from 'fastify';
import {
  ArbitrageList,
  ArbitrageQuery,
  type ArbitrageService,
} from '../../services/crossvenue/arbitrage-service.js';
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
  arbitrage: ArbitrageService;
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

  app.get<{ Querystring: ArbitrageQuery }>(
    '/arbitrage',
    {
      schema: {
        summary: 'Executable arbitrage between twins on two exchanges, after each exchange’s taker fee',
        description:
          'Scans published same_market links (`min_tier`, default HIGH) between active yes/no markets on exchanges ' +
          'with fetch_arbitrage (`exchanges` narrows them). An opportunity buys one outcome on one exchange and, on ' +
          'the other, the outcome that wins exactly when the first loses (No there, or Yes through a link asked ' +
          'the other way round): a pair pays 1 whichever way it settles. It is listed when the live books, walked ' +
          'for the same size on both and with each exchange’s taker fee, pay more than they cost: `edge_curve` ' +
          'prices `min_size`, 10, 100 and 1,000 pairs and the largest profitable size where both books hold them ' +
          '(`edge_bps` = net profit per pair in bps of the payout; `min_edge_bps` is a floor on the best point). ' +
          'Each opportunity names its link (confidence, and its resolution check: twins that can settle ' +
          'differently are `unsafe` and left out unless `include_unsafe=true`; an unchecked link says so) and its ' +
          'two books (time, state: only fresh books are priced). Its `id` is stable per link and direction; its ' +
          "legs' `{svc_id, outcome}` are what POST /arbitrage/execute takes. Books that could not be read are in " +
          '`scan.failed` and produce nothing. Pages: best edge first, `limit` (default 50), `cursor`.',
        tags: ['market data'],
        querystring: ArbitrageQuery,
        response: { 200: ArbitrageList, ...AUTHED_ERRORS, 404: ErrorBody, 501: ErrorBody },
      },
    },
    async (request) => services.arbitrage.list(request.query, callerOf(request)),
  );
}
