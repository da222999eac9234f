// Cross-venue routes (wire contract §7): one bet across the venues that list it, through published same_market links.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import {
  ArbitrageExecuteBody,
  ArbitrageExecution,
  ArbitrageExecutionList,
  ArbitrageExecutionListQuery,
  type ArbitrageExecutionService,
} from '../../services/crossvenue/arbitrage-execution-service.js';
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
  RouteOrder,
  RouteOrderBody,
  RouteOrderList,
  RouteOrderListQuery,
  type RouteOrdersService,
} from '../../services/crossvenue/route-orders-service.js';
import {
  RouteQuote,
  RouteQuoteQuery,
  type RouteQuoteService,
} from '../../services/crossvenue/route-quote-service.js';
import { AUTHED_ERRORS, ErrorBody } from '../schemas/common.js';
import { callerOf, tradingCaller } from './caller.js';

export interface CrossVenueServices {
  consolidated: ConsolidatedBookService;
  routeQuote: RouteQuoteService;
  arbitrage: ArbitrageService;
  routeOrders: RouteOrdersService;
  arbitrageExecution: ArbitrageExecutionService;
}

const ACTING_ERRORS = {
  ...AUTHED_ERRORS,
  402: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  409: ErrorBody,
  501: ErrorBody,
} as const;

const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        'Required. A repeat with the same body answers the same execution (never sending a leg twice); with a ' +
        'different body, 409',
    }),
  ),
});

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

  app.post<{ Body: RouteOrderBody; Headers: { 'idempotency-key'?: string } }>(
    '/route/orders',
    {
      schema: {
        summary: 'Send a routed order: the split of GET /route/quote, as one order per leg',
        description:
          'The body is a quote’s terms (selector, `side`, `amount`, `exchanges`, `max_legs`, `min_tier`) plus ' +
          '`max_slippage` and `on_leg_failure`. The split is planned again on the current books and refused with ' +
          '409 (nothing sent) when its average fee-net price is worse than the best fee-net price on those books ' +
          'by more than `max_slippage`. Each leg is then an order of its own, journalled before it is sent ' +
          '(`order`: the leg as GET /orders/:id reads it, with its `client_order_id`), sent concurrently as the ' +
          'exchange’s immediate order type (ioc, else fok) at its planned limit price. A leg fails when refused, ' +
          'unknown (pending) or short; then `cancel_rest` (default) sends nothing more and cancels any leg still ' +
          'working, `keep` keeps the legs and routes the shortfall once more on the venues whose legs did not fail ' +
          '(`second_round`). `Idempotency-Key` is required: a repeat with the same body drives the same route ' +
          '(a leg whose answer was lost is reconciled with its exchange, never sent again; one planned but not ' +
          'sent when the server stopped is sent); a different body is 409. Credentials: `credentials` by exchange ' +
          '(never stored), else your stored or managed ones (403 before anything is sent when a leg’s exchange ' +
          'has none). `decision` names the books, fee models and links the plan used.',
        tags: ['trading'],
        headers: IdempotencyHeaders,
        body: RouteOrderBody,
        response: { 200: RouteOrder, ...ACTING_ERRORS },
      },
    },
    async (request) =>
      services.routeOrders.create(tradingCaller(request), request.body, request.headers['idempotency-key']),
  );

  app.get<{ Querystring: RouteOrderListQuery }>(
    '/route/orders',
    {
      schema: {
        summary: 'Your routed orders, newest first',
        description:
          'Each as POST /route/orders answered it, its legs as the order journal has them now (GET ' +
          '/route/orders/:id reconciles a pending leg with its exchange). `limit` 1..100 (default 50); pass ' +
          '`pagination.next_cursor` back as `cursor` for the next page.',
        tags: ['trading'],
        querystring: RouteOrderListQuery,
        response: { 200: RouteOrderList, ...ACTING_ERRORS },
      },
    },
    async (request) => services.routeOrders.list(tradingCaller(request), request.query),
  );

  app.get<{ Params: { route_id: string } }>(
    '/route/orders/:route_id',
    {
      schema: {
        summary: 'One routed order, its legs reconciled',
        description:
          'A leg whose outcome is unknown is looked up on its exchange first (with your stored or managed ' +
          'credentials). Another customer’s route is 404.',
        tags: ['trading'],
        params: Type.Object({ route_id: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: { 200: RouteOrder, ...ACTING_ERRORS },
      },
    },
    async (request) => services.routeOrders.get(tradingCaller(request), request.params.route_id),
  );

  app.post<{ Body: ArbitrageExecuteBody; Headers: { 'idempotency-key'?: string } }>(
    '/arbitrage/execute',
    {
      schema: {
        summary: 'Execute an arbitrage pair with bounded legging risk',
        description:
          'Two buys that pay 1 together (Yes on one exchange and No on its twin through a published same_market ' +
          'link, or both outcomes of one binary market; anything else is 400). The pair’s cost on the current ' +
          'books, fees included, must be below 1 (or at most `max_cost`), else 409 and nothing is sent. The leg ' +
          'on the thinner book goes first as an immediate order; the second is sized to what the first filled. ' +
          'When the second fails or fills short, `on_leg_risk: unwind` (default) sells the excess on the first ' +
          'exchange at no less than `unwind_limit`; `hold` keeps it. The answer reports every leg, the fees, the ' +
          'realised edge and any residual (unhedged) exposure, priced on the books the execution was planned on ' +
          'for the sizes filled. `Idempotency-Key` is required; a repeat with the same body carries on from where ' +
          'the last stopped (e.g. after a leg whose outcome was unknown) and never sends a leg twice.',
        tags: ['trading'],
        headers: IdempotencyHeaders,
        body: ArbitrageExecuteBody,
        response: { 200: ArbitrageExecution, ...ACTING_ERRORS },
      },
    },
    async (request) =>
      services.arbitrageExecution.execute(
        tradingCaller(request),
        request.body,
        request.headers['idempotency-key'],
      ),
  );

  app.get<{ Querystring: ArbitrageExecutionListQuery }>(
    '/arbitrage/executions',
    {
      schema: {
        summary: 'Your paired executions, newest first',
        description:
          'Each as POST /arbitrage/execute answered it, its legs as the order journal has them now (GET ' +
          '/arbitrage/executions/:id reconciles a pending leg with its exchange); a repeated POST with the same ' +
          'Idempotency-Key is what sends a leg still due. `limit` 1..100 (default 50); pass ' +
          '`pagination.next_cursor` back as `cursor` for the next page. Only your own executions are listed.',
        tags: ['trading'],
        querystring: ArbitrageExecutionListQuery,
        response: { 200: ArbitrageExecutionList, ...ACTING_ERRORS },
      },
    },
    async (request) => services.arbitrageExecution.list(tradingCaller(request), request.query),
  );

  app.get<{ Params: { execution_id: string } }>(
    '/arbitrage/executions/:execution_id',
    {
      schema: {
        summary: 'One paired execution, its legs reconciled',
        description:
          'As POST /arbitrage/execute answered it. A leg whose outcome is unknown is looked up on its exchange ' +
          'first (with your stored or managed credentials); nothing is sent. Another customer’s execution is 404.',
        tags: ['trading'],
        params: Type.Object({ execution_id: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: { 200: ArbitrageExecution, ...ACTING_ERRORS },
      },
    },
    async (request) => services.arbitrageExecution.get(tradingCaller(request), request.params.execution_id),
  );
}
