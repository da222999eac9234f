// GET /orderbook (live) through the real server over the five simulators: every selector and depth rule, the
// errors (ambiguous or missing selector, unknown exchange, market and outcome, depth out of range, an exchange
// that fails), the single upstream call behind a burst on a cold book, books served from a running stream, and a
// book asked for on a venue with a native stream followed there afterwards.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import type { OrderBook } from '../../../src/domain/book.js';
import type { ExchangeId } from '../../../src/domain/exchanges.js';
import type { Market } from '../../../src/domain/market.js';
import {
  assertSelectorErrors,
  type CatalogueServer,
  simControl,
  startCatalogueServer,
  venueContext,
} from '../../support/catalogue.js';
import { assertError } from '../../support/error-shape.js';
import { waitFor } from '../../support/server.js';

interface Book {
  svc_id: string;
  exchange: string;
  outcome: string;
  token_id: string;
  market_id: string;
  bids: [number, number][];
  asks: [number, number][];
  timestamp: string;
  tick_size: number | null;
}

let cat: CatalogueServer;
before(async () => {
  // A burst on a loaded machine can outlast the default 10 s venue deadline while the simulator holds its
  // answer; a timed-out attempt would be retried and counted as a second upstream call.
  cat = await startCatalogueServer(30, { config: { venues: { timeoutMs: 120_000 } } });
});
after(async () => {
  await cat?.stop();
});

function activeMarkets(exchange: ExchangeId): Market[] {
  return [...cat.markets.values()].filter(
    (m) => m.exchange === exchange && m.status === 'active' && m.outcomes.every((o) => o.token_id),
  );
}

function activeMarket(exchange: ExchangeId): Market {
  const market = activeMarkets(exchange)[0];
  assert.ok(market, `no active ${exchange} market with tokens`);
  return market;
}

/** Another active market than the one the other tests use, so caches and streams start cold. */
function otherActiveMarket(exchange: ExchangeId, n: number): Market {
  const market = activeMarkets(exchange)[n];
  assert.ok(market, `${exchange} has fewer than ${n + 1} active markets`);
  return market;
}

async function book(path: string): Promise<Book> {
  const res = await cat.server.request(path);
  assert.equal(res.status, 200, `${path}: ${res.text}`);
  return res.body as Book;
}

/** The venue's own REST book, read by the adapter beside the server (no cache of ours in between). */
async function venueBook(exchange: ExchangeId, market: Market, outcome: string): Promise<OrderBook> {
  const sim = cat.sims.get(exchange);
  assert.ok(sim?.adapter.marketData.fetchOrderBook);
  return sim.adapter.marketData.fetchOrderBook(venueContext(), market, outcome);
}

/** True once `held` has exactly the venue book's levels (a stream may still be on its way there). */
function sameLevels(held: OrderBook | null, venue: OrderBook): true | undefined {
  if (!held) return undefined;
  return isDeepStrictEqual([held.bids, held.asks], [venue.bids, venue.asks]) ? true : undefined;
}

const control = (exchange: ExchangeId, method: string, path: string, body?: unknown): Promise<unknown> =>
  simControl(cat, exchange, method, path, body);

describe('selector and outcome', () => {
  test('svc_id and exchange + market_id select the same book; outcomes are matched case-insensitively', async () => {
    const market = activeMarket('kalshi');
    const bySvc = await book(`/api/v1/orderbook?svc_id=${encodeURIComponent(market.svc_id)}`);
    const byNative = await book(
      `/api/v1/orderbook?exchange=kalshi&market_id=${encodeURIComponent(market.exchange_market_id)}&outcome=YES`,
    );
    assert.equal(bySvc.svc_id, market.svc_id);
    assert.equal(bySvc.outcome, 'Yes', 'the default outcome is yes, in the market’s spelling');
    assert.deepEqual(byNative.bids, bySvc.bids);
    assert.equal(bySvc.market_id, market.exchange_market_id);
    assert.equal(bySvc.token_id, market.outcomes.find((o) => o.name === 'Yes')?.token_id);
    const no = await book(`/api/v1/orderbook?svc_id=${encodeURIComponent(market.svc_id)}&outcome=no`);
    assert.equal(no.outcome, 'No');
  });

  test('every exchange: bids descending, asks ascending, the best bid below the best ask', async () => {
    for (const exchange of cat.sims.keys()) {
      const market = activeMarket(exchange);
      const b = await book(`/api/v1/orderbook?svc_id=${encodeURIComponent(market.svc_id)}`);
      for (let i = 1; i < b.bids.length; i++) assert.ok((b.bids[i - 1]?.[0] ?? 0) > (b.bids[i]?.[0] ?? 0));
      for (let i = 1; i < b.asks.length; i++) assert.ok((b.asks[i - 1]?.[0] ?? 0) < (b.asks[i]?.[0] ?? 0));
      if (b.bids[0] && b.asks[0]) assert.ok(b.bids[0][0] < b.asks[0][0], `${exchange}: crossed book`);
      assert.ok(!Number.isNaN(Date.parse(b.timestamp)), `${exchange}: timestamp ${b.timestamp}`);
    }
  });

  test('limit and depth cut each side; limit wins; more than 100 live levels is a 400', async () => {
    const market = activeMarket('polymarket');
    const q = `/api/v1/orderbook?svc_id=${encodeURIComponent(market.svc_id)}`;
    const full = await book(q);
    const one = await book(`${q}&depth=1`);
    assert.deepEqual(one.bids, full.bids.slice(0, 1));
    assert.deepEqual(one.asks, full.asks.slice(0, 1));
    const limitWins = await book(`${q}&depth=1&limit=2`);
    assert.deepEqual(limitWins.bids, full.bids.slice(0, 2));
    assertError(await cat.server.request(`${q}&limit=101`), 400, 'validation_error');
    assertError(await cat.server.request(`${q}&depth=0`), 400, 'validation_error');
    assertError(await cat.server.request(`${q}&limit=abc`), 400, 'validation_error');
  });

  test('bad selectors are 400s and unknown things 404s, in the error shape', async () => {
    const market = activeMarket('kalshi');
    await assertSelectorErrors(cat, '/api/v1/orderbook', market.svc_id);
    assertError(
      await cat.server.request(`/api/v1/orderbook?svc_id=${encodeURIComponent(market.svc_id)}&surprise=1`),
      400,
      'validation_error',
    );
  });
});

describe('upstream', () => {
  test('a failing exchange is a 503 retryable, never an empty book; it recovers when the exchange does', async () => {
    const market = otherActiveMarket('opinion', 1);
    const path = `/api/v1/orderbook?svc_id=${encodeURIComponent(market.svc_id)}`;
    await control('opinion', 'POST', 'faults', { error_rate: 1, error_status: 500 });
    try {
      assertError(await cat.server.request(path), 503, 'service_unavailable');
    } finally {
      await control('opinion', 'DELETE', 'faults');
    }
    await book(path);
  });

  test('a thousand concurrent requests for one cold book make one upstream call', async () => {
    const market = otherActiveMarket('polymarket', 1);
    // A key whose rate limit a burst cannot reach: what is measured is the upstream calls, not our limiter.
    const created = await cat.server.request('/api/v1/keys', {
      method: 'POST',
      body: { tier: 'scale', qps_limit: 1e6, burst: 1e6 },
    });
    assert.equal(created.status, 201, created.text);
    const key = (created.body as { key: string }).key;
    // The market is resolved (its Yes book asked once), so the burst on its cold No book measures the book alone.
    await book(`/api/v1/orderbook?svc_id=${encodeURIComponent(market.svc_id)}&outcome=yes`);
    await control('polymarket', 'DELETE', 'requests');
    // The exchange holds its answer until released: every request of the burst arrives while the first is out.
    await control('polymarket', 'POST', 'faults', { hold_response_ms: 60_000, only: ['GET /book'] });
    const path = `/api/v1/orderbook?svc_id=${encodeURIComponent(market.svc_id)}&outcome=no`;
    let answers: Promise<{ status: number; text: string }[]>;
    try {
      answers = Promise.all(
        Array.from({ length: 1000 }, () =>
          fetch(`${cat.server.url}${path}`, { headers: { 'x-api-key': key } }).then(async (r) => ({
            status: r.status,
            text: await r.text(),
          })),
        ),
      );
      await waitFor(async () => ((await control('polymarket', 'GET', 'held')) as { held: number }).held > 0);
      // Every request of the burst has passed admission (the key's usage counts it) before the answer is let go.
      // The count also holds every usage poll, this one included.
      let polls = 0;
      await waitFor(async () => {
        polls += 1;
        const usage = await cat.server.request('/api/v1/usage', { key });
        return (usage.body as { usage: { monthly_requests: number } }).usage.monthly_requests >= 1000 + polls;
      });
    } finally {
      await control('polymarket', 'DELETE', 'faults');
    }
    const all = await answers;
    assert.deepEqual(new Set(all.map((a) => a.status)), new Set([200]));
    assert.equal(new Set(all.map((a) => a.text)).size, 1, 'every caller got the same book');
    const counts = ((await control('polymarket', 'GET', 'requests')) as { counts: Record<string, number> })
      .counts;
    const bookCalls = Object.entries(counts).filter(([route]) => route.includes('/book'));
    assert.deepEqual(bookCalls, [['clob GET /book', 1]], JSON.stringify(counts));
  });

  test('a book asked for on a venue with a native stream is then followed there: its moves are served with no REST call', async () => {
    const market = otherActiveMarket('polymarket', 3);
    const outcome = market.outcomes[0];
    assert.ok(outcome?.token_id);
    const tokenId = outcome.token_id;
    const path = `/api/v1/orderbook?svc_id=${encodeURIComponent(market.svc_id)}`;
    await book(path);
    const live = cat.server.runtime.liveBooks;
    const streamed = await waitFor(
      async () => live.current('polymarket', market.exchange_market_id, tokenId) ?? undefined,
      10_000,
      'the asked-for book followed on the stream',
    );
    await control('polymarket', 'POST', 'advance', { steps: 3 });
    // The venue's book after the moves, read beside the server; the stream converges to it delta by delta.
    const venue = await venueBook('polymarket', market, outcome.name);
    assert.notDeepEqual([venue.bids, venue.asks], [streamed.bids, streamed.asks], 'the venue moved');
    await waitFor(
      async () => sameLevels(live.current('polymarket', market.exchange_market_id, tokenId), venue),
      10_000,
      'the streamed book reaching the moved venue book',
    );
    await control('polymarket', 'DELETE', 'requests');
    const served = await book(path);
    assert.deepEqual(served.bids, venue.bids.slice(0, 50));
    assert.deepEqual(served.asks, venue.asks.slice(0, 50));
    const counts = ((await control('polymarket', 'GET', 'requests')) as { counts: Record<string, number> })
      .counts;
    const bookCalls = Object.entries(counts).filter(([route]) => route.includes('/book'));
    assert.deepEqual(bookCalls, [], `answered with no REST book call: ${JSON.stringify(counts)}`);
  });

  test('a book someone follows on the venue stream is answered from the stream, moves included', async () => {
    const market = otherActiveMarket('polymarket', 2);
    const sim = cat.sims.get('polymarket');
    assert.ok(sim);
    const outcome = market.outcomes[0];
    assert.ok(outcome?.token_id);
    const live = cat.server.runtime.liveBooks;
    const hold = live.hold(sim.adapter, market, { ...outcome, token_id: outcome.token_id });
    try {
      const streamed = await waitFor(
        async () => hold.current() ?? undefined,
        10_000,
        'the streamed snapshot',
      );
      const path = `/api/v1/orderbook?svc_id=${encodeURIComponent(market.svc_id)}`;
      const served = await book(path);
      assert.deepEqual(served.bids, streamed.bids.slice(0, 50));
      // The venue moves; the stream carries it, and the route answers the moved book at once (no cache).
      await control('polymarket', 'POST', 'advance', { steps: 3 });
      const venue = await venueBook('polymarket', market, outcome.name);
      assert.notDeepEqual([venue.bids, venue.asks], [streamed.bids, streamed.asks], 'the venue moved');
      await waitFor(
        async () => sameLevels(hold.current(), venue),
        10_000,
        'the streamed book reaching the moved venue book',
      );
      const after = await book(path);
      assert.deepEqual(after.bids, venue.bids.slice(0, 50), 'the streamed book equals the venue’s REST book');
      assert.deepEqual(after.asks, venue.asks.slice(0, 50));
    } finally {
      hold.release();
    }
  });
});
