// Limitless order routes (all signed: HMAC token or X-API-Key): POST /orders, DELETE /orders/{id}, DELETE
// /orders/all/{slug}, GET /markets/{slug}/user-orders?statuses=LIVE|MATCHED, POST /orders/status/batch. Shapes
// follow @limitless-exchange/sdk 1.1.0 (NewOrderPayload, OrderResponse, Execution, OrderCancellationResponse) and
// docs.limitless.exchange api-reference/trading/{user-orders,order-status-batch}; what neither states is listed
// in docs/venues/limitless.md "Trading (simulator)".
import type { LimitlessAccount } from './auth.js';
import type { SimCatalog, SimMarket } from './catalog.js';
import {
  ExchangeError,
  type LimitlessExchange,
  type NewOrderRequest,
  type SimMatch,
  type SimOrder,
} from './exchange.js';

export class TradingProblem extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(String(body.message));
  }
}

const problem = (status: number, message: string | string[]) =>
  new TradingProblem(status, {
    message,
    error:
      status === 404
        ? 'Not Found'
        : status === 409
          ? 'Conflict'
          : status === 403
            ? 'Forbidden'
            : 'Bad Request',
    statusCode: status,
  });

const human = (units: number) => String(units / 1e6);

export interface TradingDeps {
  catalog: SimCatalog;
  exchange: LimitlessExchange;
  /** Told of a market whose book an order or cancel changed. */
  changed(slug: string): void;
}

/** Answers a trading route, or returns undefined when the request is not one. */
export async function tradingRoute(
  deps: TradingDeps,
  account: LimitlessAccount | null,
  method: string,
  parts: string[],
  q: URLSearchParams,
  body: string,
): Promise<{ status: number; body: unknown } | undefined> {
  const isOrders = parts[0] === 'orders';
  const isUserOrders =
    method === 'GET' && parts[0] === 'markets' && parts.length === 3 && parts[2] === 'user-orders';
  if (!isOrders && !isUserOrders) return undefined;
  if (!account) throw new TradingProblem(401, { message: 'Unauthorized', statusCode: 401 });
  try {
    if (isUserOrders) return { status: 200, body: userOrders(deps, account, parts[1] as string, q) };
    if (method === 'POST' && parts.length === 1)
      return { status: 201, body: await create(deps, account, body) };
    if (method === 'POST' && parts.length === 3 && parts[1] === 'status' && parts[2] === 'batch') {
      return { status: 200, body: statusBatch(deps, account, body) };
    }
    if (method === 'DELETE' && parts.length === 3 && parts[1] === 'all') {
      const n = deps.exchange.cancelAll(account, parts[2] as string);
      deps.changed(parts[2] as string);
      return { status: 200, body: { message: `${n} orders cancelled` } };
    }
    if (method === 'DELETE' && parts.length === 2) {
      const order = deps.exchange.cancel(account, parts[1] as string);
      deps.changed(order.market.slug);
      return { status: 200, body: { message: 'Order cancelled successfully' } };
    }
  } catch (error) {
    if (error instanceof ExchangeError) throw problem(error.status, error.message);
    throw error;
  }
  return undefined;
}

function parseBody(body: string): Record<string, unknown> {
  try {
    const v = JSON.parse(body) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw problem(400, ['body must be a JSON object']);
}

function validOrderBody(v: unknown): v is NewOrderRequest['order'] {
  if (!v || typeof v !== 'object') return false;
  const o = v as Record<string, unknown>;
  const intLike = (x: unknown) =>
    (typeof x === 'number' && Number.isSafeInteger(x)) || (typeof x === 'string' && /^\d+$/.test(x));
  return (
    intLike(o.salt) &&
    typeof o.maker === 'string' &&
    typeof o.signer === 'string' &&
    typeof o.taker === 'string' &&
    typeof o.tokenId === 'string' &&
    /^\d+$/.test(o.tokenId) &&
    intLike(o.makerAmount) &&
    intLike(o.takerAmount) &&
    typeof o.expiration === 'string' &&
    typeof o.nonce === 'number' &&
    typeof o.feeRateBps === 'number' &&
    typeof o.side === 'number' &&
    typeof o.signatureType === 'number' &&
    typeof o.signature === 'string' &&
    (o.price === undefined || typeof o.price === 'number')
  );
}

async function create(deps: TradingDeps, account: LimitlessAccount, raw: string): Promise<unknown> {
  const body = parseBody(raw);
  const problems: string[] = [];
  if (!validOrderBody(body.order)) problems.push('order must be a signed order');
  if (typeof body.marketSlug !== 'string') problems.push('marketSlug must be a string');
  if (typeof body.ownerId !== 'number') problems.push('ownerId must be a number');
  if (body.orderType !== 'GTC' && body.orderType !== 'FAK' && body.orderType !== 'FOK') {
    problems.push('orderType must be one of the following values: GTC, FOK, FAK');
  }
  if (body.postOnly !== undefined && typeof body.postOnly !== 'boolean')
    problems.push('postOnly must be a boolean');
  if (
    body.clientOrderId !== undefined &&
    (typeof body.clientOrderId !== 'string' || body.clientOrderId.length > 128)
  ) {
    problems.push('clientOrderId must be a string of at most 128 characters');
  }
  if (problems.length > 0) throw problem(400, problems);
  const market = clobMarket(deps, body.marketSlug as string);
  const order = await deps.exchange.place(account, market, body as unknown as NewOrderRequest);
  deps.changed(market.slug);
  return orderResponse(order);
}

function clobMarket(deps: TradingDeps, slug: string): SimMarket {
  const row = deps.catalog.bySlug.get(slug);
  if (row?.kind !== 'market') throw problem(404, 'Market not found');
  return row;
}

/** The account's live orders per market, as a positions entry's `orders` lists them. */
export function liveOrders(
  exchange: LimitlessExchange,
  account: LimitlessAccount,
): Map<string, { liveOrders: Array<Record<string, unknown>>; totalCollateralLocked: number }> {
  const out = new Map<
    string,
    { liveOrders: Array<Record<string, unknown>>; totalCollateralLocked: number }
  >();
  for (const [slug, orders] of exchange.liveOf(account)) {
    out.set(slug, {
      liveOrders: orders.map(orderDocument),
      totalCollateralLocked: orders.reduce((s, o) => s + o.lockedUsdc, 0),
    });
  }
  return out;
}

/** The SDK's CreatedOrder fields, plus the order's state (`status`, sizes, client id) as the status reads give it. */
function orderDocument(o: SimOrder): Record<string, unknown> {
  const s = o.signed;
  return {
    id: o.id,
    createdAt: new Date(o.createdMs).toISOString(),
    makerAmount: Number(s.makerAmount),
    takerAmount: Number(s.takerAmount),
    expiration: s.expiration === '0' ? null : s.expiration,
    signatureType: s.signatureType,
    salt: s.salt,
    maker: s.maker,
    signer: s.signer,
    taker: s.taker,
    tokenId: s.tokenId,
    side: s.side,
    feeRateBps: s.feeRateBps,
    nonce: s.nonce,
    signature: s.signature,
    orderType: o.orderType,
    price: o.price,
    marketId: o.market.id,
    marketSlug: o.market.slug,
    clientOrderId: o.clientOrderId,
    status: o.status,
    originalSize: human(o.size),
    remainingSize: human(o.orderType === 'FOK' ? 0 : o.size - o.filled),
    updatedAt: o.updatedMs === o.createdMs ? null : new Date(o.updatedMs).toISOString(),
  };
}

function matchDocument(m: SimMatch): Record<string, unknown> {
  return {
    id: m.id,
    createdAt: new Date(m.createdMs).toISOString(),
    matchedSize: String(m.size),
    orderId: m.counterOrderId,
    price: String(m.price),
    role: m.isTaker ? 'TAKER' : 'MAKER',
    txHash: m.txHash,
  };
}

/** Totals of what the order took as a taker (the SDK's Execution; raw 1e6 integer strings). */
function execution(o: SimOrder): Record<string, unknown> {
  const taken = o.matches.filter((m) => m.isTaker);
  const contractsGross = taken.reduce((s, m) => s + m.size, 0);
  const contractsFee = taken.reduce((s, m) => s + m.contractsFee, 0);
  const usdGross = taken.reduce(
    (s, m) => s + (o.side === 0 ? Math.ceil(m.size * m.price) : Math.floor(m.size * m.price)),
    0,
  );
  const usdFee = taken.reduce((s, m) => s + m.usdFee, 0);
  const notional = usdGross > 0 ? usdGross : 1;
  const feeUsdEquivalent = usdFee + taken.reduce((s, m) => s + m.contractsFee * m.price, 0);
  return {
    ...(o.clientOrderId !== null ? { clientOrderId: o.clientOrderId } : {}),
    feeRateBps: o.signed.feeRateBps,
    effectiveFeeBps: Math.round((feeUsdEquivalent / notional) * 10_000),
    matched: taken.length > 0,
    settlementStatus: taken.length > 0 ? 'MATCHED' : 'UNMATCHED',
    totalsRaw: {
      contractsGross: String(contractsGross),
      contractsFee: String(contractsFee),
      contractsNet: String(contractsGross - contractsFee),
      usdGross: String(usdGross),
      usdFee: String(usdFee),
      usdNet: String(o.side === 0 ? usdGross : usdGross - usdFee),
    },
    ...(taken[0] ? { tradeEventId: taken[0].id, txHash: taken[0].txHash } : { txHash: null }),
  };
}

/** POST /orders answer: `{ order, makerMatches, execution }` (the SDK's RawOrderResponse). */
function orderResponse(o: SimOrder): Record<string, unknown> {
  return {
    order: orderDocument(o),
    makerMatches: o.matches.filter((m) => m.isTaker).map(matchDocument),
    execution: execution(o),
  };
}

const STATUSES = ['LIVE', 'MATCHED'] as const;

/** GET /markets/{slug}/user-orders: the caller's orders on one market, LIVE by default (docs). */
function userOrders(deps: TradingDeps, account: LimitlessAccount, slug: string, q: URLSearchParams): unknown {
  clobMarket(deps, slug);
  const asked = q.getAll('statuses').flatMap((s) => s.split(','));
  for (const s of asked) {
    if (!(STATUSES as readonly string[]).includes(s)) {
      throw problem(400, [
        `each value in statuses must be one of the following values: ${STATUSES.join(', ')}`,
      ]);
    }
  }
  const want = new Set(asked.length > 0 ? asked : ['LIVE']);
  const limitRaw = q.get('limit');
  const limit = limitRaw === null ? 100 : Number(limitRaw);
  if (!Number.isInteger(limit) || limit < 1) throw problem(400, ['limit must not be less than 1']);
  const orders = deps.exchange
    .ordersOf(account, slug)
    .filter((o) => want.has(o.status))
    .sort((a, b) => b.createdMs - a.createdMs)
    .slice(0, limit)
    .map((o) => ({
      ...orderDocument(o),
      side: o.side === 0 ? 'BUY' : 'SELL',
      price: o.price === null ? null : String(o.price),
      quantity: human(o.size),
    }));
  return { orders };
}

/** POST /orders/status/batch: 1–50 items, each exactly one of orderId or clientOrderId (docs). */
function statusBatch(deps: TradingDeps, account: LimitlessAccount, raw: string): unknown {
  const body = parseBody(raw);
  const items = body.items;
  if (!Array.isArray(items) || items.length < 1 || items.length > 50) {
    throw problem(400, ['items must contain between 1 and 50 elements']);
  }
  const results = items.map((item: unknown, index) => {
    const it = (item && typeof item === 'object' ? item : {}) as Record<string, unknown>;
    const orderId = typeof it.orderId === 'string' ? it.orderId : undefined;
    const clientOrderId = typeof it.clientOrderId === 'string' ? it.clientOrderId : undefined;
    if ((orderId === undefined) === (clientOrderId === undefined)) {
      return { index, status: 'error', error: 'Exactly one of orderId or clientOrderId is required' };
    }
    const found =
      orderId !== undefined
        ? deps.exchange.find(orderId)
        : deps.exchange.findByClientId(account, clientOrderId as string);
    if (!found || found.account !== account) {
      return { index, status: 'not_found', ...(orderId ? { orderId } : { clientOrderId }) };
    }
    deps.exchange.ordersOf(account, found.market.slug);
    return {
      index,
      status: 'found',
      orderId: found.id,
      ...(found.clientOrderId !== null ? { clientOrderId: found.clientOrderId } : {}),
      data: {
        order: { order: orderDocument(found), makerMatches: found.matches.map(matchDocument) },
        makerMatches: found.matches.map(matchDocument),
        execution: execution(found),
      },
    };
  });
  return { results };
}
