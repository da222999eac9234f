// The trading routes (spec §4, wire contract §4): orders through the order journal, and the account's fills,
// positions and balance. Every one resolves the caller's venue session from the per-request credentials (body
// `credentials`, then X-Exchange-Credentials) or the customer's stored ones.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { Balance, Fill, Order, Position, Side } from '../../domain/trading.js';
import {
  type FeeEscrow,
  type FeeFields,
  hasFeeFields,
  refuseFeeFields,
} from '../../services/builder/fee-escrow.js';
import type { AccountService } from '../../services/trading/account-service.js';
import { FILLS_LIMIT_DEFAULT, FILLS_LIMIT_MAX } from '../../services/trading/account-service.js';
import {
  ORDER_LIST_STATUSES,
  type OrderListStatus,
  type OrdersService,
  type PlaceOrderBody,
} from '../../services/trading/orders-service.js';
import { principalOf } from '../plugins/authenticate.js';
import { AUTHED_ERRORS, ErrorBody, ExchangeIdParam } from '../schemas/common.js';
import { tradingCaller } from './caller.js';

const TRADING_ERRORS = {
  ...AUTHED_ERRORS,
  402: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  409: ErrorBody,
  501: ErrorBody,
} as const;

const Credentials = Type.Record(Type.String(), Type.Unknown(), {
  description:
    'Per-request exchange credentials (the same JSON as X-Exchange-Credentials, which it overrides); never stored',
});

const PlaceOrderBodySchema = Type.Object(
  {
    market_id: Type.String({ minLength: 1, maxLength: 512, description: "The exchange's own market id" }),
    outcome: Type.String({ minLength: 1, maxLength: 200, description: 'e.g. Yes, No (case-insensitive)' }),
    side: Side,
    price: Type.Number({ description: "Limit price, strictly between 0 and 1, on the market's tick" }),
    size: Type.Number({ description: "Contracts/shares, at least the market's minimum" }),
    params: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description:
          'order_type: gtc (default) | ioc | fok | gtd, as the exchange takes them (others answer 501); ' +
          'expiration: Unix seconds, required for gtd, at least the exchange minimum ahead (60 s on polymarket)',
      }),
    ),
    credentials: Type.Optional(Credentials),
    fee_auth: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          'Builder orders: { order_id (0x bytes32), payer, fee_amount (USDC base units), deadline (Unix s), signature }, ' +
          'the EIP-712 PullFee signed by the payer in the escrow domain of GET /builder/escrow/config. Checked before ' +
          'anything is sent (400: bad signature, another payer, expired, under the minimum fee); the fee is pulled ' +
          'into escrow just before the order is sent and settled once it closes (filled share to the affiliate and ' +
          'treasury, the rest refunded). 501 while no fee escrow is deployed',
      }),
    ),
    payer_address: Type.Optional(
      Type.String({ maxLength: 64, description: 'Builder orders: the fee payer; must be fee_auth.payer' }),
    ),
    signer_address: Type.Optional(
      Type.String({
        maxLength: 64,
        description:
          'Builder orders: who signed fee_auth; must be fee_auth.payer (the payer signs for itself)',
      }),
    ),
    affiliate: Type.Optional(
      Type.String({
        maxLength: 64,
        description: 'Builder orders: the address taking the affiliate share instead of the configured one',
      }),
    ),
  },
  { additionalProperties: false },
);

/** The order endpoints take X-Builder-Customer-Id: a builder key acting as one of its end-users. */
const ImpersonationHeaders = Type.Object({
  'x-builder-customer-id': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        "Builder keys: act as this end-user (its credentials, its qps_limit and the builder's pool). 403 for another " +
        "builder's end-user, 404 for an unknown id",
    }),
  ),
});
const IMPERSONABLE = { impersonable: true } as const;

const ExchangeQuery = Type.Object({ exchange: ExchangeIdParam }, { additionalProperties: false });
const OrderIdParams = Type.Object({
  order_id: Type.String({
    minLength: 1,
    maxLength: 256,
    description: "The exchange's order id, or the client_order_id POST /orders returned",
  }),
});

const ListOrdersQuerySchema = Type.Object(
  {
    exchange: ExchangeIdParam,
    market_id: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
    status: Type.Optional(
      Type.Enum(ORDER_LIST_STATUSES, {
        description:
          'open (default): resting and pending orders; closed | all: history (fetch_order_history)',
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, description: '1 to 500, default 100' })),
    start_ts: Type.Optional(Type.Integer({ minimum: 0, description: 'Unix seconds, created at or after' })),
    end_ts: Type.Optional(Type.Integer({ minimum: 0, description: 'Unix seconds, created at or before' })),
  },
  { additionalProperties: false },
);

const FillsQuery = Type.Object(
  {
    exchange: ExchangeIdParam,
    market_id: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: FILLS_LIMIT_MAX, description: `default ${FILLS_LIMIT_DEFAULT}` }),
    ),
  },
  { additionalProperties: false },
);

const PositionsQuery = Type.Object(
  { exchange: ExchangeIdParam, market_id: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })) },
  { additionalProperties: false },
);

const BalanceQuery = Type.Object(
  {
    exchange: ExchangeIdParam,
    refresh: Type.Optional(
      Type.Boolean({ description: 'Read the exchange now instead of a cached balance' }),
    ),
  },
  { additionalProperties: false },
);

/** POST /orders' schema; bench:orders gives its bare Fastify baseline the very same one. */
export const PLACE_ORDER_SCHEMA = {
  summary: 'Place an order',
  description:
    'The order is journalled before it is sent. When the exchange does not answer (timeout, reset, 5xx) the ' +
    'order is `pending`: it is looked up on the exchange (GET /orders/:id, or this POST repeated with the ' +
    'same Idempotency-Key), never sent twice. A repeated Idempotency-Key with the same body returns the first ' +
    'result; with a different body, 409. A request refused before anything was sent (a 4xx of our checks) ' +
    'does not use up its key. Insufficient balance 402, credentials refused 403, order type the exchange ' +
    'does not take 501.',
  tags: ['trading'],
  querystring: ExchangeQuery,
  headers: Type.Object({
    'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    ...ImpersonationHeaders.properties,
  }),
  body: PlaceOrderBodySchema,
  response: { 200: Order, ...TRADING_ERRORS },
};

export function tradingRoutes(
  app: FastifyInstance,
  orders: OrdersService,
  account: AccountService,
  feeEscrow: FeeEscrow | null,
): void {
  app.post<{
    Querystring: { exchange: string };
    Body: PlaceOrderBody & FeeFields & { credentials?: Record<string, unknown> };
    Headers: { 'idempotency-key'?: string };
  }>(
    '/orders',
    {
      config: IMPERSONABLE,
      schema: PLACE_ORDER_SCHEMA,
    },
    async (request) => {
      const { credentials, fee_auth, payer_address, signer_address, affiliate, ...body } = request.body;
      const fields = { fee_auth, payer_address, signer_address, affiliate };
      refuseFeeFields(fields, request.impersonated !== null, feeEscrow);
      const caller = tradingCaller(request, credentials);
      // Checked (400 with nothing sent, nothing pulled) before the order is prepared; pulled just before it is sent.
      const charge =
        feeEscrow && hasFeeFields(fields)
          ? await feeEscrow.authorize(principalOf(request), fields, body, caller)
          : undefined;
      const order = await orders.create(
        caller,
        request.query.exchange,
        body,
        request.headers['idempotency-key'],
        charge,
      );
      if (charge) await feeEscrow?.follow(caller, request.query.exchange, order);
      return order;
    },
  );

  app.get<{ Querystring: { exchange: string; status?: OrderListStatus } }>(
    '/orders',
    {
      config: IMPERSONABLE,
      schema: {
        summary: 'Open orders, or order history',
        description:
          'status=open (default) lists resting orders and orders still pending; closed and all read the history ' +
          '(fetch_order_history). Newest first, bare array.',
        tags: ['trading'],
        querystring: ListOrdersQuerySchema,
        headers: ImpersonationHeaders,
        response: { 200: Type.Array(Order), ...TRADING_ERRORS },
      },
    },
    async (request) => orders.list(tradingCaller(request), request.query),
  );

  app.get<{ Querystring: { exchange: string }; Params: { order_id: string } }>(
    '/orders/:order_id',
    {
      config: IMPERSONABLE,
      schema: {
        summary: 'One order, for status polling',
        description: 'A pending order is looked up on the exchange first.',
        tags: ['trading'],
        querystring: ExchangeQuery,
        params: OrderIdParams,
        headers: ImpersonationHeaders,
        response: { 200: Order, ...TRADING_ERRORS },
      },
    },
    async (request) => {
      const caller = tradingCaller(request);
      const order = await orders.get(caller, request.query.exchange, request.params.order_id);
      // A builder order's fee is settled once the order is seen closed.
      await feeEscrow?.follow(caller, request.query.exchange, order);
      return order;
    },
  );

  app.delete<{ Querystring: { exchange: string }; Params: { order_id: string } }>(
    '/orders/:order_id',
    {
      config: IMPERSONABLE,
      schema: {
        summary: 'Cancel an open order',
        description:
          'Answers the order with status cancelled, the amount filled before cancellation and updated_at.',
        tags: ['trading'],
        querystring: ExchangeQuery,
        params: OrderIdParams,
        headers: ImpersonationHeaders,
        response: { 200: Order, ...TRADING_ERRORS },
      },
    },
    async (request) => {
      const caller = tradingCaller(request);
      const order = await orders.cancel(caller, request.query.exchange, request.params.order_id);
      // A builder order's fee: the filled share distributed, the rest refunded.
      await feeEscrow?.follow(caller, request.query.exchange, order);
      return order;
    },
  );

  app.get<{ Querystring: { exchange: string; market_id?: string; limit?: number } }>(
    '/fills',
    {
      schema: {
        summary: "The account's fills, newest first",
        description: 'fee is what the exchange charged (USD); null when the exchange did not report it.',
        tags: ['trading'],
        querystring: FillsQuery,
        response: { 200: Type.Array(Fill), ...TRADING_ERRORS },
      },
    },
    async (request) =>
      account.fills(
        tradingCaller(request),
        request.query.exchange,
        request.query.market_id,
        request.query.limit ?? FILLS_LIMIT_DEFAULT,
      ),
  );

  app.get<{ Querystring: { exchange: string; market_id?: string } }>(
    '/positions',
    {
      schema: {
        summary: "The account's positions",
        tags: ['trading'],
        querystring: PositionsQuery,
        response: { 200: Type.Array(Position), ...TRADING_ERRORS },
      },
    },
    async (request) =>
      account.positions(tradingCaller(request), request.query.exchange, request.query.market_id),
  );

  app.get<{ Querystring: { exchange: string; refresh?: boolean } }>(
    '/balance',
    {
      schema: {
        summary: "The account's balance as the exchange reports it",
        description:
          '`raw` is the exchange payload (polymarket: micro-USDC string; kalshi: cents). Cached a few seconds; ' +
          'refresh=true reads the exchange now.',
        tags: ['trading'],
        querystring: BalanceQuery,
        response: { 200: Balance, ...TRADING_ERRORS },
      },
    },
    async (request) =>
      account.balance(tradingCaller(request), request.query.exchange, request.query.refresh ?? false),
  );
}
