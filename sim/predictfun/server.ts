// Loopback HTTP server speaking Predict.fun's REST API under /v1 (x-api-key on every call, JWT on wallet routes)
// beside the shared /__sim/* controls. Every venue request passes the fault gate and is answered in Predict.fun's
// own error envelope; malformed input gets the venue's 4xx, never a 500.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { handleControl, type SimControl } from '../shared/control.js';
import { BodyTooLargeError } from '../shared/http.js';
import type { PfAccounts } from './accounts.js';
import type { PfAuth } from './auth.js';
import { BadRequest, fail } from './envelope.js';
import {
  getCategory,
  getMarket,
  getOrderbook,
  getStats,
  listCategories,
  listMarkets,
  listMatches,
} from './market-routes.js';
import { getOrder, listOrders, postOrder, removeOrders } from './order-routes.js';
import type { PfOrders } from './orders.js';
import type { PfState } from './state.js';
import { getAccount, getAuthMessage, listPositions, postAuth } from './wallet-routes.js';

export interface PfServerDeps {
  state: PfState;
  auth: PfAuth;
  accounts: PfAccounts;
  orders: PfOrders;
  control: SimControl;
}

export function createPredictfunServer(deps: PfServerDeps): Server {
  const { state, auth, accounts, orders, control } = deps;

  async function route(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const q = url.searchParams;
    const method = req.method ?? 'GET';
    const seg = path.split('/').slice(1);
    if (seg[0] !== 'v1') return fail(res, 404, 'not_found', `Cannot ${method} ${path}`);
    // The gateway refuses any /v1 call without the API key, market data included.
    if (!auth.apiKeyValid(req.headers['x-api-key'])) {
      return fail(res, 401, 'unauthorized', 'authorization error');
    }
    const wallet = (): string | null => auth.verifyBearer(req.headers.authorization);
    const key = `${method} /${seg.slice(1).join('/')}`;
    switch (true) {
      case key === 'GET /auth/message':
        return getAuthMessage(auth, res);
      case key === 'POST /auth':
        return postAuth(auth, req, res);
      case key === 'GET /account': {
        const address = wallet();
        if (!address) return fail(res, 401, 'unauthorized', 'authorization error');
        return getAccount(accounts, address, res);
      }
      case key === 'GET /positions': {
        const address = wallet();
        if (!address) return fail(res, 401, 'unauthorized', 'authorization error');
        return listPositions(state, accounts.find(address), res, q);
      }
      case method === 'GET' && seg[1] === 'positions' && seg.length === 3: {
        const address = seg[2] ?? '';
        if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new BadRequest('address must be an address');
        return listPositions(state, accounts.find(address), res, q);
      }
      case key === 'GET /categories':
        return listCategories(state, res, q);
      case method === 'GET' && seg[1] === 'categories' && seg.length === 3:
        return getCategory(state, res, decodeURIComponent(seg[2] ?? ''));
      case key === 'GET /markets':
        return listMarkets(state, res, q);
      case key === 'GET /orders/matches':
        return listMatches(state, res, q);
      case key === 'POST /orders' || key === 'GET /orders' || key === 'POST /orders/remove-by-hash': {
        const address = wallet();
        if (!address) return fail(res, 401, 'unauthorized', 'authorization error');
        if (key === 'POST /orders') return postOrder(orders, address, req, res);
        if (key === 'GET /orders') return listOrders(orders, address, res, q);
        return removeOrders(orders, address, req, res);
      }
      case method === 'GET' && seg[1] === 'orders' && seg.length === 3: {
        const address = wallet();
        if (!address) return fail(res, 401, 'unauthorized', 'authorization error');
        return getOrder(orders, address, res, seg[2] ?? '');
      }
      case method === 'GET' && seg[1] === 'markets' && seg.length === 3:
        return getMarket(state, res, seg[2]);
      case method === 'GET' && seg[1] === 'markets' && seg.length === 4 && seg[3] === 'stats':
        return getStats(state, res, seg[2]);
      case method === 'GET' && seg[1] === 'markets' && seg.length === 4 && seg[3] === 'orderbook':
        return getOrderbook(state, res, seg[2]);
      default:
        return fail(res, 404, 'not_found', `Cannot ${method} ${path}`);
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://sim');
    } catch {
      return fail(res, 400, 'bad_request', 'Invalid URL');
    }
    if (await handleControl(req, res, url.pathname, control)) return;
    const target = { method: req.method ?? 'GET', path: url.pathname };
    control.requests?.record(target.method, target.path);
    // The target lets a test aim faults at one route (`only`).
    const fault = await control.faults.gate(target);
    control.faults.holdResponse(res, target);
    control.faults.malformResponse(res, target);
    if (fault?.kind === 'rate_limited') {
      return fail(res, 429, 'too_many_requests', 'Too many requests', {
        'retry-after': String(fault.retryAfterSeconds),
      });
    }
    if (fault?.kind === 'error') {
      const server = fault.status >= 500;
      return fail(
        res,
        fault.status,
        server ? 'internal_server_error' : 'bad_request',
        server ? 'Internal server error' : 'Bad request',
      );
    }
    try {
      await route(req, res, url);
    } catch (error) {
      if (error instanceof BadRequest) return fail(res, 400, 'bad_request', error.message);
      if (error instanceof BodyTooLargeError) return fail(res, 413, 'bad_request', 'Request body too large');
      throw error;
    }
  }

  return createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) fail(res, 500, 'internal_server_error', 'Internal server error');
    });
  });
}
