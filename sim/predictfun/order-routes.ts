// Predict.fun's order routes, all for the wallet the JWT names: POST /v1/orders (create), GET /v1/orders (the
// wallet's orders, `status` OPEN or FILLED as the venue accepts, paged by first/after), GET /v1/orders/{hash}, and
// POST /v1/orders/remove-by-hash (off-chain removal, answered {removed, rejected, noop}).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseJson, readBody, sendJson } from '../shared/http.js';
import {
  BadRequest,
  cursorOffset,
  encodeCursor,
  fail,
  ok,
  type PredictErrorSlug,
  parseFirst,
} from './envelope.js';
import { OrderRefusal, orderJson, type PfOrders } from './orders.js';

async function jsonBody(req: IncomingMessage): Promise<unknown> {
  try {
    return parseJson(await readBody(req));
  } catch {
    throw new BadRequest('Invalid JSON body');
  }
}

export async function postOrder(
  orders: PfOrders,
  caller: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const body = await jsonBody(req);
  try {
    ok(res, orders.submit(caller, body));
  } catch (error) {
    if (error instanceof OrderRefusal)
      return fail(res, error.status, error.slug as PredictErrorSlug, error.message);
    throw error;
  }
}

export function listOrders(orders: PfOrders, caller: string, res: ServerResponse, q: URLSearchParams): void {
  const first = parseFirst(q.get('first'));
  const offset = cursorOffset(q.get('after'));
  const status = q.get('status');
  if (status !== null && status !== 'OPEN' && status !== 'FILLED') {
    throw new BadRequest('status must be one of OPEN, FILLED');
  }
  const marketRaw = q.get('marketId');
  if (marketRaw !== null && !/^\d{1,15}$/.test(marketRaw)) throw new BadRequest('marketId must be a number');
  const all = orders
    .list(caller)
    .filter((o) => (status ?? 'OPEN') === o.status)
    .filter((o) => marketRaw === null || o.ref.id === Number(marketRaw));
  const page = all.slice(offset, offset + first);
  const next = offset + page.length < all.length ? encodeCursor({ offset: offset + page.length }) : null;
  ok(res, page.map(orderJson), next);
}

export function getOrder(orders: PfOrders, caller: string, res: ServerResponse, hash: string): void {
  if (!/^0x[0-9a-fA-F]{64}$/.test(hash)) throw new BadRequest('order hash must be a 32-byte hex string');
  const order = orders.get(hash);
  if (!order) fail(res, 404, 'not_found', 'Order not found');
  else if (order.owner !== caller.toLowerCase()) {
    fail(res, 401, 'unauthorized', 'The requested orders do not belong to this wallet');
  } else ok(res, orderJson(order));
}

export async function removeOrders(
  orders: PfOrders,
  caller: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const body = (await jsonBody(req)) as { data?: { hashes?: unknown } } | null;
  const hashes = body?.data?.hashes;
  if (!Array.isArray(hashes) || hashes.length === 0 || hashes.length > 100) {
    throw new BadRequest('data.hashes must be 1 to 100 order hashes');
  }
  if (!hashes.every((h) => typeof h === 'string' && /^0x[0-9a-fA-F]{64}$/.test(h))) {
    throw new BadRequest('order hash must be a 32-byte hex string');
  }
  // The venue answers this route without a data envelope (ccxt's recorded reply).
  sendJson(res, 200, { success: true, ...orders.remove(caller, hashes as string[]) });
}
