// POST /route/orders, GET /route/orders[/:id] through the real server over the simulators, with links the matching
// engine published from a real sync pass, trading with paper accounts on polymarket and kalshi. The plan's figures
// (each leg's limit and size, the reference price and the slippage) are recomputed here from the venues' own GET
// /orderbook answers and their published fee formulas (test/support/fee-models.ts); every leg is checked at its
// exchange through the adapter (one order, as reported). Refusals (no key, bad terms, slippage past the bound) send
// nothing. Fault injection on one venue: a refused leg (cancel_rest stops, keep routes the shortfall on the other
// venue), a lost answer (the leg is pending, reconciled by the repeated POST once released, never sent again).
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
import { assertError } from '../../support/error-shape.js';
import { type FeeModel, feeModelOf } from '../../support/fee-models.js';
import { waitFor } from '../../support/server.js';
import { close, type Level, orderbookOf, twinPairs, walkLevels } from '../../support/twin-pairs.js';

interface LegOut {
  exchange: ExchangeId;
  svc_id: string;
  round: number;
  state: string;
  planned: { outcome: string; side: string; order_type: string; limit_price: number; size: number };
  order: (Order & { client_order_id?: string }) | null;
  error: { code: string } | null;
}
interface Route {
  id: string;
  status: string;
  amount: number;
  filled: number;
  legs: LegOut[];
  plan: { reference_price: number; slippage: number; est_net_cost: number; size: number };
  second_round: { amount: number; sent: boolean; reason: string | null; exchanges: string[] } | null;
  cancellations: unknown[];
  decision: { books: Array<{ svc_id: string }>; links: Array<{ svc_id: string; confidence_tier: string }> };
}

let cat: CatalogueServer;
let links: LinksRepo;
const accounts = new Map<ExchangeId, Record<string, string>>();
before(async () => {
  // A short venue deadline, so an answer the simulator holds back is a lost answer within the test.
  cat = await startCatalogueServer(40, {
    config: { catalogue: { sync: false }, venues: { timeoutMs: 1_500 } },
  });
  await cat.server.runtime.catalogSync.runAll();
  links = new LinksRepo(cat.server.runtime.store.db);
  for (const exchange of ['polymarket', 'kalshi'] as const) {
    const sim = cat.sims.get(exchange);
    assert.ok(sim?.createAccount);
    accounts.set(exchange, (await sim.createAccount()).credentials);
  }
});
after(async () => {
  await cat?.stop();
});

const session = (exchange: ExchangeId): VenueSession => ({
  exchange,
  credentials: accounts.get(exchange) as Record<string, string>,
  source: 'per_request',
});

const pair = twinPairs(
  () => cat,
  () => links,
);

const book = (m: Market) => orderbookOf(cat, m, 'yes');

const walk = walkLevels;

let keys = 0;

function post(body: Record<string, unknown>, key: string | null = `route-${++keys}`) {
  return cat.server.request('/api/v1/route/orders', {
    method: 'POST',
    body: { credentials: Object.fromEntries(accounts), ...body },
    headers: key === null ? {} : { 'idempotency-key': key },
  });
}

/** Twice the best asks of both books: a buy that needs both venues. */
async function spanning(p: { poly: Market; kalshi: Market }): Promise<number> {
  const [a, b] = await Promise.all([book(p.poly), book(p.kalshi)]);
  const top = (a.asks[0]?.[1] ?? 0) + (b.asks[0]?.[1] ?? 0);
  return Math.max(2, Math.min(Math.round(top * 1.2 * 100) / 100, 40));
}

/** The plan's figures against the books and fee formulas read just before it. */
async function checkPlan(
  route: Route,
  books: Array<{ asks: Level[] }>,
  ms: Market[],
  fees: FeeModel[],
): Promise<void> {
  let net = 0;
  let size = 0;
  for (const leg of route.legs.filter((l) => l.round === 1)) {
    const i = ms.findIndex((m) => m.svc_id === leg.svc_id);
    assert.ok(i >= 0, leg.svc_id);
    const w = walk((books[i] as { asks: Level[] }).asks, leg.planned.size);
    assert.ok(close(w.filled, leg.planned.size), 'the book held the leg');
    assert.equal(
      leg.planned.limit_price,
      w.fills.at(-1)?.[0],
      'the limit is the last level the walk reaches',
    );
    assert.equal(leg.planned.order_type, 'ioc');
    net += w.cost + ((fees[i] as FeeModel)(w.fills) ?? Number.NaN);
    size += leg.planned.size;
  }
  assert.ok(close(route.plan.est_net_cost, net), `net ${route.plan.est_net_cost} vs ${net}`);
  // The reference: the best top level taken whole, net of its venue's fee.
  const reference = Math.min(
    ...books.map((b, i) => {
      const top = b.asks[0] as Level;
      return (top[0] * top[1] + ((fees[i] as FeeModel)([top]) ?? 0)) / top[1];
    }),
  );
  assert.ok(close(route.plan.reference_price, reference), `${route.plan.reference_price} vs ${reference}`);
  assert.ok(
    close(route.plan.slippage, net / size - reference),
    `${route.plan.slippage} vs ${net / size - reference}`,
  );
}

/** Each leg's order as its exchange has it (getOrder through the adapter), and the leg reporting it. */
async function checkAtVenues(route: Route): Promise<void> {
  for (const leg of route.legs) {
    if (!leg.order || leg.state === 'rejected') continue;
    const direct = await cat.sims
      .get(leg.exchange)
      ?.adapter.trading.getOrder?.(venueContext(), session(leg.exchange), leg.order.id);
    assert.ok(direct, `${leg.exchange} holds the leg's order`);
    assert.ok(
      close(direct.filled, leg.order.filled),
      `${leg.exchange}: filled ${direct.filled} vs ${leg.order.filled}`,
    );
    assert.ok(leg.order.client_order_id, 'the leg is an order of the journal');
  }
}

test('a buy routed across polymarket and kalshi: plan recomputed, legs at the venues, replayed and read back', async () => {
  const p = await pair(0);
  const ms = [p.poly, p.kalshi];
  const amount = await spanning(p);
  const books = await Promise.all(ms.map(book));
  const fees = await Promise.all(ms.map((m) => feeModelOf(cat, m)));
  const body = {
    svc_id: p.poly.svc_id,
    side: 'buy',
    amount: String(amount),
    exchanges: ['polymarket', 'kalshi'],
    max_slippage: '0.5',
  };
  const res = await post(body, 'happy-1');
  assert.equal(res.status, 200, res.text);
  const route = res.body as Route;
  assert.ok(route.legs.length >= 1, res.text);
  await checkPlan(route, books, ms, fees);
  await checkAtVenues(route);
  for (const leg of route.legs) assert.ok(leg.order && leg.order.filled > 0, JSON.stringify(leg));
  assert.ok(
    close(
      route.filled,
      route.legs.reduce((s, l) => s + (l.order?.filled ?? 0), 0),
    ),
  );
  assert.deepEqual(
    route.decision.books.map((b) => b.svc_id),
    [p.poly.svc_id, p.kalshi.svc_id],
  );
  assert.equal(route.decision.links.find((l) => l.svc_id === p.kalshi.svc_id)?.confidence_tier, 'HIGH');

  // The same key and body: the same route and orders, nothing sent again (the venues' fills are as they were).
  const fillsNow = async () =>
    Promise.all(
      (['polymarket', 'kalshi'] as const).map(async (e) =>
        (await cat.sims.get(e)?.adapter.trading.fetchFills?.(venueContext(), session(e), null, 500))
          ?.map((f) => f.fill_id)
          .sort(),
      ),
    );
  const fillsBefore = await fillsNow();
  for (const leg of route.legs) {
    assert.ok(fillsBefore.flat().length > 0, `${leg.exchange} filled the leg`);
  }
  const again = await post(body, 'happy-1');
  assert.equal(again.status, 200, again.text);
  const replayed = again.body as Route;
  assert.equal(replayed.id, route.id);
  assert.deepEqual(
    replayed.legs.map((l) => l.order?.id),
    route.legs.map((l) => l.order?.id),
  );
  assert.deepEqual(await fillsNow(), fillsBefore, 'the replay sent nothing');
  // A different body under it: 409, nothing sent.
  assertError(await post({ ...body, amount: String(amount + 1) }, 'happy-1'), 409, 'conflict');

  const got = await cat.server.request(`/api/v1/route/orders/${route.id}`);
  assert.equal(got.status, 200, got.text);
  assert.deepEqual(
    (got.body as Route).legs.map((l) => [l.order?.id, l.state]),
    route.legs.map((l) => [l.order?.id, l.state]),
  );
  assertError(await cat.server.request('/api/v1/route/orders/no-such-route'), 404, 'not_found');
  const list = await cat.server.request('/api/v1/route/orders?limit=1');
  assert.equal(list.status, 200, list.text);
  const page = list.body as {
    route_orders: Route[];
    pagination: { has_more: boolean; next_cursor?: string };
  };
  assert.equal(page.route_orders[0]?.id, route.id, 'newest first');
});

test('refusals send nothing: no key, bad terms, unknown or unserved exchanges, a plan past max_slippage', async () => {
  const p = await pair(1);
  const base = {
    svc_id: p.poly.svc_id,
    side: 'buy',
    amount: '5',
    exchanges: ['polymarket', 'kalshi'],
    max_slippage: '0.5',
  };
  assertError(await post(base, null), 400, 'missing_parameter');
  assertError(await post({ ...base, amount: '0' }), 400, 'validation_error');
  assertError(await post({ ...base, on_leg_failure: 'retry' }), 400, 'validation_error');
  assertError(await post({ ...base, max_slippage: '-1' }), 400, 'validation_error');
  assertError(await post({ ...base, exchanges: ['nowhere'] }), 404, 'exchange_not_found');
  assertError(await post({ ...base, exchanges: ['opinion'] }), 501, 'not_supported');
  const before = (await cat.server.request('/api/v1/route/orders?limit=100')).body as {
    route_orders: Route[];
  };
  // An amount that walks past the best level on both books, with no slippage allowed: 409, the key not used.
  const amount = await spanning(p);
  const refused = assertError(
    await post({ ...base, amount: String(amount), max_slippage: '0' }, 'slip-1'),
    409,
    'conflict',
  );
  assert.match(String(refused.error), /max_slippage/);
  const afterList = (await cat.server.request('/api/v1/route/orders?limit=100')).body as {
    route_orders: Route[];
  };
  assert.equal(afterList.route_orders.length, before.route_orders.length, 'no route was written');
  const ok = await post({ ...base, amount: String(amount), max_slippage: '0.5' }, 'slip-1');
  assert.equal(ok.status, 200, `the refused key is still free: ${ok.text}`);
});

test('a leg refused by kalshi: cancel_rest stops there, keep routes the shortfall on polymarket', async () => {
  for (const [n, mode] of [
    [2, 'cancel_rest'],
    [3, 'keep'],
  ] as const) {
    const p = await pair(n);
    const amount = await spanning(p);
    await simControl(cat, 'kalshi', 'POST', 'faults', {
      error_rate: 1,
      error_status: 400,
      only: ['POST /trade-api/v2/portfolio/events/orders'],
    });
    let route: Route;
    try {
      const res = await post({
        svc_id: p.poly.svc_id,
        side: 'buy',
        amount: String(amount),
        exchanges: ['polymarket', 'kalshi'],
        max_slippage: '0.5',
        on_leg_failure: mode,
      });
      assert.equal(res.status, 200, res.text);
      route = res.body as Route;
    } finally {
      await simControl(cat, 'kalshi', 'DELETE', 'faults');
    }
    const kalshi = route.legs.find((l) => l.exchange === 'kalshi' && l.round === 1);
    assert.ok(kalshi, `${mode}: the plan used kalshi: ${JSON.stringify(route.legs)}`);
    assert.equal(kalshi.state, 'rejected');
    await checkAtVenues(route);
    if (mode === 'cancel_rest') {
      assert.equal(route.second_round, null);
      assert.ok(route.legs.every((l) => l.round === 1));
      const others = route.legs.filter((l) => l !== kalshi);
      assert.equal(
        route.status,
        route.filled > 0 ? 'partially_filled' : others.length === 0 ? 'rejected' : 'unfilled',
      );
    } else {
      assert.ok(route.second_round, JSON.stringify(route));
      assert.deepEqual(route.second_round.exchanges, ['polymarket']);
      const firstFilled = route.legs
        .filter((l) => l.round === 1)
        .reduce((s, l) => s + (l.order?.filled ?? 0), 0);
      assert.ok(close(route.second_round.amount, Math.floor((amount - firstFilled) * 100 + 1e-6) / 100));
      if (route.second_round.sent) {
        const second = route.legs.filter((l) => l.round === 2);
        assert.ok(second.length > 0 && second.every((l) => l.exchange === 'polymarket'));
      } else assert.ok(route.second_round.reason);
      // The retry drives it again and changes nothing.
    }
  }
});

test('a leg whose answer is lost is pending, reconciled by the repeated POST, never sent again', async () => {
  const p = await pair(4);
  const amount = await spanning(p);
  // Kalshi holds the order request before processing it (processed once released), past our deadline.
  await simControl(cat, 'kalshi', 'POST', 'faults', {
    latency_ms: 120_000,
    only: ['POST /trade-api/v2/portfolio/events/orders'],
  });
  const lostBody = {
    svc_id: p.poly.svc_id,
    side: 'buy',
    amount: String(amount),
    // kalshi alone, so the leg is there whatever the books say.
    exchanges: ['kalshi'],
    max_slippage: '0.5',
    on_leg_failure: 'keep',
  };
  let route: Route;
  try {
    const res = await post(lostBody, 'lost-1');
    assert.equal(res.status, 200, res.text);
    route = res.body as Route;
  } finally {
    await simControl(cat, 'kalshi', 'DELETE', 'faults');
  }
  const held = route.legs.find((l) => l.exchange === 'kalshi');
  assert.ok(held, JSON.stringify(route.legs));
  assert.equal(held.state, 'pending');
  assert.equal(route.status, 'pending');
  // keep: a pending leg may have filled, so nothing is routed again for it.
  assert.equal(route.second_round?.amount ?? 0, 0, JSON.stringify(route.second_round));
  await waitFor(
    async () => ((await simControl(cat, 'kalshi', 'GET', 'held')) as { held: number }).held === 0,
    20_000,
    'kalshi processing the held order',
  );
  // The same POST again (the per-request credentials it carries reach the exchange): the leg is reconciled there.
  const again = await post(lostBody, 'lost-1');
  assert.equal(again.status, 200, again.text);
  const got = again.body as Route;
  assert.equal(got.id, route.id);
  assert.ok(
    got.legs.every((l) => l.state !== 'pending'),
    JSON.stringify(got.legs),
  );
  await checkAtVenues(got);
  const leg = got.legs.find((l) => l.exchange === 'kalshi');
  assert.ok(leg?.order && leg.order.filled > 0, JSON.stringify(leg));
  // Exactly one order at kalshi carries the leg's client order id.
  const history = await cat.sims
    .get('kalshi')
    ?.adapter.trading.fetchOrderHistory?.(venueContext(), session('kalshi'), held.order?.market_id ?? null);
  assert.deepEqual(
    (history ?? []).filter((o) => o.market_id === leg.order?.market_id).map((o) => o.id),
    [leg.order.id],
    'one order at the venue',
  );
});
