// The MCP tools: each is one /api/v1 route with a fixed part of its query, described for a model that has never
// seen these exchanges (what a price, a size and a fee mean). Input schemas name the arguments and their types;
// ranges and formats are the route's to check, so the API's validation stays the only one and cannot drift.
import { type TObject, type TSchema, Type } from 'typebox';
import { EXCHANGE_IDS } from '../domain/exchanges.js';
import { ownValue } from '../domain/own-key.js';
import { ORDER_TYPES } from '../domain/trading.js';
import type { ApiRequest } from './api-client.js';

export type ToolArgs = Readonly<Record<string, unknown>>;

export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  inputSchema: TObject;
  /** `order` tools place or cancel orders: listed and callable only for keys with mcp_trading, with confirm: true. */
  kind: 'read' | 'order';
  request(args: ToolArgs): ApiRequest;
  /** What of the route's answer the tool returns; the whole answer when absent. */
  result?(body: unknown): unknown;
}

/** An argument the tool cannot turn into a request (the API would never see it): answered as validation_error. */
export class ToolArgumentError extends Error {}

// What the numbers mean, said once and repeated where a tool returns or takes them.
const PRICE =
  'A price is what one contract of an outcome costs, between 0 and 1, in the exchange’s dollar (USD on kalshi, ' +
  'pUSD/USDC on polymarket, USDC on limitless and opinion, USDT on predictfun): a contract pays 1 if its outcome ' +
  'happens and 0 otherwise, so a price reads as the market’s probability. Prices sit on the market’s tick_size ' +
  '(kalshi: whole cents).';
const SIZE =
  'A size or amount is a number of contracts (shares), never money: buying size 10 at price 0.42 costs 4.20 ' +
  'before fees. Each market has a min_order_size; kalshi counts contracts to 0.01.';
const FEE =
  'Fees are taker fees in the exchange’s dollar: polymarket rate × (p(1−p))^exponent per share from the market; ' +
  'kalshi 0.07 × the series multiplier × contracts × p × (1−p), rounded up to the cent per order; predictfun ' +
  'feeRateBps × min(p, 1−p) × shares (an estimate: account discounts are unknown); limitless and opinion publish no ' +
  'fee curve, so fee_estimate and net_cost are null there.';
const STORED_CREDENTIALS =
  'Uses the credentials stored for your API key on that exchange (POST /api/v1/onboard); without them the answer ' +
  'is credentials_required.';

const Exchange = Type.Enum(EXCHANGE_IDS, { description: 'Exchange id' });
const Text = (description: string) => Type.String({ description });
const Num = (description: string) => Type.Number({ description });
const Int = (description: string) => Type.Integer({ description });

const SELECTOR = {
  svc_id: Type.Optional(
    Text('Market id {exchange}:{native id}, e.g. kalshi:KXBTC-25. Or exchange + market_id.'),
  ),
  exchange: Type.Optional(Exchange),
  market_id: Type.Optional(Text('The exchange’s own market id, with exchange (not with svc_id)')),
  outcome: Type.Optional(Text('Outcome name, case-insensitive; default yes')),
};
const SELECTOR_KEYS = ['svc_id', 'exchange', 'market_id', 'outcome'] as const;

function input(properties: Record<string, TSchema>, required: string[] = []): TObject {
  const shaped = Object.fromEntries(
    Object.entries(properties).map(([k, v]) => [k, required.includes(k) ? v : Type.Optional(v)]),
  );
  return Type.Object(shaped, { additionalProperties: false });
}

/** One query value as the route reads it: strings as they are, numbers and booleans printed, lists joined. */
function queryValue(name: string, value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.join(',');
  throw new ToolArgumentError(`${name} must be a string, a number or a boolean`);
}

/** The named arguments that were given, in order, plus fixed pairs the tool always sends. */
function query(
  args: ToolArgs,
  names: readonly string[],
  fixed: ReadonlyArray<readonly [string, string]> = [],
  defaults: ReadonlyArray<readonly [string, string]> = [],
): Array<[string, string]> {
  const out: Array<[string, string]> = fixed.map(([k, v]) => [k, v]);
  for (const name of names) {
    const value = ownValue(args, name);
    if (value !== undefined && value !== null) out.push([name, queryValue(name, value)]);
  }
  for (const [k, v] of defaults) if (!out.some(([name]) => name === k)) out.push([k, v]);
  return out;
}

function pathSegment(args: ToolArgs, name: string): string {
  const value = ownValue(args, name);
  if (typeof value !== 'string' || value.length === 0) {
    throw new ToolArgumentError(`${name} is required (a string)`);
  }
  return encodeURIComponent(value);
}

/** The one market of a scope=market answer (the route answers 404 when there is none). */
function firstMarket(body: unknown): unknown {
  const markets = (body as { markets?: unknown[] } | undefined)?.markets;
  return Array.isArray(markets) ? markets[0] : body;
}

export const TOOLS: readonly ToolSpec[] = [
  {
    name: 'search_markets',
    title: 'Search markets',
    description:
      'Search the prediction markets of polymarket, kalshi, limitless, opinion and predictfun by keywords (every ' +
      'word must match, `elect*` matches a prefix). Each market has a svc_id ({exchange}:{native id}) that the ' +
      'other tools take, its question, status, outcomes with prices, volume and liquidity (USD). ' +
      `${PRICE} Pages with pagination.next_cursor → cursor.`,
    inputSchema: input({
      search: Text('Keywords, searched in question and description'),
      exchanges: Text('Comma-separated exchange ids; default all five'),
      status: Type.Enum(['active', 'closed', 'resolved', 'archived'], { description: 'Default active' }),
      min_volume: Num('Minimum total volume, USD'),
      min_liquidity: Num('Minimum liquidity, USD'),
      limit: Int('Markets per page, 1–100; default 10 here'),
      cursor: Text('pagination.next_cursor of the previous page'),
    }),
    kind: 'read',
    request: (args) => ({
      method: 'GET',
      path: '/markets',
      query: query(
        args,
        ['search', 'exchanges', 'status', 'min_volume', 'min_liquidity', 'limit', 'cursor'],
        [['scope', 'list']],
        [['limit', '10']],
      ),
    }),
  },
  {
    name: 'get_market',
    title: 'Get one market',
    description:
      'One market by svc_id, or by exchange + exchange_market_id: question, description, rules, status, outcomes ' +
      `(name, price, token_id), tick_size, min_order_size, volume, end_date. ${PRICE}`,
    inputSchema: input({
      svc_id: Text('{exchange}:{native id}'),
      exchange: Exchange,
      exchange_market_id: Text('The exchange’s own market id, with exchange'),
    }),
    kind: 'read',
    request: (args) => ({
      method: 'GET',
      path: '/markets',
      query: query(args, ['svc_id', 'exchange', 'exchange_market_id'], [['scope', 'market']]),
    }),
    result: firstMarket,
  },
  {
    name: 'get_matched_markets',
    title: 'Same market on other exchanges',
    description:
      'The markets on other exchanges that the matching engine found to ask the same question as this one ' +
      '(matched_markets: svc_id, exchange, confidence 0–1, confidence_tier HIGH/MEDIUM/LOW, status), and with ' +
      'include_related the logically dependent ones (related_markets). Links are decision support and can be ' +
      'wrong: read both markets’ rules before treating them as one bet.',
    inputSchema: input(
      {
        svc_id: Text('{exchange}:{native id}'),
        include_related: Type.Boolean({ description: 'Also related_markets (default false)' }),
      },
      ['svc_id'],
    ),
    kind: 'read',
    request: (args) => ({
      method: 'GET',
      path: '/markets',
      query: query(
        args,
        ['svc_id', 'include_related'],
        [
          ['scope', 'market'],
          ['include_matches', 'true'],
        ],
      ),
    }),
    result: (body) => {
      const m = firstMarket(body) as Record<string, unknown> | undefined;
      if (!m || typeof m !== 'object') return body;
      return {
        svc_id: m.svc_id,
        exchange: m.exchange,
        question: m.question,
        status: m.status,
        matched_markets: m.matched_markets ?? [],
        ...(m.related_markets !== undefined ? { related_markets: m.related_markets } : {}),
      };
    },
  },
  {
    name: 'get_orderbook',
    title: 'Order book',
    description:
      'One outcome’s live order book: bids (best = highest first) and asks (best = lowest first) as [price, size] ' +
      `levels, with tick_size and min_order_size. ${PRICE} ${SIZE} An exchange that cannot be reached is an ` +
      'error (service_unavailable, retryable), never an empty book.',
    inputSchema: input({ ...SELECTOR, limit: Int('Levels per side, 1–100; default 10 here') }),
    kind: 'read',
    request: (args) => ({
      method: 'GET',
      path: '/orderbook',
      query: query(args, [...SELECTOR_KEYS, 'limit'], [], [['limit', '10']]),
    }),
  },
  {
    name: 'get_consolidated_orderbook',
    title: 'Order book across exchanges',
    description:
      'One outcome’s book merged with the same outcome on the other exchanges that list the same question ' +
      '(published same_market links, HIGH confidence unless min_tier says otherwise). Levels are [price, size, ' +
      'exchange, net_price]: net_price adds that exchange’s taker fee for taking the whole level (asks) or takes it ' +
      `off (bids); null where the fee is not published. venues says which books were used. ${PRICE} ${FEE}`,
    inputSchema: input({
      ...SELECTOR,
      limit: Int('Merged levels per side, 1–100; default 10 here'),
      min_tier: Type.Enum(['HIGH', 'MEDIUM', 'LOW'], { description: 'Weakest link used; default HIGH' }),
    }),
    kind: 'read',
    request: (args) => ({
      method: 'GET',
      path: '/orderbook/consolidated',
      query: query(args, [...SELECTOR_KEYS, 'limit', 'min_tier'], [], [['limit', '10']]),
    }),
  },
  {
    name: 'get_candles',
    title: 'Price candles',
    description:
      'OHLCV candles of one outcome’s price (open, high, low, close between 0 and 1; volume in contracts), ' +
      'timestamps at period starts (UTC). Default window: 24 h for 1m, 7 d for 1h, 14 d for 6h and 1d, 30 d for ' +
      '1w and max, held to your key’s history window. at_ts answers the one candle covering that instant. ' +
      'What a candle’s price is differs per exchange (trades on kalshi, sampled prices elsewhere).',
    inputSchema: input({
      ...SELECTOR,
      interval: Type.Enum(['1m', '1h', '6h', '1d', '1w', 'max'], { description: 'Default 1h' }),
      start_ts: Int('Unix seconds; not with at_ts'),
      end_ts: Int('Unix seconds; not with at_ts'),
      at_ts: Int('Unix seconds: the candle covering that instant'),
    }),
    kind: 'read',
    request: (args) => ({
      method: 'GET',
      path: '/price',
      query: query(args, [...SELECTOR_KEYS, 'interval', 'start_ts', 'end_ts', 'at_ts']),
    }),
  },
  {
    name: 'get_trades',
    title: 'Public trades',
    description:
      'The public trades of one outcome, newest first: price, size, side and aggressor_side (the taker’s side), ' +
      `timestamp. ${PRICE} ${SIZE} Pages with next_cursor → cursor.`,
    inputSchema: input({
      ...SELECTOR,
      limit: Int('Trades, 1–500; default 50 here'),
      start_ts: Int('Unix seconds'),
      end_ts: Int('Unix seconds'),
      cursor: Text('next_cursor of the previous page'),
    }),
    kind: 'read',
    request: (args) => ({
      method: 'GET',
      path: '/trades',
      query: query(args, [...SELECTOR_KEYS, 'limit', 'start_ts', 'end_ts', 'cursor'], [], [['limit', '50']]),
    }),
  },
  {
    name: 'get_execution_price',
    title: 'Execution price estimate',
    description:
      'What a taker order of `amount` contracts would fill at right now: walks the live book (buy walks the asks, ' +
      'sell the bids) and prices the taker fee. avg_price, total_cost (Σ price × size: positive paid on a buy, ' +
      'negative received on a sell), filled_amount, fully_filled, slippage (avg_price against the best price, ' +
      `in price units), fee_estimate, net_cost = total_cost + fee_estimate, fee_info. Nothing is sent. ${PRICE} ` +
      `${SIZE} ${FEE}`,
    inputSchema: input(
      {
        ...SELECTOR,
        side: Type.Enum(['buy', 'sell']),
        amount: Type.Union([Type.String(), Type.Number()], {
          description: 'Contracts, > 0, at most 6 decimals (e.g. "12.5")',
        }),
      },
      ['side', 'amount'],
    ),
    kind: 'read',
    request: (args) => ({
      method: 'GET',
      path: '/execution-price',
      query: query(args, [...SELECTOR_KEYS, 'side', 'amount']),
    }),
  },
  {
    name: 'quote_route',
    title: 'Cheapest route across exchanges',
    description:
      'The cheapest way to fill one taker order across the exchanges that list the same outcome, net of each ' +
      'exchange’s taker fee: legs (exchange, market_id, limit_price, size, est_avg_price, est_fee, est_net_cost), ' +
      'totals, best_single (the best one exchange alone does), savings, excluded venues with reasons. A quote ' +
      'sends nothing. Without exchanges, only exchanges you can trade (stored credentials) are used. ' +
      `${PRICE} ${SIZE} ${FEE}`,
    inputSchema: input(
      {
        ...SELECTOR,
        side: Type.Enum(['buy', 'sell']),
        amount: Type.Union([Type.String(), Type.Number()], {
          description: 'Contracts, > 0, at most 6 decimals',
        }),
        exchanges: Text(
          'Comma-separated exchanges to route across (a quote across them needs no credentials)',
        ),
        max_legs: Int('1–5; default 5'),
        min_tier: Type.Enum(['HIGH', 'MEDIUM', 'LOW'], { description: 'Weakest link used; default HIGH' }),
      },
      ['side', 'amount'],
    ),
    kind: 'read',
    request: (args) => ({
      method: 'GET',
      path: '/route/quote',
      query: query(args, [...SELECTOR_KEYS, 'side', 'amount', 'exchanges', 'max_legs', 'min_tier']),
    }),
  },
  {
    name: 'list_exchanges',
    title: 'Exchanges and capabilities',
    description:
      'The five exchanges and what this server serves on each (has.fetch_orderbook, create_order, ' +
      'fetch_positions, …); a false flag means that tool answers not_supported there.',
    inputSchema: input({}),
    kind: 'read',
    request: () => ({ method: 'GET', path: '/exchanges' }),
  },
  {
    name: 'get_positions',
    title: 'Your positions',
    description:
      'Your positions on one exchange: market_id (the exchange’s id), outcome, size (contracts held), ' +
      `average_price (paid per contract), current_price. ${PRICE} ${STORED_CREDENTIALS}`,
    inputSchema: input({ exchange: Exchange, market_id: Text('Only this market (the exchange’s id)') }, [
      'exchange',
    ]),
    kind: 'read',
    request: (args) => ({
      method: 'GET',
      path: '/positions',
      query: query(args, ['exchange', 'market_id']),
    }),
  },
  {
    name: 'list_orders',
    title: 'Your orders',
    description:
      'Your orders on one exchange, newest first: open (default; pending ones included), closed or all. Each: id, ' +
      'client_order_id, market_id, outcome, side, price, size, filled (contracts), status (pending, open, ' +
      `partially_filled, filled, cancelled, rejected, expired), created_at. ${STORED_CREDENTIALS}`,
    inputSchema: input(
      {
        exchange: Exchange,
        status: Type.Enum(['open', 'closed', 'all'], { description: 'Default open' }),
        market_id: Text('Only this market (the exchange’s id)'),
        limit: Int('1–500; default 100'),
        start_ts: Int('Unix seconds, on created_at'),
        end_ts: Int('Unix seconds, on created_at'),
      },
      ['exchange'],
    ),
    kind: 'read',
    request: (args) => ({
      method: 'GET',
      path: '/orders',
      query: query(args, ['exchange', 'status', 'market_id', 'limit', 'start_ts', 'end_ts']),
    }),
  },
  {
    name: 'get_order',
    title: 'One of your orders',
    description: `One order by its id or client_order_id, with its current status and filled size. ${STORED_CREDENTIALS}`,
    inputSchema: input({ exchange: Exchange, order_id: Text('id or client_order_id') }, [
      'exchange',
      'order_id',
    ]),
    kind: 'read',
    request: (args) => ({
      method: 'GET',
      path: `/orders/${pathSegment(args, 'order_id')}`,
      query: query(args, ['exchange']),
    }),
  },
  {
    name: 'place_order',
    title: 'Place an order (real money outside the sandbox)',
    description:
      'Places a limit order on one exchange with your stored credentials. Set confirm: true only once the user ' +
      'has approved this exact order. side buy or sell, outcome (e.g. Yes), price (limit per contract, strictly ' +
      'between 0 and 1, on the market’s tick), size (contracts, at least min_order_size). order_type gtc (default; ' +
      'rests until cancelled), ioc (fills what it can now, the rest cancelled), fok (all now or nothing), gtd (with ' +
      'expiration); polymarket takes all four, kalshi gtc and ioc. A buy of size 10 at 0.42 spends up to 4.20 plus ' +
      `taker fees. ${FEE} Pass the same idempotency_key when retrying: the order is then never placed twice. ` +
      'Answers the Order (id, client_order_id, status, filled).',
    inputSchema: input(
      {
        exchange: Exchange,
        market_id: Text('The exchange’s own market id (exchange_market_id of get_market)'),
        outcome: Text('Outcome name, e.g. Yes or No'),
        side: Type.Enum(['buy', 'sell']),
        price: Num('Limit price per contract, strictly between 0 and 1, on the tick'),
        size: Num('Contracts'),
        order_type: Type.Enum(ORDER_TYPES, { description: 'Default gtc' }),
        expiration: Int('Unix seconds, for gtd only, at least 60 s ahead'),
        idempotency_key: Text('Your id for this order (≤ 200 chars); repeat it on a retry'),
        confirm: Type.Literal(true, { description: 'Must be true: the user approved this order' }),
      },
      ['exchange', 'market_id', 'outcome', 'side', 'price', 'size', 'confirm'],
    ),
    kind: 'order',
    request: (args) => {
      const params: Record<string, string> = {};
      if (args.order_type !== undefined) params.order_type = queryValue('order_type', args.order_type);
      if (args.expiration !== undefined) params.expiration = queryValue('expiration', args.expiration);
      const key = args.idempotency_key;
      if (key !== undefined && typeof key !== 'string') {
        throw new ToolArgumentError('idempotency_key must be a string');
      }
      return {
        method: 'POST',
        path: '/orders',
        query: query(args, ['exchange']),
        body: {
          market_id: args.market_id,
          outcome: args.outcome,
          side: args.side,
          price: args.price,
          size: args.size,
          ...(Object.keys(params).length > 0 ? { params } : {}),
        },
        ...(key !== undefined ? { headers: { 'idempotency-key': key } } : {}),
      };
    },
  },
  {
    name: 'cancel_order',
    title: 'Cancel an order',
    description:
      'Cancels one of your open orders (by id or client_order_id). Set confirm: true only once the user approved ' +
      'it. Answers the Order with status cancelled and filled = what was filled before the cancellation.',
    inputSchema: input(
      {
        exchange: Exchange,
        order_id: Text('id or client_order_id'),
        confirm: Type.Literal(true, { description: 'Must be true: the user approved this cancellation' }),
      },
      ['exchange', 'order_id', 'confirm'],
    ),
    kind: 'order',
    request: (args) => ({
      method: 'DELETE',
      path: `/orders/${pathSegment(args, 'order_id')}`,
      query: query(args, ['exchange']),
    }),
  },
];

const BY_NAME: ReadonlyMap<string, ToolSpec> = new Map(TOOLS.map((t) => [t.name, t]));

export function toolNamed(name: string): ToolSpec | undefined {
  return BY_NAME.get(name);
}
