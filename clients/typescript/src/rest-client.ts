// The REST side of the client: every operation of /openapi.json as a method, typed from the generated `paths`,
// sent through openapi-fetch. This layer adds only what the generator cannot: the API key and per-exchange
// credentials on each call, typed errors, retries of what may safely be repeated (honouring Retry-After), an
// Idempotency-Key on every POST /orders, and async iterators over the cursor-paged lists.
import createClient, { type Client } from 'openapi-fetch';
import { type ExchangeCredentials, encodeCredentials, exchangeOfCall } from './credentials.js';
import { errorBodyOf, OmnibookError } from './errors.js';
import type {
  Body,
  HttpMethod,
  Operation,
  PathWith,
  paths,
  Query,
  RequestInput,
  ResponseOf,
  Result,
} from './operations.js';
import { paginate } from './paginate.js';
import { OmnibookStream, type StreamOptions } from './realtime/stream.js';
import { mayRetry, parseRetryAfter, RETRY_DEFAULTS, type RetryOptions, retryDelay } from './retry.js';

export interface ClientOptions {
  /** The server, e.g. `http://127.0.0.1:8080` (no `/api/v1`). */
  baseUrl: string;
  /** Sent as X-API-Key on every call. */
  apiKey?: string;
  /** Per-exchange credentials sent (base64 JSON, X-Exchange-Credentials) on calls to that exchange. */
  credentials?: Partial<Record<string, ExchangeCredentials>>;
  retry?: RetryOptions;
  /** Deadline of one attempt (default 30 s). */
  timeoutMs?: number;
  /** A fetch to use instead of the global one (a proxy agent, instrumentation). */
  fetch?: (input: Request) => Promise<Response>;
  /** Called before each retry: what failed and how long the client waits. */
  onRetry?: (event: RetryEvent) => void;
}

export interface RetryEvent {
  method: string;
  path: string;
  /** 1 for the first retry. */
  attempt: number;
  delayMs: number;
  error: OmnibookError;
  /** The Idempotency-Key every attempt of this call carries, when it has one. */
  idempotencyKey?: string;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** This call's exchange credentials (instead of the client's for that exchange). */
  credentials?: ExchangeCredentials;
  /** X-Builder-Customer-Id: a builder key acting for one of its end-users (the order routes). */
  builderCustomerId?: string;
  /** false: no retry for this call. */
  retry?: RetryOptions | false;
  timeoutMs?: number;
}

export interface OrderCallOptions extends CallOptions {
  /** The order's Idempotency-Key; when absent the client makes one, so a retry can never place it twice. */
  idempotencyKey?: string;
}

type Market = Result<'/api/v1/markets'>['markets'][number];
type LiveBook = Exclude<Result<'/api/v1/orderbook'>, { snapshots: unknown }>;
type BookHistory = Extract<Result<'/api/v1/orderbook'>, { snapshots: unknown }>;

const ORDERS = '/api/v1/orders';
const ROUTE_ORDERS = '/api/v1/route/orders';
const ARBITRAGE_EXECUTE = '/api/v1/arbitrage/execute';
/** The POSTs that act at an exchange: each attempt carries one Idempotency-Key, so a retry never acts twice. */
const ACTING_POSTS: ReadonlySet<string> = new Set([ORDERS, ROUTE_ORDERS, ARBITRAGE_EXECUTE]);

export class OmnibookClient {
  /** The generated openapi-fetch client, for anything the named methods do not cover (no retries, no errors). */
  readonly http: Client<paths>;
  private readonly options: ClientOptions;
  private readonly retry: Required<RetryOptions>;
  private socket: OmnibookStream | null = null;

  constructor(options: ClientOptions) {
    if (!/^https?:\/\//.test(options.baseUrl)) throw new TypeError('baseUrl must be an http(s) URL');
    this.options = { ...options, baseUrl: options.baseUrl.replace(/\/+$/, '') };
    this.retry = { ...RETRY_DEFAULTS, ...options.retry };
    this.http = createClient<paths>({
      baseUrl: this.options.baseUrl,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  }

  get baseUrl(): string {
    return this.options.baseUrl;
  }

  /** The WebSocket URL of this server (`ws(s)://…/ws`). */
  get wsUrl(): string {
    return `${this.options.baseUrl.replace(/^http/, 'ws')}/ws`;
  }

  /** The API key, for the WebSocket's auth message (never printed by this client). */
  get apiKey(): string | undefined {
    return this.options.apiKey;
  }

  /**
   * The client's one WebSocket (created on first use, connected on the first subscription): every book and wallet
   * this client watches shares it. `options` apply when it is created.
   */
  stream(options: Omit<StreamOptions, 'url' | 'apiKey'> = {}): OmnibookStream {
    if (!this.socket || this.socket.state === 'closed') {
      if (this.options.apiKey === undefined) throw new TypeError("the WebSocket needs the client's apiKey");
      this.socket = new OmnibookStream({ ...options, url: this.wsUrl, apiKey: this.options.apiKey });
    }
    return this.socket;
  }

  /**
   * Any operation of /openapi.json, typed from it: `request('get', '/api/v1/markets', { query: { search } })`.
   * Throws OmnibookError; retries as the class comment says.
   */
  async request<M extends HttpMethod, P extends PathWith<M>>(
    method: M,
    path: P,
    input: RequestInput<Operation<P, M>>,
    options: OrderCallOptions = {},
  ): Promise<ResponseOf<Operation<P, M>>> {
    const { query, path: pathParams, body } = input as { query?: unknown; path?: unknown; body?: unknown };
    const headers: Record<string, string> = {};
    if (this.options.apiKey !== undefined) headers['x-api-key'] = this.options.apiKey;
    const exchange = exchangeOfCall(path, query);
    const credentials =
      options.credentials ?? (exchange !== null ? this.options.credentials?.[exchange] : undefined);
    if (credentials) headers['x-exchange-credentials'] = encodeCredentials(credentials);
    if (options.builderCustomerId !== undefined) headers['x-builder-customer-id'] = options.builderCustomerId;
    let idempotencyKey: string | undefined;
    if (method === 'post' && ACTING_POSTS.has(path)) {
      idempotencyKey = options.idempotencyKey ?? crypto.randomUUID();
      headers['idempotency-key'] = idempotencyKey;
    }
    const retry =
      options.retry === false ? { ...this.retry, maxRetries: 0 } : { ...this.retry, ...options.retry };
    for (let attempt = 0; ; attempt++) {
      const error = await this.attempt(method, path, { query, path: pathParams, body, headers }, options);
      if (!(error instanceof OmnibookError)) return error.data as ResponseOf<Operation<P, M>>;
      if (attempt >= retry.maxRetries || !mayRetry(method, path, error) || options.signal?.aborted)
        throw error;
      const delayMs = retryDelay(error, attempt + 1, retry);
      if (delayMs === null) throw error;
      this.options.onRetry?.({
        method: method.toUpperCase(),
        path,
        attempt: attempt + 1,
        delayMs,
        error,
        ...(idempotencyKey ? { idempotencyKey } : {}),
      });
      await sleep(delayMs, options.signal);
    }
  }

  /** One attempt: the body on success, the error otherwise (thrown only when the caller aborted). */
  private async attempt(
    method: HttpMethod,
    path: string,
    init: { query: unknown; path: unknown; body: unknown; headers: Record<string, string> },
    options: CallOptions,
  ): Promise<{ data: unknown } | OmnibookError> {
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs ?? 30_000;
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
    const METHOD = method.toUpperCase();
    try {
      const params: Record<string, unknown> = {};
      if (init.query !== undefined) params.query = init.query;
      if (init.path !== undefined) params.path = init.path;
      // openapi-fetch's request() is typed per path; this layer already checked the input against the same types.
      const send = this.http.request as unknown as (
        m: string,
        p: string,
        i: Record<string, unknown>,
      ) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
      const res = await send(METHOD, path, {
        params,
        headers: init.headers,
        signal,
        ...(init.body !== undefined ? { body: init.body } : {}),
      });
      if (res.response.ok) return { data: res.data };
      const body = errorBodyOf(res.error);
      const status = res.response.status;
      return new OmnibookError({
        status,
        code: body.code ?? `http_${status}`,
        message: body.error ?? `${METHOD} ${path} answered ${status}`,
        retryable: body.retryable ?? (status === 429 || status === 503),
        requestId: body.request_id ?? res.response.headers.get('x-request-id'),
        ...(body.validation_errors ? { validationErrors: body.validation_errors } : {}),
        retryAfterMs: parseRetryAfter(res.response.headers.get('retry-after')),
        method: METHOD,
        path,
      });
    } catch (cause) {
      if (options.signal?.aborted) throw options.signal.reason ?? cause;
      const timedOut = deadline.aborted;
      return new OmnibookError({
        status: null,
        code: timedOut ? 'timeout' : 'network_error',
        message: timedOut
          ? `${METHOD} ${path}: no answer within ${timeoutMs} ms`
          : `${METHOD} ${path}: ${(cause as Error).message ?? 'the request failed'}`,
        retryable: true,
        method: METHOD,
        path,
        cause,
      });
    }
  }

  // ---------------------------------------------------------------------------------------------------------
  // Service

  health(options?: CallOptions) {
    return this.request('get', '/healthz', {}, options);
  }
  exchanges(options?: CallOptions) {
    return this.request('get', '/api/v1/exchanges', {}, options);
  }
  ping(query?: Query<'/api/v1/ping'>, options?: CallOptions) {
    return this.request('get', '/api/v1/ping', { query }, options);
  }
  usage(options?: CallOptions) {
    return this.request('get', '/api/v1/usage', {}, options);
  }
  wsUsage(query?: Query<'/api/v1/ws/usage'>, options?: CallOptions) {
    return this.request('get', '/api/v1/ws/usage', { query }, options);
  }

  // API keys (admin tier)

  createKey(body: Body<'/api/v1/keys'>, options?: CallOptions) {
    return this.request('post', '/api/v1/keys', { body }, options);
  }
  listKeys(options?: CallOptions) {
    return this.request('get', '/api/v1/keys', {}, options);
  }
  /** The calling key's own record (its tier, limits and flags such as mcp_trading). */
  selfKey(options?: CallOptions) {
    return this.request('get', '/api/v1/keys/self', {}, options);
  }
  revokeKey(keyId: string, options?: CallOptions) {
    return this.request('delete', '/api/v1/keys/{key_id}', { path: { key_id: keyId } }, options);
  }

  // ---------------------------------------------------------------------------------------------------------
  // Markets and events

  markets(query?: Query<'/api/v1/markets'>, options?: CallOptions) {
    return this.request('get', '/api/v1/markets', { query }, options);
  }
  /** Every market of a list query, page after page (`limit` is the page size). */
  iterateMarkets(query: Omit<Query<'/api/v1/markets'>, 'cursor'> = {}, options?: CallOptions) {
    return paginate(async (cursor) => {
      const page = await this.markets({ ...query, ...(cursor ? { cursor } : {}) }, options);
      return { items: page.markets, next: page.pagination.next_cursor };
    });
  }
  /** Search by keywords (every word must match). */
  searchMarkets(text: string, query: Omit<Query<'/api/v1/markets'>, 'search'> = {}, options?: CallOptions) {
    return this.markets({ ...query, search: text }, options);
  }
  /** One market by svc_id; OmnibookError `market_not_found` when there is none. */
  async market(svcId: string, options?: CallOptions): Promise<Market> {
    const page = await this.markets({ scope: 'market', svc_id: svcId }, options);
    const market = page.markets[0];
    if (!market) {
      throw new OmnibookError({
        status: 404,
        code: 'market_not_found',
        message: `no market ${svcId}`,
        retryable: false,
        method: 'GET',
        path: '/api/v1/markets',
      });
    }
    return market;
  }
  events(query?: Query<'/api/v1/events'>, options?: CallOptions) {
    return this.request('get', '/api/v1/events', { query }, options);
  }
  iterateEvents(query: Omit<Query<'/api/v1/events'>, 'cursor'> = {}, options?: CallOptions) {
    return paginate(async (cursor) => {
      const page = await this.events({ ...query, ...(cursor ? { cursor } : {}) }, options);
      return { items: page.events, next: page.pagination.next_cursor };
    });
  }

  // ---------------------------------------------------------------------------------------------------------
  // Market data

  /** The live book (query without start_ts). */
  async orderbook(
    query: Omit<Query<'/api/v1/orderbook'>, 'start_ts' | 'end_ts' | 'cursor'>,
    options?: CallOptions,
  ): Promise<LiveBook> {
    return (await this.request('get', '/api/v1/orderbook', { query }, options)) as LiveBook;
  }
  /** Recorded snapshots of a book (start_ts required; the tier's history window applies). */
  async orderbookHistory(
    query: Query<'/api/v1/orderbook'> & { start_ts: number },
    options?: CallOptions,
  ): Promise<BookHistory> {
    return (await this.request('get', '/api/v1/orderbook', { query }, options)) as BookHistory;
  }
  iterateOrderbookHistory(
    query: Omit<Query<'/api/v1/orderbook'>, 'cursor'> & { start_ts: number },
    options?: CallOptions,
  ) {
    return paginate(async (cursor) => {
      const page = await this.orderbookHistory({ ...query, ...(cursor ? { cursor } : {}) }, options);
      return { items: page.snapshots, next: page.has_more ? page.next_cursor : null };
    });
  }
  /** What buying or selling `amount` contracts would cost against the book, fees included. */
  executionPrice(query: Query<'/api/v1/execution-price'>, options?: CallOptions) {
    return this.request('get', '/api/v1/execution-price', { query }, options);
  }
  /** Candles (`interval` 1m, 1h, 6h, 1d, 1w, max). */
  candles(query: Query<'/api/v1/price'>, options?: CallOptions) {
    return this.request('get', '/api/v1/price', { query }, options);
  }
  trades(query: Query<'/api/v1/trades'>, options?: CallOptions) {
    return this.request('get', '/api/v1/trades', { query }, options);
  }
  iterateTrades(query: Omit<Query<'/api/v1/trades'>, 'cursor'>, options?: CallOptions) {
    return paginate(async (cursor) => {
      const page = await this.trades({ ...query, ...(cursor ? { cursor } : {}) }, options);
      return { items: page.trades, next: page.has_more ? page.next_cursor : null };
    });
  }
  userActivity(query: Query<'/api/v1/user-activity'>, options?: CallOptions) {
    return this.request('get', '/api/v1/user-activity', { query }, options);
  }

  // Across exchanges

  /** One outcome's book merged with its linked twins on other exchanges. */
  consolidatedOrderbook(query: Query<'/api/v1/orderbook/consolidated'>, options?: CallOptions) {
    return this.request('get', '/api/v1/orderbook/consolidated', { query }, options);
  }
  /** The cheapest split of an order across the linked exchanges, fees included. */
  routeQuote(query: Query<'/api/v1/route/quote'>, options?: CallOptions) {
    return this.request('get', '/api/v1/route/quote', { query }, options);
  }
  /**
   * Sends a routed order (a quote's split, one order per leg). It always carries an Idempotency-Key (yours, or one
   * made here), so a retried call drives the same route and never sends a leg twice.
   */
  placeRouteOrder(body: Body<'/api/v1/route/orders'>, options?: OrderCallOptions) {
    return this.request('post', ROUTE_ORDERS, { body }, options);
  }
  listRouteOrders(query: Query<'/api/v1/route/orders'> = {}, options?: CallOptions) {
    return this.request('get', ROUTE_ORDERS, { query }, options);
  }
  iterateRouteOrders(query: Omit<Query<'/api/v1/route/orders'>, 'cursor'> = {}, options?: CallOptions) {
    return paginate(async (cursor) => {
      const page = await this.listRouteOrders({ ...query, ...(cursor ? { cursor } : {}) }, options);
      return {
        items: page.route_orders,
        next: page.pagination.has_more ? (page.pagination.next_cursor ?? null) : null,
      };
    });
  }
  getRouteOrder(routeId: string, options?: CallOptions) {
    return this.request('get', '/api/v1/route/orders/{route_id}', { path: { route_id: routeId } }, options);
  }
  /** Executable arbitrage between linked twins, after each exchange's taker fee, at the sizes the books hold. */
  arbitrage(query: Query<'/api/v1/arbitrage'> = {}, options?: CallOptions) {
    return this.request('get', '/api/v1/arbitrage', { query }, options);
  }
  /** Executes an arbitrage pair with bounded legging risk; carries an Idempotency-Key like placeOrder. */
  executeArbitrage(body: Body<'/api/v1/arbitrage/execute'>, options?: OrderCallOptions) {
    return this.request('post', ARBITRAGE_EXECUTE, { body }, options);
  }
  /** Your paired executions, newest first (one page). */
  listArbitrageExecutions(query: Query<'/api/v1/arbitrage/executions'> = {}, options?: CallOptions) {
    return this.request('get', '/api/v1/arbitrage/executions', { query }, options);
  }
  iterateArbitrageExecutions(
    query: Omit<Query<'/api/v1/arbitrage/executions'>, 'cursor'> = {},
    options?: CallOptions,
  ) {
    return paginate(async (cursor) => {
      const page = await this.listArbitrageExecutions({ ...query, ...(cursor ? { cursor } : {}) }, options);
      return {
        items: page.executions,
        next: page.pagination.has_more ? (page.pagination.next_cursor ?? null) : null,
      };
    });
  }
  /** One paired execution, a leg whose outcome is unknown reconciled with its exchange. */
  getArbitrageExecution(executionId: string, options?: CallOptions) {
    return this.request(
      'get',
      '/api/v1/arbitrage/executions/{execution_id}',
      { path: { execution_id: executionId } },
      options,
    );
  }

  // ---------------------------------------------------------------------------------------------------------
  // Trading

  /**
   * Places an order. It always carries an Idempotency-Key (yours, or one made here), so the retries of a lost answer
   * can never place it twice; pass your own to repeat the call safely later.
   */
  placeOrder(
    query: Query<'/api/v1/orders', 'post'>,
    body: Body<'/api/v1/orders'>,
    options?: OrderCallOptions,
  ) {
    return this.request('post', ORDERS, { query, body }, options);
  }
  listOrders(query: Query<'/api/v1/orders'>, options?: CallOptions) {
    return this.request('get', ORDERS, { query }, options);
  }
  getOrder(orderId: string, query: Query<'/api/v1/orders/{order_id}'>, options?: CallOptions) {
    return this.request('get', '/api/v1/orders/{order_id}', { path: { order_id: orderId }, query }, options);
  }
  cancelOrder(orderId: string, query: Query<'/api/v1/orders/{order_id}', 'delete'>, options?: CallOptions) {
    return this.request(
      'delete',
      '/api/v1/orders/{order_id}',
      { path: { order_id: orderId }, query },
      options,
    );
  }
  fills(query: Query<'/api/v1/fills'>, options?: CallOptions) {
    return this.request('get', '/api/v1/fills', { query }, options);
  }
  positions(query: Query<'/api/v1/positions'>, options?: CallOptions) {
    return this.request('get', '/api/v1/positions', { query }, options);
  }
  balance(query: Query<'/api/v1/balance'>, options?: CallOptions) {
    return this.request('get', '/api/v1/balance', { query }, options);
  }

  // Accounts

  onboard(body: Body<'/api/v1/onboard'>, options?: CallOptions) {
    return this.request('post', '/api/v1/onboard', { body }, options);
  }
  wallet(options?: CallOptions) {
    return this.request('get', '/api/v1/wallet', {}, options);
  }
  exportWalletKey(body: Body<'/api/v1/wallet/export-key'>, options?: CallOptions) {
    return this.request('post', '/api/v1/wallet/export-key', { body }, options);
  }

  // Builder program

  createBuilderUser(body: Body<'/api/v1/builder/users'>, options?: CallOptions) {
    return this.request('post', '/api/v1/builder/users', { body }, options);
  }
  listBuilderUsers(query?: Query<'/api/v1/builder/users'>, options?: CallOptions) {
    return this.request('get', '/api/v1/builder/users', { query }, options);
  }
  iterateBuilderUsers(query: Omit<Query<'/api/v1/builder/users'>, 'cursor'> = {}, options?: CallOptions) {
    return paginate(async (cursor) => {
      const page = await this.listBuilderUsers({ ...query, ...(cursor ? { cursor } : {}) }, options);
      return { items: page.users, next: page.next_cursor };
    });
  }
  getBuilderUser(customerId: string, options?: CallOptions) {
    const path = { customer_id: customerId };
    return this.request('get', '/api/v1/builder/users/{customer_id}', { path }, options);
  }
  updateBuilderUser(
    customerId: string,
    body: Body<'/api/v1/builder/users/{customer_id}', 'patch'>,
    options?: CallOptions,
  ) {
    const path = { customer_id: customerId };
    return this.request('patch', '/api/v1/builder/users/{customer_id}', { path, body }, options);
  }
  deleteBuilderUser(customerId: string, options?: CallOptions) {
    const path = { customer_id: customerId };
    return this.request('delete', '/api/v1/builder/users/{customer_id}', { path }, options);
  }
  builderOnboard(body: Body<'/api/v1/builder/onboard'>, options?: CallOptions) {
    return this.request('post', '/api/v1/builder/onboard', { body }, options);
  }
  builderPool(options?: CallOptions) {
    return this.request('get', '/api/v1/builder/pool', {}, options);
  }
  builderEscrowConfig(options?: CallOptions) {
    return this.request('get', '/api/v1/builder/escrow/config', {}, options);
  }

  // On chain (polymarket)

  approvals(query: Query<'/api/v1/approvals'>, options?: CallOptions) {
    return this.request('get', '/api/v1/approvals', { query }, options);
  }
  setApprovals(
    query: Query<'/api/v1/approvals', 'post'>,
    body: Body<'/api/v1/approvals'>,
    options?: CallOptions,
  ) {
    return this.request('post', '/api/v1/approvals', { query, body }, options);
  }
  ctfSplit(body: Body<'/api/v1/polymarket/ctf/split'>, options?: CallOptions) {
    return this.request('post', '/api/v1/polymarket/ctf/split', { body }, options);
  }
  ctfMerge(body: Body<'/api/v1/polymarket/ctf/merge'>, options?: CallOptions) {
    return this.request('post', '/api/v1/polymarket/ctf/merge', { body }, options);
  }
  ctfRedeem(body: Body<'/api/v1/polymarket/ctf/redeem'>, options?: CallOptions) {
    return this.request('post', '/api/v1/polymarket/ctf/redeem', { body }, options);
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
