// Kalshi-specific contract cases, the adapter against its simulator over loopback: refused signatures and stale
// timestamps are 403; IOC fills what the book has and cancels the rest; a sequence gap on the book stream is
// followed by a resync and a fresh snapshot; a 429 becomes 503 only after the adapter's own backoff; order
// direction maps onto the single YES book; a lost order answer is reported unknown and reconciled by its
// client_order_id, never re-sent; without a stream key the stream is polled.
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startKalshiSim } from '../../../sim/kalshi/index.js';
import type { BookLevel } from '../../../src/domain/book.js';
import { applyBookChanges } from '../../../src/domain/book-diff.js';
import type { Market } from '../../../src/domain/market.js';
import type { MarketStreamEvent } from '../../../src/domain/stream.js';
import type { OrderRequest } from '../../../src/domain/trading.js';
import { AppError } from '../../../src/errors/app-error.js';
import { sessionFrom } from '../../../src/vault/per-request-credentials.js';
import { createKalshiAdapter } from '../../../src/venues/kalshi/index.js';
import type { VenueSession } from '../../../src/venues/port.js';
import { VenueStatusError } from '../../../src/venues/shared/venue-errors.js';
import { waitFor } from '../../support/server.js';
import { liquidMarkets, rejectsWith, silentLogger, startVenue, type VenueUnderTest } from './harness.js';

describe('kalshi: venue specifics', () => {
  let venue: VenueUnderTest;
  let session: VenueSession;
  let market: Market;
  before(async () => {
    venue = await startVenue('kalshi', { size: 40 }, 2_000);
    session = (await venue.newSession()).session;
    [market] = (await liquidMarkets(venue, 1)) as [Market];
  });
  after(() => venue?.close());

  const order = (over: Partial<OrderRequest>): OrderRequest => ({
    market_id: market.exchange_market_id,
    outcome: 'Yes',
    side: 'buy',
    price: 0.01,
    size: 2,
    order_type: 'gtc',
    client_order_id: randomUUID(),
    ...over,
  });

  test('a wrong signature and a stale timestamp are refused: 403 authentication_failed', async () => {
    const { trading } = venue.adapter;
    assert.ok(trading.fetchBalance && trading.createOrder);
    const other = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    }).privateKey;
    const forged = sessionFrom(
      { api_key_id: session.credentials.api_key_id, private_key: other },
      'kalshi',
      venue.adapter.descriptor.credentials,
      'per_request',
    );
    const wrong = await rejectsWith(trading.fetchBalance(venue.ctx(), forged), 'authentication_failed');
    assert.equal(wrong.status, 403);
    assert.match(wrong.message, /INCORRECT_API_KEY_SIGNATURE/);
    assert.ok(!wrong.message.includes('PRIVATE KEY'), 'no key material in the message');
    await fetchControl('kalshi/auth-skew', { skew_ms: 120_000 });
    try {
      const stale = await rejectsWith(
        trading.createOrder(venue.ctx(), session, order({})),
        'authentication_failed',
      );
      assert.match(stale.message, /timestamp/);
    } finally {
      await fetchControl('kalshi/auth-skew', { skew_ms: 0 });
    }
    assert.ok(await trading.fetchBalance(venue.ctx(), session));
  });

  test('a market that has not opened yet is closed (not tradable) and an order on it is 409 conflict', async () => {
    const { trading, catalog } = venue.adapter;
    assert.ok(trading.createOrder && catalog.fetchMarket);
    // The exchange's own listing names the markets whose open_time is still ahead (status filter `unopened`).
    const res = await fetch(`${venue.controlUrl}/trade-api/v2/markets?status=unopened&limit=1`);
    const ticker = ((await res.json()) as { markets: Array<{ ticker: string }> }).markets[0]?.ticker;
    assert.ok(ticker, 'the simulated catalogue has a market that has not opened');
    const unopened = await catalog.fetchMarket(venue.ctx(), ticker);
    assert.equal(unopened?.status, 'closed');
    const refused = await rejectsWith(
      trading.createOrder(venue.ctx(), session, order({ market_id: ticker })),
      'conflict',
    );
    assert.equal(refused.status, 409);
    assert.match(refused.message, /not open for trading/);
  });

  test('IOC fills what the best level holds and cancels the rest', async () => {
    const { trading, marketData } = venue.adapter;
    assert.ok(trading.createOrder && trading.getOrder && marketData.fetchOrderBook);
    const book = await marketData.fetchOrderBook(venue.ctx(), market, 'Yes');
    const [price, size] = book.asks[0] as BookLevel;
    const placed = await trading.createOrder(
      venue.ctx(),
      session,
      order({ price, size: size + 3, order_type: 'ioc' }),
    );
    assert.equal(placed.status, 'cancelled');
    assert.equal(placed.filled, size);
    const read = await trading.getOrder(venue.ctx(), session, placed.id);
    assert.deepEqual([read.status, read.filled, read.size], ['cancelled', size, size + 3]);
  });

  test('buy No rests as a NO bid; sell Yes reads back as buying No at 1 − p (one YES book)', async () => {
    const { trading, marketData } = venue.adapter;
    assert.ok(trading.createOrder && trading.cancelOrder && marketData.fetchOrderBook);
    const buyNo = await trading.createOrder(
      venue.ctx(),
      session,
      order({ outcome: 'No', price: 0.02, size: 3 }),
    );
    assert.deepEqual([buyNo.outcome, buyNo.side, buyNo.price, buyNo.status], ['No', 'buy', 0.02, 'open']);
    const noBook = await marketData.fetchOrderBook(venue.ctx(), market, 'no');
    assert.ok(
      noBook.bids.some(([p, s]) => p === 0.02 && s >= 3),
      'the NO bid is on the NO book',
    );
    const yesBook = await marketData.fetchOrderBook(venue.ctx(), market, 'yes');
    assert.ok(
      yesBook.asks.some(([p]) => p === 0.98),
      'and a YES ask at 0.98',
    );
    const sellYes = await trading.createOrder(
      venue.ctx(),
      session,
      order({ side: 'sell', price: 0.99, size: 1 }),
    );
    assert.deepEqual([sellYes.outcome, sellYes.side, sellYes.price], ['No', 'buy', 0.01]);
    for (const o of [buyNo, sellYes]) await trading.cancelOrder(venue.ctx(), session, o.id);
  });

  test('a cancel is routed to the shard of its market: an order on shard 1 (where combos live) is cancelled', async () => {
    const { trading } = venue.adapter;
    assert.ok(trading.createOrder && trading.cancelOrder && trading.getOrder);
    const [, other] = (await liquidMarkets(venue, 2)) as [Market, Market];
    const ticker = other.exchange_market_id;
    await fetchControl('kalshi/shard', { market_ticker: ticker, exchange_index: 1 });
    try {
      const listed = (await (await fetch(`${venue.controlUrl}/trade-api/v2/markets/${ticker}`)).json()) as {
        market: { exchange_index: number };
      };
      assert.equal(listed.market.exchange_index, 1, 'the market says which shard it lives on');
      const resting = await trading.createOrder(
        venue.ctx(),
        session,
        order({ market_id: ticker, price: 0.01, size: 2 }),
      );
      assert.equal(resting.status, 'open');
      const cancelled = await trading.cancelOrder(venue.ctx(), session, resting.id);
      assert.equal(cancelled.status, 'cancelled');
      assert.equal((await trading.getOrder(venue.ctx(), session, resting.id)).status, 'cancelled');
    } finally {
      await fetchControl('kalshi/shard', { market_ticker: ticker, exchange_index: 0 });
    }
  });

  test('a cancel answered 404 is reconciled by reading the order: still resting is a retryable 503, never "no longer open"', async () => {
    const { trading } = venue.adapter;
    assert.ok(trading.createOrder && trading.cancelOrder && trading.getOrder);
    const resting = await trading.createOrder(venue.ctx(), session, order({ price: 0.01, size: 2 }));
    await venue.sim.faults({
      error_rate: 1,
      error_status: 404,
      only: ['DELETE /trade-api/v2/portfolio/events/orders/*'],
    });
    let refused: AppError;
    try {
      refused = await rejectsWith(
        trading.cancelOrder(venue.ctx(), session, resting.id),
        'service_unavailable',
      );
    } finally {
      await venue.sim.clearFaults();
    }
    assert.equal(refused.retryable, true);
    assert.match(refused.message, /still rests/);
    assert.equal((await trading.getOrder(venue.ctx(), session, resting.id)).status, 'open');
    await trading.cancelOrder(venue.ctx(), session, resting.id);
  });

  test('two cancels of one order at once both answer it cancelled: the one the exchange answers 404 reads it back', async () => {
    const { trading } = venue.adapter;
    assert.ok(trading.createOrder && trading.cancelOrder);
    const resting = await trading.createOrder(venue.ctx(), session, order({ price: 0.01, size: 2 }));
    // Both read the order resting, then their DELETEs arrive one after the other: the second finds nothing to cancel.
    await venue.sim.faults({ latency_ms: 300, only: ['DELETE /trade-api/v2/portfolio/events/orders/*'] });
    try {
      const both = await Promise.all([
        trading.cancelOrder(venue.ctx(), session, resting.id),
        trading.cancelOrder(venue.ctx(), session, resting.id),
      ]);
      assert.deepEqual(
        both.map((o) => o.status),
        ['cancelled', 'cancelled'],
      );
    } finally {
      await venue.sim.clearFaults();
    }
  });

  test('a 429 is retried by the adapter and surfaces as 503 service_unavailable only when its backoff gave up', async () => {
    const { marketData } = venue.adapter;
    assert.ok(marketData.fetchOrderBook);
    await venue.sim.faults({ rate_limit: { retry_after: 0, count: 2 } });
    assert.ok(await marketData.fetchOrderBook(venue.ctx(), market, 'Yes'), 'two 429s are absorbed');
    await venue.sim.faults({ rate_limit: { retry_after: 0 } });
    const error = await rejectsWith(
      marketData.fetchOrderBook(venue.ctx(), market, 'Yes'),
      'service_unavailable',
    );
    await venue.sim.clearFaults();
    assert.equal(error.retryable, true);
    assert.ok(error.cause instanceof VenueStatusError);
    assert.equal(error.cause.status, 429);
    assert.equal(error.cause.attempts, 3, 'three attempts before giving up');
  });

  test('a lost order answer is unknown, never re-sent; the same client_order_id later reconciles to that order', async () => {
    const { trading } = venue.adapter;
    assert.ok(trading.createOrder && trading.fetchOrderHistory);
    const fresh = (await venue.newSession()).session;
    const req = order({ price: 0.03, size: 1 });
    // The exchange has the order but works on it only when the fault is cleared, long after the adapter's 2 s
    // deadline: the adapter looks for it by client_order_id, finds nothing yet, and reports the outcome unknown.
    await venue.sim.faults({ latency_ms: 120_000, only: ['POST /trade-api/v2/portfolio/events/orders'] });
    const lost = await rejectsWith(trading.createOrder(venue.ctx(), fresh, req), 'service_unavailable');
    assert.equal((lost.extra as Record<string, unknown>)?.order_state, 'unknown');
    await venue.sim.clearFaults();
    const history = () =>
      trading.fetchOrderHistory?.(venue.ctx(), fresh, market.exchange_market_id) ?? Promise.resolve([]);
    await waitFor(
      async () => ((await history()).length > 0 ? true : undefined),
      10_000,
      'the lost order to appear',
    );
    const again = await trading.createOrder(venue.ctx(), fresh, req);
    const all = await history();
    assert.equal(all.length, 1, 'the order exists once: nothing was sent twice');
    assert.equal(again.id, all[0]?.id);
    await trading.cancelOrder?.(venue.ctx(), fresh, again.id);
  });

  test('a sequence gap on the book stream is followed by resync and a fresh snapshot that matches REST', async () => {
    const { marketData } = venue.adapter;
    assert.ok(marketData.openMarketStream && marketData.fetchOrderBook);
    const stream = marketData.openMarketStream({
      signal: new AbortController().signal,
      logger: silentLogger,
    });
    const events: MarketStreamEvent[] = [];
    let local: { bids: BookLevel[]; asks: BookLevel[] } | null = null;
    const reading = (async () => {
      for await (const e of stream) {
        events.push(e);
        if (e.type === 'book_snapshot') local = { bids: e.book.bids, asks: e.book.asks };
        if (e.type === 'book_delta' && local) {
          local = {
            bids: applyBookChanges(local.bids, e.changes, 'bid'),
            asks: applyBookChanges(local.asks, e.changes, 'ask'),
          };
        }
      }
    })();
    try {
      stream.subscribe([{ market, outcome: 'Yes' }]);
      await waitFor(
        async () => events.some((e) => e.type === 'book_snapshot') || undefined,
        10_000,
        'first snapshot',
      );
      await fetchControl('kalshi/skip-seq', { market_ticker: market.exchange_market_id });
      await venue.sim.advance(1);
      await waitFor(async () => events.some((e) => e.type === 'resync') || undefined, 10_000, 'resync');
      const resync = events.find((e) => e.type === 'resync');
      assert.match(resync?.type === 'resync' ? resync.reason : '', /sequence gap/);
      await waitFor(
        async () => events.filter((e) => e.type === 'book_snapshot').length >= 2 || undefined,
        10_000,
        'snapshot after the gap',
      );
      const afterGap = events.findIndex((e) => e.type === 'resync');
      assert.ok(
        events.slice(afterGap).some((e) => e.type === 'book_snapshot'),
        'the fresh snapshot follows the resync',
      );
      const rest = await marketData.fetchOrderBook(venue.ctx(), market, 'Yes');
      await waitFor(
        async () =>
          JSON.stringify(local) === JSON.stringify({ bids: rest.bids, asks: rest.asks }) ? true : undefined,
        10_000,
        'stream book to equal REST',
      );
    } finally {
      await stream.close();
      await reading;
    }
  });

  test("the user stream carries the session owner's fills and order updates", async () => {
    const { trading, marketData } = venue.adapter;
    assert.ok(trading.openUserStream && trading.createOrder && marketData.fetchOrderBook);
    const stream = trading.openUserStream(
      { signal: new AbortController().signal, logger: silentLogger },
      session,
    );
    const seen: Array<{ type: string; order_id?: string; status?: string }> = [];
    const reading = (async () => {
      for await (const e of stream) {
        if (e.type === 'fill') seen.push({ type: 'fill', order_id: e.fill.order_id });
        if (e.type === 'order') seen.push({ type: 'order', order_id: e.order.id, status: e.order.status });
        if (e.type === 'feed_state') seen.push({ type: e.state });
      }
    })();
    try {
      // A resting order's update proves the subscription is live before the fill we test for.
      await waitFor(
        async () => {
          const probe = await trading.createOrder?.(venue.ctx(), session, order({ price: 0.01, size: 1 }));
          await trading.cancelOrder?.(venue.ctx(), session, probe?.id ?? '');
          return seen.some((e) => e.type === 'order' && e.order_id === probe?.id) || undefined;
        },
        10_000,
        'user stream live',
      );
      const [price] = (await marketData.fetchOrderBook(venue.ctx(), market, 'Yes')).asks[0] as BookLevel;
      const placed = await trading.createOrder(
        venue.ctx(),
        session,
        order({ price, size: 1, order_type: 'ioc' }),
      );
      await waitFor(
        async () => seen.some((e) => e.type === 'fill' && e.order_id === placed.id) || undefined,
        10_000,
        'fill on the user stream',
      );
      assert.ok(seen.some((e) => e.type === 'order' && e.order_id === placed.id && e.status === 'filled'));
    } finally {
      await stream.close();
      await reading;
    }
  });

  /** The simulator's Kalshi-specific test controls (sequence skip, signature clock skew). */
  async function fetchControl(path: string, body: unknown): Promise<Response> {
    const res = await fetch(`${venue.controlUrl}/__sim/${path}`, {
      method: 'POST',
      body: JSON.stringify(body),
    });
    assert.ok(res.ok, `control ${path}: ${res.status}`);
    return res;
  }
});

describe('kalshi: without a stream key the market stream is polled', () => {
  test('the descriptor says polling and the polled stream still gives a snapshot', async () => {
    const sim = await startKalshiSim({ seed: 2, size: 40 });
    const adapter = createKalshiAdapter({ restUrl: sim.url, wsUrl: sim.wsUrl, timeoutMs: 2_000 });
    try {
      assert.equal(adapter.descriptor.has.websocket, 'polling');
      const found = await adapter.catalog.fetchMarketsPage?.(
        { signal: AbortSignal.timeout(5_000), requestId: 't', logger: silentLogger, tenant: null },
        null,
      );
      const active = found?.items.find((m) => m.status === 'active');
      assert.ok(active && adapter.marketData.openMarketStream);
      const stream = adapter.marketData.openMarketStream({
        signal: new AbortController().signal,
        logger: silentLogger,
      });
      stream.subscribe([{ market: active, outcome: 'No' }]);
      const first = await stream[Symbol.asyncIterator]().next();
      assert.equal(first.value?.type, 'book_snapshot');
      await stream.close();
      assert.throws(
        () => stream.subscribe([{ market: active, outcome: 'maybe' }]),
        (e: unknown) => e instanceof AppError && e.status === 400,
      );
    } finally {
      await adapter.close?.();
      await sim.close();
    }
  });
});
