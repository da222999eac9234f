// GET /route/quote through the real server over the simulators, with links the matching engine published from a
// real sync pass. Every figure is recomputed here from the venues' own GET /orderbook answers and their published
// fee formulas (test/support/fee-models.ts): each leg's walk, fee and net cost, the totals, the best single venue
// (also as GET /execution-price prices it), and that no split of the order between the two venues on a 0.01 grid
// (each part at least its venue's minimum) costs less; again after the simulators move their books. Venues that
// cannot be routed are named with the reason; parameters are checked.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ExchangeId } from '../../../src/domain/exchanges.js';
import type { Market } from '../../../src/domain/market.js';
import { LinksRepo } from '../../../src/store/links-repo.js';
import {
  assertSelectorErrors,
  type CatalogueServer,
  simControl,
  startCatalogueServer,
} from '../../support/catalogue.js';
import { assertError } from '../../support/error-shape.js';
import { type FeeModel, feeModelOf } from '../../support/fee-models.js';

type Level = [number, number];
interface Leg {
  exchange: ExchangeId;
  svc_id: string;
  market_id: string;
  outcome: string;
  token_id: string;
  side: 'buy' | 'sell';
  order_type: string;
  limit_price: number;
  size: number;
  est_avg_price: number;
  est_fee: number;
  est_net_cost: number;
}
interface Quote {
  svc_id: string;
  outcome: string;
  side: 'buy' | 'sell';
  amount: number;
  legs: Leg[];
  totals: { size: number; est_net_cost: number; est_avg_price: number | null; fully_filled: boolean };
  best_single: {
    exchange: ExchangeId;
    svc_id: string;
    size: number;
    est_net_cost: number;
    fully_filled: boolean;
  } | null;
  savings: number | null;
  excluded: Array<{ exchange: ExchangeId; svc_id: string; reason: string }>;
  decision: {
    books: Array<{
      exchange: ExchangeId;
      svc_id: string;
      outcome: string;
      token_id: string;
      timestamp: string;
      tick_size: number | null;
      min_order_size: number | null;
    }>;
    fee_models: Array<{ exchange: ExchangeId; fee_type: string; is_estimate: boolean }>;
    links: Array<{
      svc_id: string;
      exchange: ExchangeId;
      confidence: number;
      confidence_tier: string;
      inverted: boolean;
    }>;
  };
}

let cat: CatalogueServer;
let links: LinksRepo;
before(async () => {
  cat = await startCatalogueServer(40, { config: { catalogue: { sync: false } } });
  await cat.server.runtime.catalogSync.runAll();
  links = new LinksRepo(cat.server.runtime.store.db);
});
after(async () => {
  await cat?.stop();
});

const market = (svcId: string): Market => cat.markets.get(svcId) as Market;

/** Active polymarket markets with an active HIGH kalshi twin (both take ioc orders and publish their fees). */
async function pairs(): Promise<Array<{ poly: Market; kalshi: Market; others: string[] }>> {
  const out: Array<{ poly: Market; kalshi: Market; others: string[] }> = [];
  for (const m of [...cat.markets.values()].sort((a, b) => (a.svc_id < b.svc_id ? -1 : 1))) {
    if (m.exchange !== 'polymarket' || m.status !== 'active' || !m.outcomes.every((o) => o.token_id))
      continue;
    const twins = (await links.twins(m.svc_id)).filter(
      (l) => l.status === 'active' && l.confidence_tier === 'HIGH',
    );
    const k = twins.find((t) => t.exchange === 'kalshi');
    if (k)
      out.push({
        poly: m,
        kalshi: market(k.svc_id),
        others: twins.filter((t) => t !== k).map((t) => t.svc_id),
      });
  }
  assert.ok(out.length >= 2, 'the world lists propositions on polymarket and kalshi');
  return out;
}

async function book(m: Market): Promise<{ bids: Level[]; asks: Level[] }> {
  const res = await cat.server.request(
    `/api/v1/orderbook?svc_id=${encodeURIComponent(m.svc_id)}&outcome=yes&limit=100`,
  );
  assert.equal(res.status, 200, res.text);
  return res.body as { bids: Level[]; asks: Level[] };
}

async function quote(query: string): Promise<Quote> {
  const res = await cat.server.request(`/api/v1/route/quote?${query}`);
  assert.equal(res.status, 200, `${query}: ${res.text}`);
  return res.body as Quote;
}

/** A walk of `amount` on float levels: fills, filled, Σ p×s. */
function walk(levels: Level[], amount: number) {
  let left = Math.round(amount * 1e6);
  const fills: Level[] = [];
  let cost = 0;
  for (const [p, s] of levels) {
    if (left <= 0) break;
    const take = Math.min(Math.round(s * 1e6), left);
    fills.push([p, take / 1e6]);
    cost += p * (take / 1e6);
    left -= take;
  }
  return { fills, filled: Math.round(amount * 1e6 - left) / 1e6, cost };
}

const close = (a: number, b: number, eps = 1e-6) => Math.abs(a - b) <= eps;

/** The quote, with both venues' books read before and after it and found unchanged. */
async function bracketed(query: string, ms: Market[]) {
  for (let attempt = 0; attempt < 50; attempt++) {
    const before = await Promise.all(ms.map(book));
    const got = await quote(query);
    const after = await Promise.all(ms.map(book));
    if (JSON.stringify(before) === JSON.stringify(after)) return { got, books: before };
  }
  assert.fail('the books never held still');
}

async function checkQuote(
  poly: Market,
  kalshi: Market,
  side: 'buy' | 'sell',
  amount: number,
): Promise<Quote> {
  const ms = [poly, kalshi];
  const q = `svc_id=${encodeURIComponent(poly.svc_id)}&side=${side}&amount=${amount}&exchanges=polymarket,kalshi`;
  const { got, books } = await bracketed(q, ms);
  const fees: FeeModel[] = await Promise.all(ms.map((m) => feeModelOf(cat, m)));
  const sideOf = (i: number) =>
    (books[i] as { bids: Level[]; asks: Level[] })[side === 'buy' ? 'asks' : 'bids'];
  /** Net cost of `size` on venue i, as /execution-price signs it, or null below its minimum. */
  const cost = (i: number, size: number) => {
    const w = walk(sideOf(i), size);
    const fee = (fees[i] as FeeModel)(w.fills) ?? Number.NaN;
    return { ...w, fee, net: (side === 'buy' ? w.cost : -w.cost) + fee };
  };
  const mins = ms.map(
    (m, i) => got.decision.books.find((b) => b.svc_id === m.svc_id)?.min_order_size ?? (i < 0 ? 0 : 0),
  );

  // Every leg, recomputed from its book and fee formula.
  for (const leg of got.legs) {
    if (leg.exchange === 'polymarket' && side === 'buy') {
      assert.ok(!belowPolymarketMinimum(leg.size, cost(0, leg.size).fills), 'at least $1 (a marketable buy)');
    }
    const i = ms.findIndex((m) => m.svc_id === leg.svc_id);
    assert.ok(i >= 0, leg.svc_id);
    const mine = cost(i, leg.size);
    assert.equal(leg.exchange, ms[i]?.exchange);
    assert.equal(leg.market_id, ms[i]?.exchange_market_id);
    assert.equal(leg.side, side);
    assert.equal(leg.order_type, 'ioc');
    assert.ok(close(mine.filled, leg.size), 'the book holds the leg');
    assert.ok(
      close(leg.est_avg_price, mine.cost / leg.size),
      `avg ${leg.est_avg_price} vs ${mine.cost / leg.size}`,
    );
    assert.ok(close(leg.est_fee, mine.fee), `${leg.exchange} fee ${leg.est_fee} vs ${mine.fee}`);
    assert.ok(close(leg.est_net_cost, mine.net), `net ${leg.est_net_cost} vs ${mine.net}`);
    assert.equal(leg.limit_price, mine.fills.at(-1)?.[0], 'the limit is the last level reached');
    assert.ok(Math.abs(leg.size * 100 - Math.round(leg.size * 100)) < 1e-9, 'whole 0.01 lots');
    assert.ok(leg.size >= (mins[i] ?? 0), 'at least the minimum order');
  }
  const total = got.legs.reduce((s, l) => s + l.est_net_cost, 0);
  assert.ok(close(got.totals.est_net_cost, total));
  assert.ok(
    close(
      got.totals.size,
      got.legs.reduce((s, l) => s + l.size, 0),
    ),
  );

  // The best single venue, as this test and as GET /execution-price price it.
  const singles = ms
    .map((_, i) => ({ i, ...cost(i, amount) }))
    .filter((s) => s.filled >= (mins[s.i] ?? 0) && s.filled > 0);
  singles.sort((a, b) => b.filled - a.filled || a.net - b.net);
  const best = singles[0];
  if (best) {
    assert.equal(got.best_single?.svc_id, ms[best.i]?.svc_id);
    assert.ok(close(got.best_single?.est_net_cost ?? Number.NaN, best.net));
    const est = await cat.server.request(
      `/api/v1/execution-price?svc_id=${encodeURIComponent((ms[best.i] as Market).svc_id)}&side=${side}&amount=${amount}`,
    );
    const e = est.body as { net_cost: number | null; fully_filled: boolean };
    if (e.fully_filled)
      assert.ok(close(e.net_cost ?? Number.NaN, best.net), 'the same figure as /execution-price');
  }

  // No split of the same fill between the two venues, on the 0.01 grid, costs less.
  if (got.totals.fully_filled) {
    const cents = Math.round(amount * 100);
    let cheapest = Number.POSITIVE_INFINITY;
    for (let c = 0; c <= cents; c++) {
      const parts = [c / 100, (cents - c) / 100];
      if (parts.some((p, i) => p > 0 && p < (mins[i] ?? 0))) continue;
      const priced = parts.map((p, i) => (p === 0 ? { filled: 0, net: 0 } : cost(i, p)));
      if (!priced.every((p, i) => close(p.filled, parts[i] as number))) continue;
      if (side === 'buy' && parts[0] && belowPolymarketMinimum(parts[0], cost(0, parts[0]).fills)) continue;
      cheapest = Math.min(
        cheapest,
        priced.reduce((s, p) => s + p.net, 0),
      );
    }
    assert.ok(
      got.totals.est_net_cost <= cheapest + 1e-6,
      `route ${got.totals.est_net_cost} vs best split ${cheapest}`,
    );
    if (got.best_single?.fully_filled) {
      assert.ok(close(got.savings ?? Number.NaN, got.best_single.est_net_cost - got.totals.est_net_cost));
      assert.ok((got.savings ?? -1) >= -1e-9, 'routing never costs more than the best single venue');
    }
  }

  // The decision record: both books with their times, both fee models, the link used.
  assert.deepEqual(
    got.decision.books.map((b) => b.svc_id),
    [poly.svc_id, kalshi.svc_id],
  );
  assert.deepEqual(
    got.decision.fee_models.map((f) => f.exchange),
    ['polymarket', 'kalshi'],
  );
  const link = got.decision.links.find((l) => l.svc_id === kalshi.svc_id);
  assert.equal(link?.confidence_tier, 'HIGH');
  return got;
}

/** An amount past the best level of both books' side, so a good split uses both. */
async function spanning(poly: Market, kalshi: Market, side: 'buy' | 'sell'): Promise<number> {
  const [a, b] = await Promise.all([book(poly), book(kalshi)]);
  const s = (x: { bids: Level[]; asks: Level[] }) => (side === 'buy' ? x.asks : x.bids);
  const top = (s(a)[0]?.[1] ?? 0) + (s(b)[0]?.[1] ?? 0);
  return Math.max(1, Math.min(Math.round(top * 1.5 * 100) / 100, 60));
}

test('a buy and a sell split across polymarket and kalshi, every figure recomputed; optimal on the grid', async () => {
  const [pair] = await pairs();
  assert.ok(pair);
  for (const side of ['buy', 'sell'] as const) {
    const amount = await spanning(pair.poly, pair.kalshi, side);
    const got = await checkQuote(pair.poly, pair.kalshi, side, amount);
    assert.equal(got.amount, amount);
    assert.ok(got.legs.length >= 1);
  }
});

/**
 * Polymarket refuses a marketable (FOK/FAK) buy whose pUSD amount, size × limit rounded down to cents, is under $1
 * ("invalid amount for a marketable BUY order ($x), min size: 1"): the limit is the last level the walk reaches.
 */
function belowPolymarketMinimum(size: number, fills: Level[]): boolean {
  const limit = fills.at(-1)?.[0] ?? 0;
  return Math.floor(Math.round(size * limit * 1e6) / 1e4) / 100 < 1;
}

test('after the simulators move both books, the quote follows them', async () => {
  const [, pair] = await pairs();
  assert.ok(pair);
  const amount = await spanning(pair.poly, pair.kalshi, 'buy');
  const first = await checkQuote(pair.poly, pair.kalshi, 'buy', amount);
  await simControl(cat, 'polymarket', 'POST', 'advance', { steps: 5 });
  await simControl(cat, 'kalshi', 'POST', 'advance', { steps: 5 });
  const moved = await checkQuote(pair.poly, pair.kalshi, 'buy', amount);
  assert.notDeepEqual(moved.decision.books, first.decision.books, 'the books moved');
  // max_legs=1: the best single venue's order.
  const one = await quote(
    `svc_id=${encodeURIComponent(pair.poly.svc_id)}&side=buy&amount=${amount}&exchanges=polymarket,kalshi&max_legs=1`,
  );
  assert.equal(one.legs.length, 1);
  assert.equal(one.legs[0]?.svc_id, moved.best_single?.svc_id);
  assert.ok(close(one.totals.est_net_cost, moved.best_single?.est_net_cost ?? Number.NaN));
});

test('venues that cannot be routed are named with the reason', async () => {
  const all = await pairs();
  const pair = all.find((p) => p.others.length > 0) ?? all[0];
  assert.ok(pair);
  const svc = encodeURIComponent(pair.poly.svc_id);
  // No exchanges: only venues this key can trade; the admin key has no credentials anywhere.
  const none = await quote(`svc_id=${svc}&side=buy&amount=5`);
  assert.equal(none.legs.length, 0);
  assert.equal(none.totals.size, 0);
  assert.equal(none.best_single, null);
  const reasons = new Map(none.excluded.map((e) => [e.svc_id, e.reason]));
  assert.match(reasons.get(pair.poly.svc_id) ?? '', /credentials/);
  assert.match(reasons.get(pair.kalshi.svc_id) ?? '', /credentials/);
  for (const other of pair.others) {
    const ex = market(other).exchange;
    // An exchange that takes orders at all (its descriptor says) is left out for want of credentials first.
    const trades = cat.sims.get(ex)?.adapter.descriptor.has.create_order !== 'unsupported';
    assert.match(reasons.get(other) ?? '', trades ? /credentials/ : /takes no orders/);
  }
  // Named exchanges: quoting needs no credentials; one that takes no immediate orders is left out, saying so.
  const named = await quote(
    `svc_id=${svc}&side=buy&amount=5&exchanges=polymarket,kalshi,opinion,limitless,predictfun`,
  );
  // Opinion takes only resting orders (gtc, gtd); Limitless publishes no fee curve; Predict.fun has both.
  for (const other of pair.others) {
    const ex = market(other).exchange;
    const reason = named.excluded.find((e) => e.svc_id === other)?.reason;
    if (ex === 'opinion') assert.match(reason ?? '', /no immediate/);
    else if (ex === 'limitless') assert.match(reason ?? '', /does not publish the fee/);
    else if (reason !== undefined) assert.doesNotMatch(reason, /no immediate|does not publish the fee/);
  }
  const onlyKalshi = await quote(`svc_id=${svc}&side=buy&amount=5&exchanges=kalshi`);
  assert.equal(
    onlyKalshi.excluded.find((e) => e.svc_id === pair.poly.svc_id)?.reason,
    'not among the exchanges asked for',
  );
  assert.ok(onlyKalshi.legs.every((l) => l.exchange === 'kalshi'));
});

test('parameters: side, amount, max_legs, exchanges, min_tier; selector errors', async () => {
  const [pair] = await pairs();
  assert.ok(pair);
  const svc = encodeURIComponent(pair.poly.svc_id);
  const bad = async (query: string, status: number, code: string) =>
    assertError(await cat.server.request(`/api/v1/route/quote?svc_id=${svc}&${query}`), status, code);
  await bad('amount=1', 400, 'missing_parameter');
  await bad('side=buy', 400, 'missing_parameter');
  for (const amount of ['0', '-1', '1e3', '1.1234567', 'x'])
    await bad(`side=buy&amount=${amount}`, 400, 'validation_error');
  await bad('side=buy&amount=1&max_legs=0', 400, 'validation_error');
  await bad('side=buy&amount=1&max_legs=6', 400, 'validation_error');
  await bad('side=buy&amount=1&min_tier=ANY', 400, 'validation_error');
  await bad('side=buy&amount=1&exchanges=nowhere', 404, 'exchange_not_found');
  await assertSelectorErrors(cat, '/api/v1/route/quote?side=buy&amount=1', pair.poly.svc_id);
});

test('both cross-venue routes are in /openapi.json with their query and response schemas', async () => {
  const doc = (await cat.server.request('/openapi.json', { key: null })).body as {
    paths: Record<
      string,
      { get?: { parameters?: Array<{ name: string }>; responses?: Record<string, unknown> } }
    >;
  };
  for (const [path, params] of [
    ['/api/v1/orderbook/consolidated', ['svc_id', 'outcome', 'limit', 'min_tier']],
    ['/api/v1/route/quote', ['svc_id', 'outcome', 'side', 'amount', 'exchanges', 'max_legs', 'min_tier']],
  ] as const) {
    const get = doc.paths[path]?.get;
    assert.ok(get?.responses?.['200'], `${path} documented`);
    const names = (get.parameters ?? []).map((p) => p.name);
    for (const p of params) assert.ok(names.includes(p), `${path} documents ${p}`);
  }
});

test('without exchanges, a customer onboarded on kalshi only is routed on kalshi; polymarket is named as lacking credentials', async () => {
  const [pair] = await pairs();
  assert.ok(pair);
  const { key } = await cat.server.runtime.keys.create({ name: 'route quote', tier: 'pro' });
  const sim = cat.sims.get('kalshi');
  assert.ok(sim?.createAccount);
  const onboarded = await cat.server.request('/api/v1/onboard', {
    method: 'POST',
    key,
    body: { exchange: 'kalshi', mode: 'self', ...(await sim.createAccount()).credentials },
  });
  assert.equal(onboarded.status, 200, onboarded.text);
  const amount = await spanning(pair.poly, pair.kalshi, 'buy');
  const res = await cat.server.request(
    `/api/v1/route/quote?svc_id=${encodeURIComponent(pair.poly.svc_id)}&side=buy&amount=${amount}`,
    { key },
  );
  assert.equal(res.status, 200, res.text);
  const got = res.body as Quote;
  assert.ok(got.legs.length > 0 && got.legs.every((l) => l.exchange === 'kalshi'), JSON.stringify(got.legs));
  assert.match(got.excluded.find((e) => e.svc_id === pair.poly.svc_id)?.reason ?? '', /credentials/);
  assert.ok(!got.excluded.some((e) => e.svc_id === pair.kalshi.svc_id));
  // The same figures as quoting kalshi alone by name.
  const named = await quote(
    `svc_id=${encodeURIComponent(pair.poly.svc_id)}&side=buy&amount=${amount}&exchanges=kalshi`,
  );
  assert.deepEqual(
    got.legs.map((l) => [l.size, l.est_net_cost]),
    named.legs.map((l) => [l.size, l.est_net_cost]),
  );
});

test('a venue that fails is left out with its error; the rest is still routed', async () => {
  const all = await pairs();
  // A pair no other test asked for, so neither book is cached or followed on a stream.
  const used = new Set([all[0], all[1], all.find((p) => p.others.length > 0)]);
  const pair = all.filter((p) => !used.has(p)).at(-1);
  assert.ok(pair, 'a pair the other tests leave alone');
  await simControl(cat, 'kalshi', 'POST', 'faults', { error_rate: 1, error_status: 500 });
  try {
    const got = await quote(
      `svc_id=${encodeURIComponent(pair.poly.svc_id)}&side=buy&amount=5&exchanges=polymarket,kalshi`,
    );
    assert.match(
      got.excluded.find((e) => e.svc_id === pair.kalshi.svc_id)?.reason ?? '',
      /service_unavailable/,
    );
    assert.ok(got.legs.every((l) => l.exchange === 'polymarket'));
    assert.deepEqual(
      got.decision.books.map((b) => b.svc_id),
      [pair.poly.svc_id],
    );
  } finally {
    await simControl(cat, 'kalshi', 'DELETE', 'faults');
  }
});
