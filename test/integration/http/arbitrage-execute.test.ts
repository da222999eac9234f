// POST /arbitrage/execute through the real server over the simulators: Yes on a polymarket market and No on its
// kalshi twin (a link the matching engine published), with paper accounts. Every figure is recomputed here from the
// venues' own GET /orderbook answers and their published fee formulas: which leg goes first (the thinner book
// within its limit), the pair's cost, each leg's price and fee for what it filled, the realised edge and the
// residual. Fault injection on the second leg's exchange (a refusal): unwind sells the excess on the first venue,
// hold keeps it. Refusals (legs that are not a pair, a pair that costs too much, no key) send nothing.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ExchangeId } from '../../../src/domain/exchanges.js';
import type { Market } from '../../../src/domain/market.js';
import { LinksRepo } from '../../../src/store/links-repo.js';
import type { VenueSession } from '../../../src/venues/port.js';
import { type CatalogueServer, simControl, startCatalogueServer } from '../../support/catalogue.js';
import { assertError } from '../../support/error-shape.js';
import { type FeeModel, feeModelOf } from '../../support/fee-models.js';
import { checkRealised } from '../../support/leg-fills.js';
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
  decision: { books: Array<{ svc_id: string }>; link: { svc_id: string } | null };
}

const ORDER_ROUTE: Record<'polymarket' | 'kalshi', string> = {
  polymarket: 'POST /order',
  kalshi: 'POST /trade-api/v2/portfolio/events/orders',
};

let cat: CatalogueServer;
let links: LinksRepo;
const accounts = new Map<ExchangeId, Record<string, string>>();
before(async () => {
  cat = await startCatalogueServer(40, { config: { catalogue: { sync: false } } });
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

const book = (m: Market, outcome: string) => orderbookOf(cat, m, outcome);

const walk = walkLevels;

let keys = 0;

function execute(body: Record<string, unknown>, key: string | null = `arb-${++keys}`) {
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

test('a pair across polymarket and kalshi: the thinner book first, the second sized to it, every figure recomputed', async () => {
  const p = await pair(0);
  const size = 20;
  const s = await sides(p, size);
  const pairCost =
    (figures(s[0], 'buy', size).notional +
      figures(s[0], 'buy', size).fee +
      figures(s[1], 'buy', size).notional +
      figures(s[1], 'buy', size).fee) /
    size;
  // Without max_cost a pair must cost less than its payout.
  if (pairCost >= 1) {
    const refused = assertError(await execute({ legs: legsOf(p), size: '20' }), 409, 'conflict');
    assert.match(String(refused.error), /payout/);
  }
  const res = await execute({ legs: legsOf(p), size: '20', max_cost: '2' }, 'pair-1');
  assert.equal(res.status, 200, res.text);
  const got = res.body as Execution;
  assert.ok(close(got.est_pair_cost, pairCost), `${got.est_pair_cost} vs ${pairCost}`);
  assert.equal(got.status, 'hedged', res.text);
  await checkFigures(got, s);
  assert.equal(got.decision.link?.svc_id, p.kalshi.svc_id);
  // Replayed: the same legs, nothing sent again.
  const again = await execute({ legs: legsOf(p), size: '20', max_cost: '2' }, 'pair-1');
  assert.equal(again.status, 200, again.text);
  assert.deepEqual(
    (again.body as Execution).legs.map((l) => l.order?.id),
    got.legs.map((l) => l.order?.id),
  );
  assertError(await execute({ legs: legsOf(p), size: '21', max_cost: '2' }, 'pair-1'), 409, 'conflict');
  // Read back: by id (the POST's shape, the same legs) and in the newest-first list; an unknown id is 404.
  const read = await cat.server.request(`/api/v1/arbitrage/executions/${got.id}`);
  assert.equal(read.status, 200, read.text);
  assert.equal((read.body as Execution).status, got.status);
  assert.deepEqual(
    (read.body as Execution).legs.map((l) => [l.role, l.order?.id, l.figures.filled]),
    got.legs.map((l) => [l.role, l.order?.id, l.figures.filled]),
  );
  const listed = await cat.server.request('/api/v1/arbitrage/executions?limit=100');
  assert.equal(listed.status, 200, listed.text);
  const mine = (listed.body as { executions: Execution[] }).executions.find((e) => e.id === got.id);
  assert.deepEqual(
    mine?.legs.map((l) => l.order?.id),
    got.legs.map((l) => l.order?.id),
  );
  assertError(await cat.server.request('/api/v1/arbitrage/executions/no-such-execution'), 404, 'not_found');
  assertError(await cat.server.request('/api/v1/arbitrage/executions?cursor=bogus'), 400, 'validation_error');
});

test('the second leg refused: unwind sells the excess on the first venue, hold keeps it as residual', async () => {
  for (const [n, risk] of [
    [1, 'unwind'],
    [2, 'hold'],
  ] as const) {
    const p = await pair(n);
    const size = 20;
    const s = await sides(p, size);
    await simControl(cat, s[1].exchange, 'POST', 'faults', {
      error_rate: 1,
      error_status: 400,
      only: [ORDER_ROUTE[s[1].exchange]],
    });
    let got: Execution;
    try {
      const res = await execute({ legs: legsOf(p), size: String(size), max_cost: '2', on_leg_risk: risk });
      assert.equal(res.status, 200, res.text);
      got = res.body as Execution;
    } finally {
      await simControl(cat, s[1].exchange, 'DELETE', 'faults');
    }
    assert.equal(got.legs[1]?.state, 'rejected', JSON.stringify(got.legs));
    await checkFigures(got, s);
    if (risk === 'unwind') {
      assert.equal(got.legs.length, 3, JSON.stringify(got.legs));
      assert.ok((got.legs[2]?.figures.filled ?? 0) > 0, 'the excess was sold');
    } else {
      assert.equal(got.legs.length, 2);
      assert.equal(got.status, 'unhedged');
      assert.ok(close(got.residual?.size ?? 0, got.legs[0]?.figures.filled ?? -1));
    }
  }
});

test('refusals send nothing: not a pair, not linked, no key, bad terms', async () => {
  const p = await pair(3);
  const other = await pair(4);
  const yesYes = assertError(
    await execute({
      legs: [
        { svc_id: p.poly.svc_id, outcome: 'Yes' },
        { svc_id: p.kalshi.svc_id, outcome: 'Yes' },
      ],
      size: '1',
      max_cost: '2',
    }),
    400,
    'validation_error',
  );
  assert.match(String(yesYes.error), /same bet/);
  assertError(
    await execute({
      legs: [
        { svc_id: p.poly.svc_id, outcome: 'Yes' },
        { svc_id: other.kalshi.svc_id, outcome: 'No' },
      ],
      size: '1',
      max_cost: '2',
    }),
    400,
    'validation_error',
  );
  assertError(
    await execute({
      legs: [
        { svc_id: p.poly.svc_id, outcome: 'Yes' },
        { svc_id: p.poly.svc_id, outcome: 'Yes' },
      ],
      size: '1',
      max_cost: '2',
    }),
    400,
    'validation_error',
  );
  assertError(await execute({ legs: legsOf(p), size: '1' }, null), 400, 'missing_parameter');
  assertError(await execute({ legs: legsOf(p).slice(0, 1), size: '1' }), 400, 'validation_error');
  assertError(await execute({ legs: legsOf(p), size: '0', max_cost: '2' }), 400, 'validation_error');
  assertError(
    await execute({ legs: legsOf(p), size: '1', max_cost: '2', on_leg_risk: 'pray' }),
    400,
    'validation_error',
  );
  // A cap below what the books ask: 409.
  assertError(await execute({ legs: legsOf(p), size: '1', max_cost: '0.01' }), 409, 'conflict');
});
