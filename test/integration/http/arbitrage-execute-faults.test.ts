// POST /arbitrage/execute under fault injection, through the real server over the simulators: Yes on a polymarket
// market and No on its kalshi twin (a published link), with paper accounts. Every failure path of paired execution:
// the first leg refused (nothing else is sent), the second leg refused, the second leg filling short (an immediate
// order meeting a book another account thinned after the plan: test/support/short-fill.ts) and the second leg timing
// out (its answer unknown: pending, no unwind while it may have filled, reconciled by the repeated POST and sent
// once) — each under on_leg_risk unwind (the excess sold on the first venue within its limit) and hold (the excess
// reported as residual). Every figure (fills, fees, realised edge, unwind result, residual) is recomputed from the
// books read before and the published fee formulas (test/support/fee-models.ts); fills also against the venues.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ExchangeId } from '../../../src/domain/exchanges.js';
import type { Market } from '../../../src/domain/market.js';
import { LinksRepo } from '../../../src/store/links-repo.js';
import type { VenueSession } from '../../../src/venues/port.js';
import {
  type CatalogueServer,
  simControl,
  startCatalogueServer,
  venueContext,
} from '../../support/catalogue.js';
import { type FeeModel, feeModelOf } from '../../support/fee-models.js';
import { checkRealised } from '../../support/leg-fills.js';
import { waitFor } from '../../support/server.js';
import { ORDER_ROUTE, withThinnedBook } from '../../support/short-fill.js';
import { close, type Level, orderbookOf, twinPairs, walkLevels } from '../../support/twin-pairs.js';

interface Leg {
  exchange: ExchangeId;
  svc_id: string;
  role: string;
  state: string;
  planned: { outcome: string; side: string; limit_price: number; size: number };
  order: { id: string; filled: number } | null;
  figures: {
    filled: number;
    est_avg_price: number | null;
    est_notional: number;
    est_fee: number;
    realised: { fills: number; avg_price: number | null; notional: number; fee: number | null } | null;
  };
}
interface Execution {
  id: string;
  status: string;
  size: number;
  legs: Leg[];
  est_pair_cost: number;
  hedged: number;
  fees: number;
  est_edge: number;
  realised_edge: number | null;
  realised_fees: number | null;
  unwind_pnl: number;
  residual: { exchange: string; svc_id: string; size: number; cost: number } | null;
}

let cat: CatalogueServer;
let links: LinksRepo;
const accounts = new Map<ExchangeId, Record<string, string>>();
const thinners = new Map<ExchangeId, Record<string, string>>();
before(async () => {
  // A venue deadline short enough that a held answer is lost within the test, long enough for the short-fill
  // choreography to release the leg before it.
  cat = await startCatalogueServer(40, {
    config: { catalogue: { sync: false }, venues: { timeoutMs: 3_000 } },
  });
  await cat.server.runtime.catalogSync.runAll();
  links = new LinksRepo(cat.server.runtime.store.db);
  for (const exchange of ['polymarket', 'kalshi'] as const) {
    const sim = cat.sims.get(exchange);
    assert.ok(sim?.createAccount);
    accounts.set(exchange, (await sim.createAccount()).credentials);
    thinners.set(exchange, (await sim.createAccount()).credentials);
  }
});
after(async () => {
  await cat?.stop();
});

const session = (exchange: ExchangeId, credentials = accounts.get(exchange)): VenueSession => ({
  exchange,
  credentials: credentials as Record<string, string>,
  source: 'per_request',
});

const pair = twinPairs(
  () => cat,
  () => links,
  { reuse: true },
);

const book = (m: Market, outcome: string) => orderbookOf(cat, m, outcome);

const walk = walkLevels;

let keys = 0;

function execute(body: Record<string, unknown>, key: string | null = `arb-fault-${++keys}`) {
  return cat.server.request('/api/v1/arbitrage/execute', {
    method: 'POST',
    body: { credentials: Object.fromEntries(accounts), ...body },
    headers: key === null ? {} : { 'idempotency-key': key },
  });
}

interface Side {
  exchange: 'polymarket' | 'kalshi';
  market: Market;
  outcome: string;
  book: { bids: Level[]; asks: Level[] };
  fee: FeeModel;
}

/** Both sides of Yes on polymarket + No on kalshi as read now, in the order the rule says they go. */
async function sides(p: { poly: Market; kalshi: Market }, size: number): Promise<[Side, Side]> {
  const read = async (exchange: 'polymarket' | 'kalshi', m: Market, outcome: string): Promise<Side> => ({
    exchange,
    market: m,
    outcome,
    book: await book(m, outcome),
    fee: await feeModelOf(cat, m),
  });
  const a = await read('polymarket', p.poly, 'Yes');
  const b = await read('kalshi', p.kalshi, 'No');
  const depth = (s: Side) => {
    const w = walk(s.book.asks, size);
    const limit = w.fills.at(-1)?.[0] ?? 0;
    return s.book.asks.filter(([px]) => px <= limit + 1e-12).reduce((t, [, sz]) => t + sz, 0);
  };
  return depth(b) < depth(a) ? [b, a] : [a, b];
}

/** A leg's figures for what it filled, on the book as read. */
function figures(s: Side, side: 'buy' | 'sell', filled: number) {
  const w = walk(side === 'buy' ? s.book.asks : s.book.bids, filled);
  return { notional: w.cost, fee: s.fee(w.fills) ?? Number.NaN };
}

async function checkFigures(got: Execution, [first, second]: [Side, Side]): Promise<void> {
  const [l1, l2, l3] = got.legs;
  assert.ok(l1);
  assert.equal(l1.role, 'first');
  assert.equal(l1.svc_id, first.market.svc_id, 'the thinner book goes first');
  const f1 = figures(first, 'buy', l1.figures.filled);
  assert.ok(close(l1.figures.est_notional, f1.notional), `${l1.figures.est_notional} vs ${f1.notional}`);
  assert.ok(close(l1.figures.est_fee, f1.fee), `${l1.figures.est_fee} vs ${f1.fee}`);
  assert.equal(l1.figures.filled, l1.order?.filled ?? 0);
  const per = (f1.notional + f1.fee) / l1.figures.filled;
  let hedged = 0;
  let cost2 = 0;
  let fees = f1.fee;
  if (l2) {
    assert.equal(l2.role, 'second');
    assert.equal(l2.svc_id, second.market.svc_id);
    assert.ok(l2.planned.size <= l1.figures.filled + 1e-9, 'the second is sized to what the first filled');
    const f2 = figures(second, 'buy', l2.figures.filled);
    assert.ok(close(l2.figures.est_fee, f2.fee));
    hedged = l2.figures.filled;
    cost2 = f2.notional + f2.fee;
    fees += f2.fee;
  }
  let unwound = 0;
  if (l3) {
    assert.equal(l3.role, 'unwind');
    assert.equal(l3.svc_id, first.market.svc_id, 'the unwind sells on the first venue');
    assert.equal(l3.planned.side, 'sell');
    const f3 = figures(first, 'sell', l3.figures.filled);
    unwound = l3.figures.filled;
    fees += f3.fee;
    assert.ok(close(got.unwind_pnl, f3.notional - f3.fee - per * unwound, 1e-5));
  }
  assert.ok(close(got.hedged, hedged));
  assert.ok(close(got.fees, fees, 1e-5), `fees ${got.fees} vs ${fees}`);
  assert.ok(close(got.est_edge, hedged - (per * hedged + cost2), 1e-5), `${got.est_edge}`);
  await checkRealised(
    cat,
    (e) => session(e),
    (l) => (l.svc_id === first.market.svc_id ? first.fee : second.fee),
    got,
  );
  const residual = l1.figures.filled - hedged - unwound;
  if (residual > 1e-9) {
    assert.ok(got.residual, 'the unhedged excess is reported');
    assert.ok(close(got.residual.size, residual));
    assert.equal(got.residual.svc_id, first.market.svc_id);
  } else assert.equal(got.residual, null);
}

const legsOf = (p: { poly: Market; kalshi: Market }) => [
  { svc_id: p.poly.svc_id, outcome: 'Yes' },
  { svc_id: p.kalshi.svc_id, outcome: 'No' },
];

/** Each leg's order at its exchange (getOrder through the adapter) filled what the answer says. */
async function checkAtVenues(got: Execution): Promise<void> {
  for (const leg of got.legs) {
    if (!leg.order || leg.state === 'rejected' || leg.state === 'pending') continue;
    const direct = await cat.sims
      .get(leg.exchange)
      ?.adapter.trading.getOrder?.(venueContext(), session(leg.exchange), leg.order.id);
    assert.ok(direct, `${leg.exchange} holds the ${leg.role} leg`);
    assert.ok(close(direct.filled, leg.order.filled), `${leg.role}: ${direct.filled} vs ${leg.order.filled}`);
    assert.ok(leg.order.filled <= leg.planned.size + 1e-9);
  }
}

async function executeWithFault(
  exchange: 'polymarket' | 'kalshi',
  fault: Record<string, unknown>,
  body: Record<string, unknown>,
  key?: string,
): Promise<Execution> {
  await simControl(cat, exchange, 'POST', 'faults', { ...fault, only: [ORDER_ROUTE[exchange]] });
  try {
    const res = await execute({ legs: [], ...body }, key);
    assert.equal(res.status, 200, res.text);
    return res.body as Execution;
  } finally {
    await simControl(cat, exchange, 'DELETE', 'faults');
  }
}

/** Contracts `asks` hold at or under `limit`. */
const within = (asks: Level[], limit: number) =>
  asks.filter(([p]) => p <= limit + 1e-12).reduce((s, [, q]) => s + q, 0);

for (const [n, risk] of [
  [0, 'unwind'],
  [1, 'hold'],
] as const) {
  test(`the first leg refused (${risk}): nothing else is sent, nothing is held`, async () => {
    const p = await pair(n);
    const s = await sides(p, 20);
    const got = await executeWithFault(
      s[0].exchange,
      { error_rate: 1, error_status: 400 },
      { legs: legsOf(p), size: '20', max_cost: '2', on_leg_risk: risk },
    );
    assert.equal(got.legs.length, 1, JSON.stringify(got.legs));
    assert.equal(got.legs[0]?.svc_id, s[0].market.svc_id, 'the thinner book went first');
    assert.equal(got.legs[0]?.state, 'rejected');
    assert.equal(got.status, 'unfilled');
    assert.equal(got.hedged, 0);
    assert.equal(got.fees, 0);
    assert.equal(got.est_edge, 0);
    assert.equal(got.realised_edge, 0);
    assert.equal(got.residual, null);
    assert.deepEqual(got.legs[0]?.figures, {
      filled: 0,
      est_avg_price: null,
      est_notional: 0,
      est_fee: 0,
      realised: { fills: 0, avg_price: null, notional: 0, fee: 0 },
    });
  });
}

for (const [n, risk] of [
  [2, 'unwind'],
  [3, 'hold'],
] as const) {
  test(`the second leg refused (${risk}): ${risk === 'unwind' ? 'the excess sold on the first venue' : 'the excess held as residual'}`, async () => {
    const p = await pair(n);
    const s = await sides(p, 20);
    const got = await executeWithFault(
      s[1].exchange,
      { error_rate: 1, error_status: 400 },
      { legs: legsOf(p), size: '20', max_cost: '2', on_leg_risk: risk },
    );
    assert.equal(got.legs[1]?.state, 'rejected', JSON.stringify(got.legs));
    await checkFigures(got, s);
    await checkAtVenues(got);
    const first = got.legs[0]?.figures.filled ?? 0;
    assert.ok(first > 0);
    if (risk === 'unwind') {
      assert.equal(got.legs[2]?.role, 'unwind');
      assert.equal(got.legs[2]?.planned.size, first, 'the whole excess is offered');
    } else {
      assert.equal(got.legs.length, 2);
      assert.equal(got.status, 'unhedged');
      assert.ok(close(got.residual?.size ?? 0, first));
    }
  });
}

for (const [n, risk] of [
  [4, 'unwind'],
  [5, 'hold'],
] as const) {
  test(`the second leg fills short (${risk}): its fill recomputed from the book and what was taken first`, async () => {
    const p = await pair(n);
    const size = 20;
    const s = await sides(p, size);
    const second = s[1];
    // What the second leg will ask: `size` at the worst price a walk of its book reaches. The other account takes
    // all of that but half the size just before the leg arrives.
    const limit = walk(second.book.asks, size).fills.at(-1)?.[0];
    assert.ok(limit !== undefined);
    const take = Math.round((within(second.book.asks, limit) - size / 2) * 100) / 100;
    const { result: got, taken } = await withThinnedBook(
      cat,
      second.exchange,
      session(second.exchange, thinners.get(second.exchange)),
      { market: second.market, outcome: second.outcome, price: limit, size: take },
      async () => {
        const res = await execute({ legs: legsOf(p), size: String(size), max_cost: '2', on_leg_risk: risk });
        assert.equal(res.status, 200, res.text);
        return res.body as Execution;
      },
    );
    const [l1, l2] = got.legs;
    assert.ok(l1 && l2, JSON.stringify(got.legs));
    assert.equal(l2.role, 'second');
    assert.equal(l2.planned.size, l1.figures.filled, 'the second is sized to what the first filled');
    // Independently: what the book held within the second's limit, less what the other account took.
    const want = Math.min(l2.planned.size, within(second.book.asks, l2.planned.limit_price) - taken.filled);
    assert.ok(close(l2.figures.filled, want), `second filled ${l2.figures.filled}, recomputed ${want}`);
    assert.ok(l2.figures.filled < l1.figures.filled, 'the second fell short');
    await checkFigures(got, s);
    await checkAtVenues(got);
    const excess = l1.figures.filled - l2.figures.filled;
    if (risk === 'unwind') {
      const l3 = got.legs[2];
      assert.ok(l3, 'an unwind was sent');
      // In whole lots (0.01): a polymarket buy is sent in whole cents of USDC, so what it filled may carry dust.
      const lots = Math.floor(excess * 100 + 1e-6) / 100;
      assert.ok(
        close(l3.planned.size, lots),
        `the unwind offers ${l3.planned.size}, the excess is ${excess}`,
      );
      // Within a limit: the worst bid selling the excess reaches on the first venue's book as read.
      const floor = walk(s[0].book.bids, lots).fills.at(-1)?.[0];
      assert.ok(
        floor !== undefined &&
          l3.planned.limit_price <= floor + 1e-9 &&
          l3.planned.limit_price >= floor - 0.01,
      );
    } else {
      assert.equal(got.legs.length, 2);
      assert.equal(got.status, 'partially_hedged');
      assert.ok(close(got.residual?.size ?? 0, excess));
    }
  });
}

for (const [n, risk] of [
  [6, 'unwind'],
  [7, 'hold'],
] as const) {
  test(`the second leg times out (${risk}): pending, no unwind while it may have filled, reconciled and sent once`, async () => {
    const p = await pair(n);
    const size = 20;
    const s = await sides(p, size);
    const body = { legs: legsOf(p), size: String(size), max_cost: '2', on_leg_risk: risk };
    const key = `arb-timeout-${risk}`;
    const got = await executeWithFault(s[1].exchange, { latency_ms: 120_000 }, body, key);
    assert.equal(got.status, 'pending', JSON.stringify(got));
    assert.equal(got.legs.length, 2, 'nothing is unwound while the second may have filled');
    assert.equal(got.legs[1]?.state, 'pending');
    await waitFor(
      async () => ((await simControl(cat, s[1].exchange, 'GET', 'held')) as { held: number }).held === 0,
      20_000,
      'the held order processed',
    );
    const res = await execute(body, key);
    assert.equal(res.status, 200, res.text);
    const after = res.body as Execution;
    assert.equal(after.id, got.id);
    const [l1, l2] = after.legs;
    assert.ok(l1 && l2);
    assert.notEqual(l2.state, 'pending');
    assert.ok(l2.order, 'the second leg reconciled to the order the venue holds');
    assert.equal(l2.order.id, after.legs[1]?.order?.id);
    await checkFigures(after, s);
    await checkAtVenues(after);
    // Sent once: the venue holds one order of that leg, and a third POST changes nothing.
    const third = await execute(body, key);
    assert.deepEqual(
      (third.body as Execution).legs.map((l) => [l.order?.id, l.order?.filled]),
      after.legs.map((l) => [l.order?.id, l.order?.filled]),
    );
    if (s[1].exchange === 'kalshi') {
      const history = await cat.sims
        .get('kalshi')
        ?.adapter.trading.fetchOrderHistory?.(
          venueContext(),
          session('kalshi'),
          s[1].market.exchange_market_id,
        );
      assert.deepEqual(
        (history ?? []).map((o) => o.id),
        [l2.order.id],
        'one order at the venue',
      );
    }
  });
}
