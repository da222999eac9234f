// Loopback HTTP server speaking Limitless's public REST wire format (orderbook so far) plus the /__sim/ controls.
// Markets come from the shared world; slugs are indexed in a Map so lookups stay O(1) at 100k+ markets.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { handleControl, type SimClock } from '../shared/control.js';
import type { SimFaults } from '../shared/faults.js';
import { sendJson as send } from '../shared/http.js';
import type { Proposition, World } from '../shared/world.js';
import type { LimitlessAccounts } from './auth.js';
import { buildBook } from './book.js';
import { limitlessMarket, limitlessSlug, limitlessTokenId } from './market.js';

interface Listing {
  prop: Proposition;
  slug: string;
  tokenId: string;
  fairYes: number;
  seed: number;
  market: Record<string, unknown>;
}

export function createLimitlessServer(
  world: World,
  accounts: LimitlessAccounts,
  faults: SimFaults,
  clock: SimClock,
): Server {
  const bySlug = new Map<string, Listing>();
  const manifest: Record<string, string[]> = {};
  for (const prop of world.listedOn('limitless')) {
    const fairYes = prop.shape.kind === 'binary' ? prop.shape.fairYes : (prop.shape.options[0]?.fair ?? 0.5);
    const n = bySlug.size;
    const listing: Listing = {
      prop,
      slug: limitlessSlug(prop),
      tokenId: limitlessTokenId(prop, 'yes'),
      fairYes,
      seed: world.seed + n,
      market: limitlessMarket(prop, 100_000 + n, fairYes),
    };
    bySlug.set(listing.slug, listing);
    manifest[prop.id] = [listing.slug];
  }
  const active = [...bySlug.values()].filter((l) => l.prop.status === 'active');
  let step = 0;
  const control = {
    faults,
    clock,
    hooks: {
      manifest: () => manifest,
      advance: (steps: number) => {
        step += steps;
        return step;
      },
      createAccount: () => {
        const a = accounts.register();
        return {
          credentials: { api_key: a.apiKey, token_id: a.tokenId, secret: a.secret },
          address: a.address,
        };
      },
    },
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sim');
    const path = url.pathname;
    if (await handleControl(req, res, path, control)) return;
    const fault = await faults.gate();
    if (fault?.kind === 'rate_limited') {
      return send(
        res,
        429,
        { message: 'ThrottlerException: Too Many Requests', statusCode: 429 },
        { 'retry-after': String(fault.retryAfterSeconds) },
      );
    }
    if (fault?.kind === 'error') {
      return send(res, fault.status, { message: 'Internal server error', statusCode: fault.status });
    }
    if (path === '/portfolio/positions' && req.method === 'GET') {
      const account = accounts.verify(req.headers, 'GET', `${path}${url.search}`, '');
      if (!account) return send(res, 401, { message: 'Unauthorized', statusCode: 401 });
      // A fresh paper account holds no positions yet; trading is not simulated in this slice.
      return send(res, 200, { amm: [], clob: [], group: [] });
    }
    const hist = /^\/markets\/([^/]+)\/historical-price$/.exec(path);
    if (hist && req.method === 'GET') {
      const listing = bySlug.get(decodeURIComponent(hist[1] ?? ''));
      if (!listing) return send(res, 404, { message: 'Market not found', statusCode: 404 });
      // As recorded: newest first, 15-minute ticks, ms timestamps and prices as strings; one tick per advance step.
      const nowMs = Math.floor(world.now.getTime() / 900_000) * 900_000;
      const prices = Array.from({ length: 96 }, (_, i) => ({
        timestamp: String(nowMs - i * 900_000),
        price: buildBook(listing.seed, listing.tokenId, listing.fairYes, Math.max(0, step - i)).midpoint,
      }));
      return send(res, 200, { title: listing.market.title, marketStatus: listing.market.status, prices });
    }
    const book = /^\/markets\/([^/]+)\/orderbook$/.exec(path);
    if (book && req.method === 'GET') {
      const listing = bySlug.get(decodeURIComponent(book[1] ?? ''));
      if (!listing) return send(res, 404, { message: 'Market not found', statusCode: 404 });
      return send(res, 200, buildBook(listing.seed, listing.tokenId, listing.fairYes, step));
    }
    if (path === '/markets/active' && req.method === 'GET') {
      // Page-number pagination (1-based) over active markets, as the Limitless SDK walks it.
      const page = Math.max(1, Number(url.searchParams.get('page') ?? '1') || 1);
      const limit = Math.min(25, Math.max(1, Number(url.searchParams.get('limit') ?? '10') || 10));
      const data = active.slice((page - 1) * limit, page * limit).map((l) => l.market);
      return send(res, 200, { data, totalMarketsCount: active.length });
    }
    const one = /^\/markets\/([^/]+)$/.exec(path);
    if (one && req.method === 'GET') {
      const listing = bySlug.get(decodeURIComponent(one[1] ?? ''));
      if (!listing) return send(res, 404, { message: 'Market not found', statusCode: 404 });
      return send(res, 200, listing.market);
    }
    return send(res, 404, { message: `Cannot ${req.method} ${path}`, error: 'Not Found', statusCode: 404 });
  }

  return createServer((req, res) => {
    handle(req, res).catch(() => send(res, 400, { message: 'Bad request', statusCode: 400 }));
  });
}
