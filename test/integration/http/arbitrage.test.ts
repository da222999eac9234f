// GET /api/v1/arbitrage and the `arbitrage` WebSocket channel through the real server over the simulators, with
// links the matching engine published from a real sync pass over the sandbox world (the same propositions on
// several venues). Spreads are opened and closed by moving the books with the exchanges' own means: a Kalshi paper
// account's resting Yes bid (placed and cancelled through our API) is a cheap No ask there, against Polymarket's
// Yes ask. Every figure of an opportunity (each leg's average and worst price and fee, cost, net profit and edge
// at each size, the largest profitable size) is recomputed here from the venues' raw books (read from the
// simulators through their adapters) and the fee formulas written in test/support/fee-models.ts, with a brute
// force over every whole size. A venue that fails produces no opportunity; a stream that drops closes its
// opportunities (book_stale) on the WebSocket; open → update → close each carry the next server_seq.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { BookLevel } from '../../../src/domain/book.js';
import type { ExchangeId } from '../../../src/domain/exchanges.js';
import type { Market } from '../../../src/domain/market.js';
import { LinksRepo } from '../../../src/store/links-repo.js';
import {
  type CatalogueServer,
  simControl,
  startCatalogueServer,
  venueContext,
} from '../../support/catalogue.js';
import { assertError } from '../../support/error-shape.js';
import { type FeeModel, feeModelOf } from '../../support/fee-models.js';
import { type WsMessage, WsTestClient } from '../../support/ws-client.js';

interface Leg {
  svc_id: string;
  exchange: ExchangeId;
  market_id: string;
  outcome: string;
  side: 'buy';
  token_id: string;
  best_price: number;
  best_size: number;
  depth: number;
  book_ts: string;
  book_state: string;
  fee_model: { exchange: string; fee_type: string };
}
interface Point {
  size: number;
  total_cost: number;
  net_profit: number;
  edge_bps: number;
  legs: Array<{ avg_price: number; worst_price: number; fee: number }>;
}
interface Opportunity {
  id: string;
  legs: [Leg, Leg];
  edge_bps: number;
  edge_curve: Point[];
  max_profitable_size: number | null;
  max_net_profit: number | null;
  link: {
    svc_id: string;
    linked_svc_id: string;
    confidence: number;
    confidence_tier: string;
    inverted: boolean;
  };
  link_confidence: number;
  resolution_check: { checked: boolean; comparable: boolean | null; differences: string[] };
  unsafe: boolean;
}
interface Listing {
  opportunities: Opportunity[];
  pagination: { count: number; total: number; has_more: boolean; next_cursor?: string };
  scan: {
    exchanges: ExchangeId[];
    pairs: number;
    books: number;
    failed: Array<{ svc_id: string; exchange: ExchangeId; error: { code: string } }>;
    skipped: unknown[];
  };
}

let cat: CatalogueServer;
let kalshiHeader: string;
const clients: WsTestClient[] = [];

before(async () => {
  cat = await startCatalogueServer(40, {
    config: { catalogue: { sync: false }, websocket: { heartbeatMs: 200 } },
  });
  await cat.server.runtime.catalogSync.runAll();
  const sim = cat.sims.get('kalshi');
  assert.ok(sim?.createAccount);
  kalshiHeader = Buffer.from(JSON.stringify((await sim.createAccount()).credentials)).toString('base64');
});
after(async () => {
  for (const c of clients) c.close();
  await cat?.stop();
});

const market = (svcId: string): Market => cat.markets.get(svcId) as Market;
const yesOf = (m: Market) => m.outcomes.find((o) => o.name.toLowerCase() === 'yes')?.name as string;
const noOf = (m: Market) => m.outcomes.find((o) => o.name.toLowerCase() === 'no')?.name as string;

/** Active yes/no polymarket markets with an active HIGH kalshi twin asked the same way round. */
async function pairs(): Promise<Array<{ poly: Market; kalshi: Market }>> {
  const links = new LinksRepo(cat.server.runtime.store.db);
  const out: Array<{ poly: Market; kalshi: Market }> = [];
  for (const m of [...cat.markets.values()].sort((a, b) => (a.svc_id < b.svc_id ? -1 : 1))) {
    if (m.exchange !== 'polymarket' || m.status !== 'active' || m.outcomes.length !== 2) continue;
    if (!m.outcomes.every((o) => o.token_id)) continue;
    const k = (await links.twins(m.svc_id)).find(
      (l) => l.exchange === 'kalshi' && l.status === 'active' && l.confidence_tier === 'HIGH' && !l.inverted,
    );
    if (k && market(k.svc_id).outcomes.length === 2) out.push({ poly: m, kalshi: market(k.svc_id) });
  }
  assert.ok(out.length >= 3, 'the world lists propositions on polymarket and kalshi');
  return out;
}

/** One outcome's book straight from its simulator (through its adapter: the server's caches stay untouched). */
async function rawBook(m: Market, outcome: string): Promise<{ bids: BookLevel[]; asks: BookLevel[] }> {
  const sim = cat.sims.get(m.exchange);
  assert.ok(sim?.adapter.marketData.fetchOrderBook);
  const book = await sim.adapter.marketData.fetchOrderBook(venueContext(), m, outcome);
  return { bids: book.bids, asks: book.asks };
}

async function list(query: string): Promise<Listing> {
  const res = await cat.server.request(`/api/v1/arbitrage?${query}`);
  assert.equal(res.status, 200, `${query}: ${res.text}`);
  return res.body as Listing;
}

async function kalshiOrder(m: Market, price: number, size: number): Promise<string> {
  const res = await cat.server.request('/api/v1/orders?exchange=kalshi', {
    method: 'POST',
    headers: { 'x-exchange-credentials': kalshiHeader },
    body: { market_id: m.exchange_market_id, outcome: yesOf(m), side: 'buy', price, size },
  });
  assert.equal(res.status, 200, res.text);
  return (res.body as { id: string }).id;
}

async function cancel(id: string): Promise<void> {
  const res = await cat.server.request(`/api/v1/orders/${encodeURIComponent(id)}?exchange=kalshi`, {
    method: 'DELETE',
    headers: { 'x-exchange-credentials': kalshiHeader },
  });
  assert.equal(res.status, 200, res.text);
}

/**
 * Opens a spread: a Kalshi Yes bid 6 cents above Polymarket's best Yes ask (what Kalshi's asks below it hold is
 * bought first; the rest rests), so Kalshi's No asks start 6 cents under Polymarket's No side of the bet.
 */
async function openSpread(pair: { poly: Market; kalshi: Market }, extra = 0): Promise<string> {
  const polyAsk = (await rawBook(pair.poly, yesOf(pair.poly))).asks[0]?.[0];
  assert.ok(polyAsk !== undefined && polyAsk < 0.9, 'polymarket has a yes ask to beat');
  const price = Math.round((polyAsk + 0.06 + extra) * 100) / 100;
  const kalshiAsks = (await rawBook(pair.kalshi, yesOf(pair.kalshi))).asks;
  const crossed = kalshiAsks.filter(([p]) => p <= price).reduce((s, [, q]) => s + q, 0);
  return kalshiOrder(pair.kalshi, price, Math.ceil(crossed) + 40);
}

/** The direction of a pair that buys polymarket's Yes and kalshi's No. */
function polyYesKalshiNo(o: Opportunity, pair: { poly: Market; kalshi: Market }): boolean {
  const poly = o.legs.find((l) => l.svc_id === pair.poly.svc_id);
  const kalshi = o.legs.find((l) => l.svc_id === pair.kalshi.svc_id);
  return poly?.outcome === yesOf(pair.poly) && kalshi?.outcome === noOf(pair.kalshi);
}

const close = (a: number, b: number, eps = 1e-9) => Math.abs(a - b) <= eps;

/** Cost of buying `size` on float asks, with the fee model: null past the depth. */
function buy(asks: BookLevel[], fee: FeeModel, size: number) {
  let left = size;
  let notional = 0;
  const fills: Array<[number, number]> = [];
  for (const [p, s] of asks) {
    if (left <= 0) break;
    const take = Math.min(s, left);
    fills.push([p, take]);
    notional += p * take;
    left -= take;
  }
  if (left > 1e-9) return null;
  const f = fee(fills);
  assert.ok(f !== null, 'the fee is published');
  return { notional, fee: f, worst: fills.at(-1)?.[0] as number };
}

/**
 * Every figure of `o` recomputed from the two legs' raw books and fee formulas; the largest profitable size by
 * brute force over every whole size the books hold.
 */
async function recompute(o: Opportunity, books: Array<{ asks: BookLevel[] }>): Promise<void> {
  const fees = await Promise.all(o.legs.map((l) => feeModelOf(cat, market(l.svc_id))));
  const cost = (size: number) => {
    const legs = o.legs.map((_, i) =>
      buy((books[i] as { asks: BookLevel[] }).asks, fees[i] as FeeModel, size),
    );
    if (legs.some((l) => l === null)) return null;
    const ls = legs as Array<NonNullable<(typeof legs)[number]>>;
    const total = ls.reduce((s, l) => s + l.notional + l.fee, 0);
    return { legs: ls, total, profit: size - total };
  };
  for (const [i, l] of o.legs.entries()) {
    const asks = (books[i] as { asks: BookLevel[] }).asks;
    assert.equal(l.best_price, asks[0]?.[0], `${l.svc_id} best ask`);
    assert.equal(l.best_size, asks[0]?.[1]);
    assert.ok(
      close(
        l.depth,
        asks.reduce((s, [, q]) => s + q, 0),
        1e-6,
      ),
    );
    assert.equal(l.side, 'buy');
    assert.equal(l.book_state, 'fresh');
    assert.ok(!Number.isNaN(Date.parse(l.book_ts)));
    assert.equal(l.exchange, market(l.svc_id).exchange);
    assert.equal(l.market_id, market(l.svc_id).exchange_market_id);
  }
  const depth = Math.floor(Math.min(o.legs[0].depth, o.legs[1].depth) + 1e-9);
  let largest: number | null = null;
  for (let s = 1; s <= depth; s++) if ((cost(s)?.profit ?? 0) > 1e-9) largest = s;
  assert.equal(o.max_profitable_size, largest, 'largest profitable size');
  const sizes = [1, 10, 100, 1000].filter((s) => s <= depth);
  if (largest !== null && !sizes.includes(largest)) sizes.push(largest);
  assert.deepEqual(
    o.edge_curve.map((p) => p.size),
    sizes.sort((a, b) => a - b),
  );
  for (const p of o.edge_curve) {
    const want = cost(p.size);
    assert.ok(want);
    assert.ok(close(p.total_cost, want.total, 1e-6), `cost at ${p.size}: ${p.total_cost} vs ${want.total}`);
    assert.ok(close(p.net_profit, want.profit, 1e-6), `profit at ${p.size}`);
    assert.ok(close(p.edge_bps, (want.profit / p.size) * 10_000, 1e-3), `edge at ${p.size}`);
    for (const [i, l] of p.legs.entries()) {
      const w = want.legs[i] as NonNullable<(typeof want.legs)[number]>;
      assert.ok(close(l.fee, w.fee, 1e-6), `${o.legs[i]?.exchange} fee at ${p.size}: ${l.fee} vs ${w.fee}`);
      assert.ok(close(l.avg_price, w.notional / p.size, 1e-9));
      assert.equal(l.worst_price, w.worst);
    }
  }
  if (largest !== null) {
    assert.ok(close(o.max_net_profit ?? Number.NaN, cost(largest)?.profit ?? Number.NaN, 1e-6));
  }
  assert.equal(o.edge_bps, Math.max(...o.edge_curve.map((p) => p.edge_bps)));
}

/** The listing and both legs' raw books, read before and after it and found unchanged. */
async function bracketed(query: string, pick: (l: Listing) => Opportunity | undefined) {
  for (let attempt = 0; attempt < 40; attempt++) {
    // The server's copy of a book follows the venue's stream (or its short cache): an order just placed shows up
    // a moment later, so the listing is read again until it does (bounded).
    const found = pick(await list(query));
    if (!found) {
      await new Promise((r) => setTimeout(r, 100));
      continue;
    }
    const read = () => Promise.all(found.legs.map((l) => rawBook(market(l.svc_id), l.outcome)));
    const books = await read();
    const again = pick(await list(query));
    if (
      again &&
      JSON.stringify(again.legs.map((l) => [l.best_price, l.depth])) ===
        JSON.stringify(found.legs.map((l) => [l.best_price, l.depth])) &&
      JSON.stringify(books) === JSON.stringify(await read())
    ) {
      return { opportunity: again, books };
    }
  }
  assert.fail('the opportunity was never listed on books that held still');
}

// A subscription opened after a REST answer (which warms the book and fee-schedule caches the two paths share)
// sees the same opportunities open and close: nothing the REST path leaves behind counts as already told.
test('WebSocket after a REST /arbitrage answer: the spread opens, then closes saying why', async () => {
  const [, pair] = await pairs();
  assert.ok(pair);
  const query = 'exchanges=polymarket,kalshi';
  const first = await list(query);
  assert.ok(!first.opportunities.some((o) => polyYesKalshiNo(o, pair)), 'no spread before');
  assert.ok(first.scan.books > 0);
  const client = await authed();
  client.send({ type: 'subscribe', arbitrage: { exchanges: ['polymarket', 'kalshi'] } });
  const ready = await client.next((m) => arbitrage(m) && m.kind === 'ready');
  assert.equal(ready.server_seq, 1);
  assert.equal(ready.pairs, first.scan.pairs);
  const order = await openSpread(pair);
  let closedOk = false;
  try {
    const opened = await client.next(
      (m) =>
        arbitrage(m) &&
        m.kind === 'open' &&
        polyYesKalshiNo((m.opportunity ?? { legs: [] }) as Opportunity, pair),
    );
    const o = opened.opportunity as Opportunity;
    await recompute(o, await Promise.all(o.legs.map((l) => rawBook(market(l.svc_id), l.outcome))));
    // The REST answer lists the same opportunity under the same id.
    const listed = await bracketed(query, (l) => l.opportunities.find((x) => x.id === o.id));
    assert.equal(listed.opportunity.id, o.id);
    const from = client.mark;
    await cancel(order);
    closedOk = true;
    const closed = await client.next((m) => arbitrage(m) && m.kind === 'close' && m.id === o.id, from);
    assert.equal(closed.reason, 'edge_gone');
    assert.equal((closed.opportunity as Opportunity).id, o.id);
    const seqs = client.messages.filter(arbitrage).map((m) => m.server_seq as number);
    assert.deepEqual(
      seqs,
      seqs.map((_, i) => i + 1),
    );
  } finally {
    if (!closedOk) await cancel(order);
    client.close();
  }
});

test('a spread opened on kalshi is listed with every figure recomputed; cancelling it closes it', async () => {
  const [pair] = await pairs();
  assert.ok(pair);
  const query = 'exchanges=polymarket,kalshi';
  const before = await list(query);
  assert.ok(!before.opportunities.some((o) => polyYesKalshiNo(o, pair)), 'no spread before');
  assert.deepEqual(before.scan.exchanges, ['kalshi', 'polymarket']);
  const order = await openSpread(pair);
  try {
    const { opportunity: o, books } = await bracketed(query, (l) =>
      l.opportunities.find((x) => polyYesKalshiNo(x, pair)),
    );
    await recompute(o, books);
    assert.ok(o.max_profitable_size !== null && o.max_profitable_size >= 1);
    assert.ok(o.edge_bps > 0);
    // The link used, and its resolution check: not compared yet, and said so.
    assert.equal(o.link.confidence_tier, 'HIGH');
    assert.deepEqual(
      [o.link.svc_id, o.link.linked_svc_id].sort(),
      [pair.poly.svc_id, pair.kalshi.svc_id].sort(),
    );
    assert.equal(o.link_confidence, o.link.confidence);
    // The link's resolution check, as the matcher stored it: only `unknown` (a side states less) is not unsafe.
    const twin = (await new LinksRepo(cat.server.runtime.store.db).twins(pair.poly.svc_id)).find(
      (l) => l.svc_id === pair.kalshi.svc_id,
    );
    const stored = twin?.resolution_check ?? null;
    const known = (stored?.differences ?? []).filter((d) => d !== 'unknown');
    assert.equal(o.resolution_check.checked, stored !== null);
    assert.deepEqual(o.resolution_check.differences, stored?.differences ?? []);
    assert.equal(
      o.resolution_check.comparable,
      stored === null ? null : known.length > 0 ? false : stored.differences.length === 0 ? true : null,
    );
    assert.equal(o.unsafe, false, 'an unsafe pair is not listed without include_unsafe');
    // Fee models named per leg.
    assert.deepEqual(o.legs.map((l) => l.fee_model.exchange).sort(), ['kalshi', 'polymarket']);
    // The same id on every answer; the other direction costs more than the payout.
    const again = await list(query);
    assert.equal(again.opportunities.find((x) => polyYesKalshiNo(x, pair))?.id, o.id);
    assert.ok(
      !again.opportunities.some(
        (x) =>
          x.id !== o.id && x.legs.every((l) => [pair.poly.svc_id, pair.kalshi.svc_id].includes(l.svc_id)),
      ),
    );
    // Filters: an edge floor above it, a size past the books, exchanges without kalshi.
    assert.ok(
      !(await list(`${query}&min_edge_bps=${Math.ceil(o.edge_bps) + 1}`)).opportunities.some(
        (x) => x.id === o.id,
      ),
    );
    assert.ok(
      (await list(`${query}&min_edge_bps=${Math.floor(o.edge_bps) - 1}`)).opportunities.some(
        (x) => x.id === o.id,
      ),
    );
    const deep = Math.floor(Math.min(o.legs[0].depth, o.legs[1].depth));
    assert.ok(!(await list(`${query}&min_size=${deep + 1}`)).opportunities.some((x) => x.id === o.id));
    const sized = (await list(`${query}&min_size=5`)).opportunities.find((x) => x.id === o.id);
    if (sized) assert.equal(sized.edge_curve[0]?.size, 5);
    assert.ok(!(await list('exchanges=polymarket,predictfun')).opportunities.some((x) => x.id === o.id));
    // Near misses: a negative floor lists every priced direction, the unprofitable with no profitable size.
    const all = await list(`${query}&min_edge_bps=-10000&limit=200`);
    assert.ok(all.pagination.total > before.pagination.total);
    assert.ok(all.opportunities.some((x) => x.max_profitable_size === null && x.edge_bps <= 0));
    // Pages: limit 1 with the cursor walks the same list in the same order.
    const walked: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 500; i++) {
      const page = await list(
        `${query}&min_edge_bps=-10000&limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      walked.push(...page.opportunities.map((x) => x.id));
      cursor = page.pagination.next_cursor;
      if (!page.pagination.has_more) break;
    }
    assert.deepEqual(
      walked,
      all.opportunities.map((x) => x.id),
    );
  } finally {
    await cancel(order);
  }
  // A book read in the last half second may still be served from the short REST cache (as GET /orderbook would).
  let gone = false;
  for (let i = 0; i < 20 && !gone; i++) {
    gone = !(await list(query)).opportunities.some((o) => polyYesKalshiNo(o, pair));
    if (!gone) await new Promise((r) => setTimeout(r, 200));
  }
  assert.ok(gone, 'cancelled: the spread is gone');
});

test('parameters: bad values are 400s; an exchange without fetch_arbitrage is 501, an unknown one 404', async () => {
  for (const q of [
    'min_edge_bps=x',
    'min_edge_bps=20000',
    'min_size=0',
    'limit=0',
    'limit=201',
    'min_tier=ANY',
    'include_unsafe=maybe',
    'cursor=nonsense',
    'other=1',
  ]) {
    assertError(await cat.server.request(`/api/v1/arbitrage?${q}`), 400, 'validation_error');
  }
  assertError(await cat.server.request('/api/v1/arbitrage?exchanges=nowhere'), 404, 'exchange_not_found');
  const refused = assertError(
    await cat.server.request('/api/v1/arbitrage?exchanges=opinion'),
    501,
    'not_supported',
  );
  assert.match(String(refused.error), /fetch_arbitrage/);
  const exchanges = (await cat.server.request('/api/v1/exchanges')).body as Array<{
    id: ExchangeId;
    has: Record<string, boolean>;
  }>;
  assert.deepEqual(
    exchanges
      .filter((e) => e.has.fetch_arbitrage)
      .map((e) => e.id)
      .sort(),
    ['kalshi', 'polymarket', 'predictfun'],
  );
  const doc = (await cat.server.request('/openapi.json', { key: null })).body as {
    paths: Record<string, { get?: { parameters?: Array<{ name: string }> } }>;
  };
  const names = (doc.paths['/api/v1/arbitrage']?.get?.parameters ?? []).map((p) => p.name);
  for (const p of ['exchanges', 'min_edge_bps', 'min_size', 'include_unsafe', 'min_tier', 'limit', 'cursor'])
    assert.ok(names.includes(p), `documents ${p}`);
});

async function authed(key = cat.server.adminKey): Promise<WsTestClient> {
  const client = await WsTestClient.open(`${cat.server.url.replace(/^http/, 'ws')}/ws`);
  clients.push(client);
  client.send({ type: 'auth', api_key: key });
  await client.next((m) => m.type === 'auth_ok');
  return client;
}

const arbitrage = (m: WsMessage) => m.type === 'arbitrage';

test('WebSocket: open, update and close as the books move, each with the next server_seq; a dropped stream closes it as book_stale', async () => {
  const [, pair] = await pairs();
  assert.ok(pair);
  const client = await authed();
  client.send({ type: 'subscribe', arbitrage: { exchanges: ['polymarket', 'kalshi'] } });
  const ready = await client.next((m) => arbitrage(m) && m.kind === 'ready');
  assert.equal(ready.server_seq, 1);
  assert.ok((ready.pairs as number) >= 3 && (ready.books as number) >= 4 * 3 - 12, JSON.stringify(ready));
  const ours = (m: WsMessage) =>
    arbitrage(m) && polyYesKalshiNo((m.opportunity ?? { legs: [] }) as Opportunity, pair);
  const first = await openSpread(pair);
  const opened = await client.next((m) => ours(m) && m.kind === 'open');
  const o = opened.opportunity as Opportunity;
  await recompute(o, await Promise.all(o.legs.map((l) => rawBook(market(l.svc_id), l.outcome))));
  // A second, higher bid: the first contracts pay more.
  const from = client.mark;
  const second = await openSpread(pair, 0.02);
  const updated = await client.next(
    (m) =>
      ours(m) &&
      m.kind === 'update' &&
      (m.opportunity as Opportunity).edge_curve[0]?.edge_bps !== o.edge_curve[0]?.edge_bps,
    from,
  );
  const u = updated.opportunity as Opportunity;
  assert.equal(u.id, o.id);
  assert.ok((u.edge_curve[0]?.edge_bps ?? 0) > (o.edge_curve[0]?.edge_bps ?? 0));
  await recompute(u, await Promise.all(u.legs.map((l) => rawBook(market(l.svc_id), l.outcome))));
  // The stream drops: nothing is priced on a stale book, and the opportunity closes saying so; it reopens when
  // the book is back.
  const dropFrom = client.mark;
  await simControl(cat, 'kalshi', 'POST', 'ws/drop');
  const stale = await client.next((m) => arbitrage(m) && m.kind === 'close' && m.id === o.id, dropFrom);
  assert.equal(stale.reason, 'book_stale');
  assert.match(String(stale.detail), /not fresh/);
  await client.next(
    (m) => arbitrage(m) && m.kind === 'open' && (m.opportunity as Opportunity).id === o.id,
    dropFrom,
  );
  // Both bids cancelled: the spread is gone.
  const cancelFrom = client.mark;
  await cancel(second);
  await cancel(first);
  const closed = await client.next((m) => arbitrage(m) && m.kind === 'close' && m.id === o.id, cancelFrom);
  assert.equal(closed.reason, 'edge_gone');
  // One sequence, exactly +1 per message.
  const seqs = client.messages.filter(arbitrage).map((m) => m.server_seq as number);
  assert.deepEqual(
    seqs,
    seqs.map((_, i) => i + 1),
  );
  // Unsubscribe, then a new subscription starts its own sequence: nothing of the old one came between. Both frames
  // go after the control bucket (3 a second, burst 3) has room for two: on a quiet machine the steps above take
  // well under a second, and auth + subscribe + these two would otherwise find it short (a 3001, then no ready).
  await new Promise((r) => setTimeout(r, 1_000));
  const unsubFrom = client.mark;
  client.send({ type: 'unsubscribe', arbitrage: true });
  client.send({ type: 'subscribe', arbitrage: { exchanges: ['kalshi', 'polymarket'], min_edge_bps: 50 } });
  const again = await client.next((m) => arbitrage(m) && m.kind === 'ready', unsubFrom);
  assert.equal(again.server_seq, 1);
  assert.deepEqual(
    client.messages
      .slice(unsubFrom)
      .filter(arbitrage)
      .map((m) => m.kind),
    ['ready'],
  );
  client.close();
});

test('WebSocket: the arbitrage subscription counts towards the tier cap; bad filters are refused', async () => {
  const { key } = await cat.server.runtime.keys.create({ name: 'arbitrage free', tier: 'free' });
  const client = await authed(key);
  const ids = [...cat.markets.values()]
    .filter((m) => m.status === 'active' && m.exchange === 'kalshi')
    .slice(0, 5);
  client.send({ type: 'subscribe', markets: ids.map((m) => ({ svc_id: m.svc_id })) });
  for (const m of ids) await client.next((x) => x.type === 'orderbook' && x.svc_id === m.svc_id);
  const from = client.mark;
  client.send({ type: 'subscribe', arbitrage: {} });
  const refused = await client.next((m) => m.type === 'error', from);
  assert.equal(refused.code, 3002);
  // One frame at a time, each after the control bucket (3 a second) has refilled: no 3001 in between.
  const paced = async (message: unknown, match: (m: WsMessage) => boolean) => {
    await new Promise((r) => setTimeout(r, 1_100));
    const at = client.mark;
    client.send(message);
    return client.next(match, at);
  };
  await paced({ type: 'unsubscribe', markets: [{ svc_id: ids[0]?.svc_id }] }, (m) => m.type === 'heartbeat');
  client.send({ type: 'subscribe', arbitrage: { min_edge_bps: 'lots' } });
  const bad = await client.next((m) => m.type === 'error' && m.code === 4000, from);
  assert.match(String(bad.message), /min_edge_bps/);
  client.send({ type: 'subscribe', arbitrage: {} });
  const ok = await client.next((m) => arbitrage(m) && m.kind === 'ready', from);
  assert.equal(ok.server_seq, 1);
  client.close();
});

test('a failing venue produces no opportunity: its books are named in scan.failed', async () => {
  const all = await pairs();
  const pair = all.at(-1);
  assert.ok(pair);
  const order = await openSpread(pair);
  try {
    const listed = await list('exchanges=polymarket,kalshi');
    assert.ok(listed.opportunities.some((o) => polyYesKalshiNo(o, pair)));
    await simControl(cat, 'kalshi', 'POST', 'faults', { error_rate: 1, error_status: 500 });
    try {
      let failing: Listing | null = null;
      // A book read within the last half second may still be served from the short cache; the next is not.
      for (let i = 0; i < 20 && !failing; i++) {
        const got = await list('exchanges=polymarket,kalshi');
        if (got.scan.failed.some((f) => f.svc_id === pair.kalshi.svc_id)) failing = got;
        else await new Promise((r) => setTimeout(r, 300));
      }
      assert.ok(failing, 'the kalshi books fail');
      assert.ok(!failing.opportunities.some((o) => o.legs.some((l) => l.exchange === 'kalshi')));
      assert.ok(failing.scan.failed.every((f) => f.exchange === 'kalshi'));
      assert.ok(failing.scan.failed.some((f) => f.error.code === 'service_unavailable'));
    } finally {
      await simControl(cat, 'kalshi', 'DELETE', 'faults');
    }
  } finally {
    // The venue's circuit may still be open: the order is cancelled once it closes again.
    for (let i = 0; ; i++) {
      const res = await cat.server.request(`/api/v1/orders/${encodeURIComponent(order)}?exchange=kalshi`, {
        method: 'DELETE',
        headers: { 'x-exchange-credentials': kalshiHeader },
      });
      if (res.status === 200 || i > 60) break;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
});
