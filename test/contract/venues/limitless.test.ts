// Limitless-specific contract cases, against the simulator over loopback: the NO book mirrors the YES book, negRisk
// groups are the events of their child markets, the PnL-chart balance, positions, credentials (HMAC window, legacy
// key, stranger, missing), wallet activity by address, ping, the trading declaration, and the book stream's
// REST reconcile and per-outcome subscriptions.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type LimitlessSim, startLimitlessSim } from '../../../sim/limitless/index.js';
import type { BookLevel } from '../../../src/domain/book.js';
import { applyBookChanges } from '../../../src/domain/book-diff.js';
import type { Market } from '../../../src/domain/market.js';
import type { MarketStreamEvent } from '../../../src/domain/stream.js';
import type { OrderRequest } from '../../../src/domain/trading.js';
import { sessionFrom } from '../../../src/vault/per-request-credentials.js';
import { createLimitlessAdapter } from '../../../src/venues/limitless/index.js';
import { VenueRegistry } from '../../../src/venues/registry.js';
import { waitFor } from '../../support/server.js';
import {
  allMarkets,
  liquidMarkets,
  rejectsWith,
  silentLogger,
  startVenue,
  strangerSession,
  type VenueUnderTest,
} from './harness.js';
import { assertPosition } from './invariants.js';

describe('limitless: venue specifics', () => {
  let venue: VenueUnderTest;
  let market: Market;
  before(async () => {
    venue = await startVenue('limitless', { size: 60 });
    [market] = (await liquidMarkets(venue, 1)) as [Market];
  });
  after(() => venue?.close());

  test('the NO book is the YES book mirrored (bids from asks at 1 - p, sizes unchanged), with its own token', async () => {
    const { marketData } = venue.adapter;
    assert.ok(marketData.fetchOrderBook);
    const yes = await marketData.fetchOrderBook(venue.ctx(), market, 'Yes');
    const no = await marketData.fetchOrderBook(venue.ctx(), market, 'no');
    assert.notEqual(yes.token_id, no.token_id);
    const mirror = (levels: BookLevel[]) => levels.map(([p, s]) => [Math.round((1 - p) * 1e9) / 1e9, s]);
    assert.deepEqual(no.bids, mirror(yes.asks));
    assert.deepEqual(no.asks, mirror(yes.bids));
    assert.equal(yes.tick_size, 0.001);
  });

  test('a negRisk group is the event of its child markets; a group slug is not a market', async () => {
    const markets = await allMarkets(venue);
    const children = markets.filter((m) => m.exchange_group_id !== m.exchange_market_id);
    assert.ok(children.length >= 3, 'the world has multi-option propositions');
    const groupId = children[0]?.exchange_group_id as string;
    const siblings = children.filter((m) => m.exchange_group_id === groupId);
    assert.ok(siblings.length >= 3);
    assert.ok(
      siblings.every((m) => m.group_title === siblings[0]?.group_title && m.market_type === 'binary'),
    );
    const { catalog } = venue.adapter;
    assert.ok(catalog.fetchMarket && catalog.fetchEventsPage);
    const looked = await catalog.fetchMarket(venue.ctx(), siblings[0]?.exchange_market_id as string);
    assert.equal(looked?.exchange_group_id, groupId, 'a child fetched alone still names its group');
    assert.equal(await catalog.fetchMarket(venue.ctx(), groupId), null);
    const titles = new Map<string, string>();
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof catalog.fetchEventsPage>> = await catalog.fetchEventsPage(
        venue.ctx(),
        cursor,
      );
      for (const e of page.items) titles.set(e.exchange_group_id, e.title);
      cursor = page.cursor;
    } while (cursor !== null);
    assert.equal(
      titles.get(groupId),
      siblings[0]?.group_title,
      'the group is listed as an event with its title',
    );
  });

  test('balance raw is the PnL chart as Limitless sends it; currentValue is USD', async () => {
    const { trading } = venue.adapter;
    assert.ok(trading.fetchBalance && trading.fetchPositions);
    const { raw } = await trading.fetchBalance(venue.ctx(), venue.sandboxSession);
    assert.equal(typeof raw.currentValue, 'number');
    for (const key of ['timeframe', 'data', 'previousValue', 'percentChange', 'current'])
      assert.ok(key in raw, key);
    const positions = await trading.fetchPositions(venue.ctx(), venue.sandboxSession, null);
    assert.equal(positions.length, 3, 'the sandbox account holds three positions');
    for (const p of positions) {
      assertPosition(p);
      assert.ok(p.size > 0 && p.average_price !== null && p.current_price !== null);
    }
    const one = positions[0]?.market_id as string;
    assert.deepEqual(
      (await trading.fetchPositions(venue.ctx(), venue.sandboxSession, one)).map((p) => p.market_id),
      positions.filter((p) => p.market_id === one).map((p) => p.market_id),
    );
  });

  test('credentials: a stranger and a stale timestamp are authentication_failed; missing ones are refused', async () => {
    const { trading } = venue.adapter;
    assert.ok(trading.fetchBalance);
    await rejectsWith(
      trading.fetchBalance(venue.ctx(), await strangerSession(venue)),
      'authentication_failed',
    );
    const fields = venue.adapter.descriptor.credentials;
    await rejectsWith(
      trading.fetchBalance(
        venue.ctx(),
        sessionFrom({ token_id: 'only-half' }, 'limitless', fields, 'per_request'),
      ),
      'validation_error',
    );
    await rejectsWith(
      trading.fetchBalance(venue.ctx(), sessionFrom({}, 'limitless', fields, 'per_request')),
      'credentials_required',
    );
    // The venue checks lmts-timestamp against its own real clock (30 s window); moving the simulated market clock
    // does not make a signature stale, running the exchange's signature clock ahead does.
    await venue.sim.advanceClock(120);
    assert.ok(await trading.fetchBalance(venue.ctx(), venue.sandboxSession));
    await authSkew(venue, 120_000);
    try {
      await rejectsWith(trading.fetchBalance(venue.ctx(), venue.sandboxSession), 'authentication_failed');
    } finally {
      await authSkew(venue, 0);
    }
  });
});

describe('limitless: wallet activity, ping and trading declaration', () => {
  let venue: VenueUnderTest;
  before(async () => {
    venue = await startVenue('limitless', { size: 40 });
  });
  after(() => venue?.close());

  test('wallet activity is `{ positions, "traded-volume" }` as Limitless sends them, lists cut to the limit', async () => {
    const { marketData } = venue.adapter;
    assert.ok(marketData.fetchUserActivity && venue.sandboxAddress);
    const doc = await marketData.fetchUserActivity(venue.ctx(), venue.sandboxAddress, 2);
    assert.deepEqual(Object.keys(doc).sort(), ['positions', 'traded-volume']);
    const positions = doc.positions as { clob: unknown[]; amm: unknown[] };
    assert.equal(positions.clob.length, 2, 'three positions held, two asked for');
    assert.ok(((doc['traded-volume'] as { totalVolume: number }).totalVolume ?? 0) > 0);
    const nobody = await marketData.fetchUserActivity(venue.ctx(), `0x${'cd'.repeat(20)}`, 10);
    assert.deepEqual((nobody.positions as { clob: unknown[] }).clob, []);
    await rejectsWith(marketData.fetchUserActivity(venue.ctx(), 'not-an-address', 10), 'validation_error');
  });

  test('ping: reachable without credentials, authenticated with them, not with a stranger', async () => {
    assert.deepEqual(await venue.adapter.ping(venue.ctx(), null), {
      reachable: true,
      authenticated: false,
      message: 'reachable; no credentials',
    });
    await venue.sim.clearRequests();
    assert.equal((await venue.adapter.ping(venue.ctx(), venue.sandboxSession)).authenticated, true);
    // The credential check is the SDK's own authenticated read, the caller's profile; not the PnL chart.
    const routes = [...(await venue.sim.requests()).keys()];
    assert.ok(routes.includes('GET /profiles/me'), routes.join(', '));
    assert.ok(!routes.some((r) => r.includes('pnl-chart')), routes.join(', '));
    const session = await strangerSession(venue);
    const stranger = await venue.adapter.ping(venue.ctx(), session);
    assert.equal(stranger.authenticated, false);
    assert.ok(!stranger.message.includes(session.credentials.secret ?? '!'), 'no secret in the message');
  });

  test('trading is declared with its methods: gtc and ioc limit orders, history and fills', () => {
    const { descriptor, trading } = venue.adapter;
    for (const flag of ['create_order', 'cancel_order', 'fetch_order_history', 'fetch_fills'] as const) {
      assert.equal(descriptor.has[flag], 'supported', flag);
    }
    assert.ok(trading.createOrder && trading.cancelOrder && trading.lookupOrder);
    assert.deepEqual([...descriptor.features.orderTypes], ['gtc', 'ioc']);
    assert.equal(descriptor.has.fetch_price_history, 'supported');
    assert.equal(descriptor.has.websocket, 'supported');
    assert.doesNotThrow(() => new VenueRegistry([venue.adapter]));
  });
});

describe('limitless: order specifics', () => {
  let venue: VenueUnderTest;
  let market: Market;
  before(async () => {
    venue = await startVenue('limitless', { size: 40 });
    [market] = (await liquidMarkets(venue, 1)) as [Market];
  });
  after(() => venue?.close());

  const order = (over: Partial<OrderRequest> = {}): OrderRequest => ({
    market_id: market.exchange_market_id,
    outcome: 'Yes',
    side: 'buy',
    price: 0.001,
    size: 7.25,
    order_type: 'gtc',
    client_order_id: randomUUID(),
    ...over,
  });

  test('a journalled order is found by its clientOrderId (or id); one never sent is not', async () => {
    const { trading } = venue.adapter;
    assert.ok(trading.createOrder && trading.lookupOrder && trading.cancelOrder);
    const { session } = await venue.newSession();
    const req = order();
    const sentAtMs = Date.now();
    const placed = await trading.createOrder(venue.ctx(), session, req);
    assert.equal(placed.client_order_id, req.client_order_id);
    const ref = { marketId: req.market_id, clientOrderId: req.client_order_id, orderId: null, sentAtMs };
    const found = await trading.lookupOrder(venue.ctx(), session, ref);
    assert.equal(found?.id, placed.id);
    assert.equal(found?.status, 'open');
    assert.equal(
      (await trading.lookupOrder(venue.ctx(), session, { ...ref, orderId: placed.id }))?.id,
      placed.id,
    );
    assert.equal(
      await trading.lookupOrder(venue.ctx(), session, { ...ref, clientOrderId: randomUUID() }),
      null,
    );
    await trading.cancelOrder(venue.ctx(), session, placed.id);
  });

  test('the wallet key: required to trade, a 400 when malformed or not the token profile’s wallet', async () => {
    const { trading } = venue.adapter;
    assert.ok(trading.createOrder);
    const { session } = await venue.newSession();
    const { private_key: _key, ...readOnly } = session.credentials;
    const without = { ...session, credentials: readOnly };
    await rejectsWith(trading.createOrder(venue.ctx(), without, order()), 'credentials_required');
    const malformed = { ...session, credentials: { ...session.credentials, private_key: '0x1234' } };
    await rejectsWith(trading.createOrder(venue.ctx(), malformed, order()), 'validation_error');
    const other = (await venue.newSession()).session.credentials.private_key ?? '';
    const foreign = { ...session, credentials: { ...session.credentials, private_key: other } };
    await rejectsWith(trading.createOrder(venue.ctx(), foreign, order()), 'validation_error');
    // Sizes off the 0.001-share step are refused, never rounded.
    await rejectsWith(trading.createOrder(venue.ctx(), session, order({ size: 1.0005 })), 'validation_error');
  });

  test('an ioc order takes what crosses and is done; the rest is not left resting', async () => {
    const { trading, marketData } = venue.adapter;
    assert.ok(trading.createOrder && marketData.fetchOrderBook && trading.listOpenOrders);
    const { session } = await venue.newSession();
    const book = await marketData.fetchOrderBook(venue.ctx(), market, 'Yes');
    const [askPrice, askSize] = book.asks[0] as [number, number];
    const size = Math.round((askSize + 3) * 1000) / 1000;
    const placed = await trading.createOrder(
      venue.ctx(),
      session,
      order({ price: askPrice, size, order_type: 'ioc' }),
    );
    assert.equal(placed.status, 'cancelled', JSON.stringify(placed));
    assert.ok(Math.abs(placed.filled - askSize) < 1e-6, `filled ${placed.filled} of the ${askSize} offered`);
    const open = await trading.listOpenOrders(venue.ctx(), session, market.exchange_market_id);
    assert.deepEqual(open, []);
  });
});

describe('limitless: book stream specifics', () => {
  let sim: LimitlessSim;
  let adapter: ReturnType<typeof createLimitlessAdapter>;
  let market: Market;
  before(async () => {
    sim = await startLimitlessSim({ seed: 4, size: 40 });
    // A short REST reconcile, so a silent feed is caught up within the test.
    adapter = createLimitlessAdapter({
      restUrl: sim.url,
      wsUrl: sim.wsUrl,
      timeoutMs: 3_000,
      bookReconcileMs: 200,
    });
    const ctx = { signal: AbortSignal.timeout(10_000), requestId: 't', logger: silentLogger, tenant: null };
    const page = await adapter.catalog.fetchMarketsPage?.(ctx, null);
    market = page?.items.find((m) => m.status === 'active') as Market;
  });
  after(async () => {
    await adapter?.close();
    await sim?.close();
  });

  const control = (path: string, body: unknown) =>
    fetch(`${sim.control}/__sim/${path}`, { method: 'POST', body: JSON.stringify(body) });

  function reader(stream: AsyncIterable<MarketStreamEvent>) {
    const events: MarketStreamEvent[] = [];
    const books = new Map<string, { bids: BookLevel[]; asks: BookLevel[] }>();
    const done = (async () => {
      for await (const e of stream) {
        events.push(e);
        if (e.type === 'book_snapshot') books.set(e.book.outcome, { bids: e.book.bids, asks: e.book.asks });
        if (e.type === 'book_delta') {
          const b = books.get(e.instrument.outcome);
          assert.ok(b, 'delta before snapshot');
          b.bids = applyBookChanges(b.bids, e.changes, 'bid');
          b.asks = applyBookChanges(b.asks, e.changes, 'ask');
        }
      }
    })();
    return { events, books, done };
  }

  async function matchesRest(r: ReturnType<typeof reader>, outcome: string): Promise<true | undefined> {
    const ctx = { signal: AbortSignal.timeout(5_000), requestId: 't', logger: silentLogger, tenant: null };
    const rest = await adapter.marketData.fetchOrderBook?.(ctx, market, outcome);
    const local = r.books.get(outcome);
    return JSON.stringify(local?.bids) === JSON.stringify(rest?.bids) &&
      JSON.stringify(local?.asks) === JSON.stringify(rest?.asks)
      ? true
      : undefined;
  }

  test('both outcomes of a market stream from one subscription; unsubscribing one keeps the other', async () => {
    const stream = adapter.marketData.openMarketStream?.({
      signal: new AbortController().signal,
      logger: silentLogger,
    });
    assert.ok(stream);
    const r = reader(stream);
    try {
      stream.subscribe([
        { market, outcome: 'Yes' },
        { market, outcome: 'No' },
      ]);
      await waitFor(
        async () => (r.books.has('Yes') && r.books.has('No')) || undefined,
        10_000,
        'two snapshots',
      );
      await control('advance', { steps: 1 });
      await waitFor(
        async () => ((await matchesRest(r, 'Yes')) && (await matchesRest(r, 'No'))) || undefined,
        10_000,
        'both books after advance',
      );
      stream.unsubscribe([{ market, outcome: 'No' }]);
      const before = r.events.length;
      await control('advance', { steps: 1 });
      await waitFor(
        async () => (await matchesRest(r, 'Yes')) ?? undefined,
        10_000,
        'the Yes book after advance',
      );
      // Subscribing No again pushes its snapshot after every event the advance caused: the explicit end of what
      // the unsubscribed outcome could have received.
      stream.subscribe([{ market, outcome: 'No' }]);
      const isNoSnapshot = (e: MarketStreamEvent) => e.type === 'book_snapshot' && e.book.outcome === 'No';
      await waitFor(
        async () => r.events.slice(before).some(isNoSnapshot) || undefined,
        10_000,
        'the No snapshot after resubscribing',
      );
      const meanwhile = r.events.slice(before, before + r.events.slice(before).findIndex(isNoSnapshot));
      assert.ok(
        meanwhile.every((e) => e.type !== 'book_delta' || e.instrument.outcome === 'Yes'),
        'no more No deltas',
      );
    } finally {
      await stream.close();
      await r.done;
    }
  });

  test('a silent feed (stall_feed) is caught up by the REST reconcile', async () => {
    const stream = adapter.marketData.openMarketStream?.({
      signal: new AbortController().signal,
      logger: silentLogger,
    });
    assert.ok(stream);
    const r = reader(stream);
    try {
      stream.subscribe([{ market, outcome: 'Yes' }]);
      await waitFor(async () => r.books.has('Yes') || undefined, 10_000, 'snapshot');
      await control('faults', { stall_feed: true });
      const withheld = async () =>
        ((await (await fetch(`${sim.control}/__sim/feed`)).json()) as { withheld: number }).withheld;
      const silent = await withheld();
      await control('advance', { steps: 2 });
      // The feed said nothing about this advance: whatever catches the book up, it is not the socket.
      assert.ok((await withheld()) > silent, 'the push of the advance was withheld');
      await waitFor(
        async () => (await matchesRest(r, 'Yes')) ?? undefined,
        10_000,
        'the reconcile to catch up',
      );
    } finally {
      await fetch(`${sim.control}/__sim/faults`, { method: 'DELETE' });
      await stream.close();
      await r.done;
    }
  });
});

/** The Limitless simulator's own test control: its signature clock runs `skewMs` ahead of wall time. */
async function authSkew(venue: VenueUnderTest, skewMs: number): Promise<void> {
  const res = await fetch(`${venue.controlUrl}/__sim/limitless/auth-skew`, {
    method: 'POST',
    body: JSON.stringify({ skew_ms: skewMs }),
  });
  assert.ok(res.ok, `auth-skew: ${res.status}`);
}
