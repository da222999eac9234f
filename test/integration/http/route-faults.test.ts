// POST /route/orders under fault injection on one venue, through the real server over the simulators, with paper
// accounts on polymarket and kalshi: the kalshi leg times out (its answer unknown: pending, reconciled by the
// repeated POST, never sent twice) under cancel_rest, and the kalshi leg fills short (an immediate order meeting a
// book another account thinned after the plan was made: test/support/short-fill.ts) under cancel_rest and keep.
// Each leg's fill is checked against the venue's own order and recomputed from the raw book read before the route
// and what the other account took; each fill's fee at the venue against the published fee formula
// (test/support/fee-models.ts); keep's second round is sized to exactly what the first round left short.
// (A refused leg, and a lost answer under keep: route-orders.test.ts.)
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ExchangeId } from '../../../src/domain/exchanges.js';
import type { Market } from '../../../src/domain/market.js';
import type { Order } from '../../../src/domain/trading.js';
import { LinksRepo } from '../../../src/store/links-repo.js';
import type { VenueSession } from '../../../src/venues/port.js';
import {
  type CatalogueServer,
  simControl,
  startCatalogueServer,
  venueContext,
} from '../../support/catalogue.js';
import { feeModelOf } from '../../support/fee-models.js';
import { waitFor } from '../../support/server.js';
import { ORDER_ROUTE, withThinnedBook } from '../../support/short-fill.js';
import { close, type Level, twinPairs } from '../../support/twin-pairs.js';

interface LegOut {
  exchange: ExchangeId;
  svc_id: string;
  round: number;
  state: string;
  planned: { outcome: string; side: string; order_type: string; limit_price: number; size: number };
  order: (Order & { client_order_id?: string }) | null;
}
interface Route {
  id: string;
  status: string;
  amount: number;
  filled: number;
  legs: LegOut[];
  second_round: { amount: number; sent: boolean; reason: string | null; exchanges: string[] } | null;
  cancellations: unknown[];
}

let cat: CatalogueServer;
let links: LinksRepo;
const accounts = new Map<ExchangeId, Record<string, string>>();
let thinner: Record<string, string>;
before(async () => {
  // A venue deadline short enough that an answer the simulator holds is lost within the test, long enough for the
  // short-fill choreography (a few control requests) to release the leg before it.
  cat = await startCatalogueServer(40, {
    config: { catalogue: { sync: false }, venues: { timeoutMs: 3_000 } },
  });
  await cat.server.runtime.catalogSync.runAll();
  links = new LinksRepo(cat.server.runtime.store.db);
  for (const exchange of ['polymarket', 'kalshi'] as const) {
    const sim = cat.sims.get(exchange);
    assert.ok(sim?.createAccount);
    accounts.set(exchange, (await sim.createAccount()).credentials);
  }
  const kalshi = cat.sims.get('kalshi');
  assert.ok(kalshi?.createAccount);
  thinner = (await kalshi.createAccount()).credentials;
});
after(async () => {
  await cat?.stop();
});

const market = (svcId: string): Market => cat.markets.get(svcId) as Market;
const session = (exchange: ExchangeId, credentials = accounts.get(exchange)): VenueSession => ({
  exchange,
  credentials: credentials as Record<string, string>,
  source: 'per_request',
});

const pair = twinPairs(
  () => cat,
  () => links,
);

/** One outcome's book straight from its simulator (the server's caches stay untouched). */
async function rawBook(m: Market, outcome = 'Yes'): Promise<{ bids: Level[]; asks: Level[] }> {
  const sim = cat.sims.get(m.exchange);
  assert.ok(sim?.adapter.marketData.fetchOrderBook);
  const book = await sim.adapter.marketData.fetchOrderBook(venueContext(), m, outcome);
  return { bids: book.bids, asks: book.asks };
}

const round2 = (x: number) => Math.round(x * 100) / 100;
let keys = 0;

function post(body: Record<string, unknown>, key = `fault-${++keys}`) {
  return cat.server.request('/api/v1/route/orders', {
    method: 'POST',
    body: { credentials: Object.fromEntries(accounts), ...body },
    headers: { 'idempotency-key': key },
  });
}

/** Each leg's order at its exchange (getOrder through the adapter) matches the leg; each fill's fee the formula. */
async function checkAtVenues(route: Route): Promise<void> {
  for (const leg of route.legs) {
    if (!leg.order || leg.state === 'rejected') continue;
    const trading = cat.sims.get(leg.exchange)?.adapter.trading;
    const direct = await trading?.getOrder?.(venueContext(), session(leg.exchange), leg.order.id);
    assert.ok(direct, `${leg.exchange} holds the leg's order`);
    assert.ok(
      close(direct.filled, leg.order.filled),
      `${leg.exchange}: ${direct.filled} vs ${leg.order.filled}`,
    );
    assert.ok(leg.order.filled <= leg.planned.size + 1e-9, 'an immediate leg never fills past its size');
    const fills = (await trading?.fetchFills?.(venueContext(), session(leg.exchange), null, 500)) ?? [];
    const mine = fills.filter((f) => f.order_id === leg.order?.id);
    assert.ok(
      close(
        mine.reduce((s, f) => s + f.size, 0),
        leg.order.filled,
      ),
      `${leg.exchange}: the fills add up to the leg's filled`,
    );
    const fee = await feeModelOf(cat, market(leg.svc_id));
    for (const f of mine) {
      assert.ok(f.price <= leg.planned.limit_price + 1e-9, 'a buy fills at or under its limit');
      const want = fee([[f.price, f.size]]);
      if (f.fee !== null && want !== null) assert.ok(close(f.fee, want, 0.011), `fee ${f.fee} vs ${want}`);
    }
  }
  assert.ok(
    close(
      route.filled,
      route.legs.reduce((s, l) => s + (l.order?.filled ?? 0), 0),
    ),
    'the route filled what its legs did',
  );
}

/** Contracts `asks` hold at or under `limit`. */
const within = (asks: Level[], limit: number) =>
  asks.filter(([p]) => p <= limit + 1e-12).reduce((s, [, q]) => s + q, 0);

test('a kalshi leg that times out under cancel_rest: pending, its cancel answered retryable, reconciled by the repeat, sent once', async () => {
  const p = await pair(0);
  await simControl(cat, 'kalshi', 'POST', 'faults', { latency_ms: 120_000, only: [ORDER_ROUTE.kalshi] });
  const body = {
    svc_id: p.poly.svc_id,
    side: 'buy',
    amount: '3',
    exchanges: ['kalshi'],
    max_slippage: '0.5',
    on_leg_failure: 'cancel_rest',
  };
  let route: Route;
  try {
    const res = await post(body, 'timeout-cancel');
    assert.equal(res.status, 200, res.text);
    route = res.body as Route;
  } finally {
    await simControl(cat, 'kalshi', 'DELETE', 'faults');
  }
  const leg = route.legs.find((l) => l.exchange === 'kalshi');
  assert.ok(leg, JSON.stringify(route.legs));
  assert.equal(leg.state, 'pending');
  assert.equal(route.status, 'pending');
  assert.equal(route.second_round, null, 'cancel_rest routes nothing more');
  // cancel_rest asks to cancel what may be working; the exchange has not confirmed the order yet, so the cancel
  // is answered with a retryable error naming the order (nothing is sent in its place).
  const cancels = route.cancellations as Array<{
    exchange: string;
    error: { code: string; retryable: boolean } | null;
  }>;
  assert.equal(cancels.length, 1, JSON.stringify(cancels));
  assert.equal(cancels[0]?.exchange, 'kalshi');
  assert.equal(cancels[0]?.error?.code, 'service_unavailable');
  assert.equal(cancels[0]?.error?.retryable, true);
  await waitFor(
    async () => ((await simControl(cat, 'kalshi', 'GET', 'held')) as { held: number }).held === 0,
    20_000,
    'kalshi processing the held order',
  );
  const again = await post(body, 'timeout-cancel');
  assert.equal(again.status, 200, again.text);
  const got = again.body as Route;
  assert.equal(got.id, route.id);
  const settled = got.legs.find((l) => l.exchange === 'kalshi');
  assert.ok(settled?.order, JSON.stringify(got.legs));
  assert.notEqual(settled.state, 'pending');
  await checkAtVenues(got);
  const history = await cat.sims
    .get('kalshi')
    ?.adapter.trading.fetchOrderHistory?.(venueContext(), session('kalshi'), settled.order.market_id);
  assert.deepEqual(
    (history ?? []).filter((o) => o.market_id === settled.order?.market_id).map((o) => o.id),
    [settled.order.id],
    'one order at the venue',
  );
});

for (const [n, mode] of [
  [1, 'cancel_rest'],
  [2, 'keep'],
] as const) {
  test(`a kalshi leg that fills short (${mode}): its fill recomputed from the book and what was taken first`, async () => {
    const p = await pair(n);
    const before = await rawBook(p.kalshi);
    const top = before.asks[0];
    assert.ok(top && top[1] >= 2, 'kalshi has a yes ask of two contracts or more');
    // kalshi alone, a little more than its best level: the leg's limit is the best ask or the next.
    const amount = round2(Math.min(top[1] + 1, 30));
    const body = {
      svc_id: p.poly.svc_id,
      side: 'buy',
      amount: String(amount),
      exchanges: ['kalshi'],
      max_slippage: '0.5',
      on_leg_failure: mode,
    };
    // The other account takes all but one contract of the best level just before the leg arrives.
    const takeSize = Math.floor(top[1]) - 1;
    const { result: res, taken } = await withThinnedBook(
      cat,
      'kalshi',
      session('kalshi', thinner),
      { market: p.kalshi, outcome: 'Yes', price: top[0], size: takeSize },
      () => post(body),
    );
    assert.equal(res.status, 200, res.text);
    const route = res.body as Route;
    assert.ok(close(taken.filled, takeSize), `the other account took ${taken.filled}`);
    const first = route.legs.filter((l) => l.round === 1);
    assert.equal(first.length, 1, JSON.stringify(route.legs));
    const leg = first[0] as LegOut;
    assert.ok(leg.order);
    // Independently: what the book held within the leg's limit, less what the other account took.
    const want = Math.min(leg.planned.size, within(before.asks, leg.planned.limit_price) - taken.filled);
    assert.ok(close(leg.order.filled, want), `filled ${leg.order.filled}, recomputed ${want}`);
    assert.ok(leg.order.filled < leg.planned.size, 'the leg fell short');
    assert.equal(leg.state, leg.order.filled > 0 ? 'partially_filled' : 'unfilled');
    await checkAtVenues(route);
    if (mode === 'cancel_rest') {
      assert.equal(route.second_round, null, 'cancel_rest sends nothing more');
      assert.deepEqual(route.cancellations, [], 'an immediate leg leaves nothing working to cancel');
      assert.equal(route.status, leg.order.filled > 0 ? 'partially_filled' : 'unfilled');
    } else {
      const sr = route.second_round;
      assert.ok(sr, JSON.stringify(route));
      // A leg that fell short is not a failed venue: the shortfall is planned again on the current books.
      assert.deepEqual(sr.exchanges, ['kalshi']);
      assert.ok(close(sr.amount, Math.floor((amount - leg.order.filled) * 100 + 1e-6) / 100));
      const second = route.legs.filter((l) => l.round === 2);
      if (sr.sent) {
        assert.ok(second.length > 0);
        assert.ok(
          close(
            second.reduce((s, l) => s + l.planned.size, 0),
            sr.amount,
          ),
          'the second round is the shortfall',
        );
      } else {
        assert.equal(second.length, 0);
        assert.ok(sr.reason);
      }
    }
    // Read back: the same legs and states.
    const got = await cat.server.request(`/api/v1/route/orders/${route.id}`);
    assert.equal(got.status, 200, got.text);
    assert.deepEqual(
      (got.body as Route).legs.map((l) => [l.order?.id, l.order?.filled]),
      route.legs.map((l) => [l.order?.id, l.order?.filled]),
    );
  });
}
