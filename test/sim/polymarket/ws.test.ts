// The CLOB WebSocket host: market snapshots then deltas that rebuild /book exactly, recorded frame shapes, the user
// channel (own events only), PING/PONG, ws/drop, stall_feed, bad first frames and the idle rule.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type PolymarketSim, startPolymarketSim } from '../../../sim/polymarket/index.js';
import { loadFixture } from '../../support/fixtures.js';
import {
  activeMarkets,
  assertCovers,
  best,
  book,
  clob,
  connect,
  control,
  type MarketRef,
  post,
  type Recorder,
  trader,
  waitFor,
} from './support.js';

type Json = Record<string, unknown>;
let sim: PolymarketSim;
let pool: MarketRef[];
let all: MarketRef[];

before(async () => {
  sim = await startPolymarketSim({ seed: 29, size: 300 });
  all = await activeMarkets(sim);
  pool = all.filter((m) => m.tick === 0.01 && !m.negRisk && m.market.taker_base_fee === 0);
});
after(() => sim.close());

function take(): MarketRef {
  const m = pool.shift();
  assert.ok(m);
  return m;
}

async function subscribe(assets: string[], custom = false): Promise<Recorder> {
  const rec = await connect(sim.urls.wsMarket);
  rec.send({ type: 'market', assets_ids: assets, custom_feature_enabled: custom });
  await waitFor(
    () => rec.events.filter((e) => e.event_type === 'book').length >= assets.length,
    10_000,
    'snapshots',
  );
  return rec;
}

const byType = (rec: Recorder, type: string) => rec.events.filter((e) => e.event_type === type);

/** Frames on one socket arrive in order, so once a fresh PONG is back every earlier frame has arrived. */
async function flush(rec: Recorder): Promise<void> {
  const pongs = rec.texts.filter((t) => t === 'PONG').length;
  rec.send('PING');
  await waitFor(() => rec.texts.filter((t) => t === 'PONG').length > pongs, 10_000, 'PONG');
}

/** Applies book snapshots and price_change deltas the way a client would; price → size per asset. */
function replay(
  rec: Recorder,
): Map<string, { bids: Map<string, string>; asks: Map<string, string>; hash: string }> {
  const books = new Map<string, { bids: Map<string, string>; asks: Map<string, string>; hash: string }>();
  const key = (p: string) => String(Number(p));
  for (const e of rec.events) {
    if (e.event_type === 'book') {
      const levels = (side: unknown) =>
        new Map((side as Array<{ price: string; size: string }>).map((l) => [key(l.price), l.size]));
      books.set(String(e.asset_id), { bids: levels(e.bids), asks: levels(e.asks), hash: String(e.hash) });
    } else if (e.event_type === 'price_change') {
      for (const c of e.price_changes as Json[]) {
        const b = books.get(String(c.asset_id));
        if (!b) continue;
        const side = c.side === 'BUY' ? b.bids : b.asks;
        if (c.size === '0') side.delete(key(String(c.price)));
        else side.set(key(String(c.price)), String(c.size));
        b.hash = String(c.hash);
      }
    }
  }
  return books;
}

async function sameAsRest(rec: Recorder, assets: string[]): Promise<void> {
  const local = replay(rec);
  for (const asset of assets) {
    const rest = await book(sim, asset);
    const mine = local.get(asset);
    assert.ok(mine);
    const levels = (side: Array<{ price: string; size: string }>) =>
      new Map(side.map((l) => [String(Number(l.price)), l.size]));
    assert.deepEqual(mine.bids, levels(rest.bids), `bids of ${asset}`);
    assert.deepEqual(mine.asks, levels(rest.asks), `asks of ${asset}`);
    assert.equal(mine.hash, rest.hash);
  }
}

test('market channel: snapshots then deltas rebuild /book exactly, for YES and NO, across trades and steps', async () => {
  const m = take();
  const rec = await subscribe([m.yes, m.no]);
  const snap = byType(rec, 'book');
  assertCovers('book', loadFixture('polymarket', 'ws_market_book_v2.json'), snap[0]);
  assert.equal(snap[0]?.hash, (await book(sim, String(snap[0]?.asset_id))).hash);
  const t = await trader(sim);
  const { bid, ask } = best(await book(sim, m.yes));
  await post(sim, t, { tokenId: m.yes, side: 'BUY', price: Math.round((bid + 0.01) * 100) / 100, size: 7 });
  await post(sim, t, { tokenId: m.no, side: 'BUY', price: Math.round((1 - ask) * 100) / 100, size: 9 });
  await post(sim, t, { tokenId: m.yes, side: 'BUY', price: ask, size: 5 });
  await control(sim, 'POST', '/__sim/advance', { steps: 5 });
  await flush(rec);
  assert.ok(byType(rec, 'price_change').length >= 8);
  await sameAsRest(rec, [m.yes, m.no]);
  const change = byType(rec, 'price_change')[0] as Json;
  const fixture = loadFixture('polymarket', 'ws_market_price_change_v2.json') as Json;
  assertCovers('price_change', fixture, change);
  assertCovers('price_changes[0]', (fixture.price_changes as Json[])[0], (change.price_changes as Json[])[0]);
  const assets = new Set((change.price_changes as Json[]).map((c) => c.asset_id));
  assert.deepEqual(assets, new Set([m.yes, m.no]), 'each change carries the NO mirror');
  const last = byType(rec, 'last_trade_price');
  assert.ok(last.length >= 2);
  assertCovers('last_trade_price', loadFixture('polymarket', 'ws_market_last_trade_price_v1.json'), last[0]);
  rec.ws.close();
});

test('subscribe/unsubscribe operations, NO NEW ASSETS and custom best_bid_ask', async () => {
  const m = take();
  const n = take();
  const rec = await subscribe([m.yes], true);
  rec.send({ operation: 'subscribe', assets_ids: [n.yes] });
  await waitFor(() => byType(rec, 'book').some((b) => b.asset_id === n.yes), 10_000, 'new snapshot');
  rec.send({ operation: 'subscribe', assets_ids: [n.yes] });
  await waitFor(() => rec.texts.includes('NO NEW ASSETS'), 10_000, 'NO NEW ASSETS');
  rec.send({ operation: 'unsubscribe', assets_ids: [n.yes] });
  await flush(rec);
  const t = await trader(sim);
  const { bid } = best(await book(sim, m.yes));
  await post(sim, t, { tokenId: m.yes, side: 'BUY', price: Math.round((bid + 0.01) * 100) / 100, size: 6 });
  const bba = await waitFor(() => byType(rec, 'best_bid_ask')[0], 10_000, 'best_bid_ask');
  assertCovers('best_bid_ask', loadFixture('polymarket', 'ws_market_best_bid_ask.json'), bba);
  const before = byType(rec, 'price_change').length;
  await post(sim, t, { tokenId: n.yes, side: 'BUY', price: 0.01, size: 6 });
  await post(sim, t, { tokenId: m.yes, side: 'BUY', price: 0.01, size: 6 });
  await flush(rec);
  assert.ok(byType(rec, 'price_change').length > before);
  assert.ok(
    byType(rec, 'price_change').every((e) => (e.price_changes as Json[]).every((c) => c.asset_id !== n.yes)),
    'no deltas after unsubscribe',
  );
  rec.ws.close();
});

test('tick_size_change is sent when a market moves near 0 or 1', async () => {
  const rec = await connect(sim.urls.wsMarket);
  const assets = all.slice(0, 400).map((m) => m.yes);
  rec.send({ type: 'market', assets_ids: assets, initial_dump: false });
  for (let i = 0; i < 40 && byType(rec, 'tick_size_change').length === 0; i++) {
    await control(sim, 'POST', '/__sim/advance', { steps: 10 });
    await flush(rec);
  }
  const change = byType(rec, 'tick_size_change')[0];
  assert.ok(change, 'a tick change within 400 steps');
  assertCovers('tick_size_change', loadFixture('polymarket', 'ws_market_tick_size_change.json'), change);
  assert.notEqual(change.old_tick_size, change.new_tick_size);
  assert.ok(['0.01', '0.001'].includes(String(change.new_tick_size)));
  assert.equal((await book(sim, String(change.asset_id))).tick_size, change.new_tick_size);
  rec.ws.close();
});

test('user channel: own order and trade events in the recorded shapes, nothing of other users', async () => {
  const m = take();
  const alice = await trader(sim);
  const bob = await trader(sim);
  const a = await connect(sim.urls.wsUser);
  a.send({ type: 'user', auth: { apiKey: alice.key, secret: alice.secret, passphrase: alice.passphrase } });
  const b = await connect(sim.urls.wsUser);
  b.send({
    type: 'USER',
    auth: { apiKey: bob.key, secret: bob.secret, passphrase: bob.passphrase },
    markets: [m.conditionId],
  });
  await flush(a);
  await flush(b);
  const { bid, ask } = best(await book(sim, m.yes));
  const rest = await post(sim, alice, {
    tokenId: m.yes,
    side: 'BUY',
    price: Math.round((bid + 0.01) * 100) / 100,
    size: 10,
  });
  await post(sim, bob, { tokenId: m.yes, side: 'BUY', price: ask, size: 20 });
  await post(sim, bob, {
    tokenId: m.yes,
    side: 'SELL',
    price: Math.round((bid + 0.01) * 100) / 100,
    size: 10,
  });
  const placement = await waitFor(() => a.events.find((e) => e.type === 'PLACEMENT'), 10_000, 'placement');
  assertCovers('order PLACEMENT', loadFixture('polymarket', 'ws_user_order_placement_v1.json'), placement);
  assert.equal(placement.id, rest.id);
  const trade = await waitFor(
    () => a.events.find((e) => e.event_type === 'trade' && e.status === 'CONFIRMED'),
    10_000,
    'trade',
  );
  assertCovers('trade', loadFixture('polymarket', 'ws_user_trade_v1.json'), trade);
  assert.equal(trade.trader_side, 'MAKER');
  assert.ok(a.events.some((e) => e.event_type === 'trade' && e.status === 'MATCHED'));
  const update = a.events.find((e) => e.type === 'UPDATE');
  assert.equal(update?.status, 'MATCHED');
  assert.ok(a.events.every((e) => e.owner === alice.key || e.event_type === 'trade'));
  assert.ok(
    a.events.every((e) => e.event_type !== 'order' || e.id === rest.id),
    "no events of bob's orders",
  );
  await waitFor(
    () => b.events.some((e) => e.event_type === 'trade' && e.trader_side === 'TAKER'),
    10_000,
    'bob trade',
  );
  assert.ok(b.events.every((e) => e.event_type !== 'order' || e.owner === bob.key));
  const cancelled = await post(sim, alice, { tokenId: m.yes, side: 'BUY', price: 0.01, size: 5 });
  await clob(sim, alice, 'DELETE', '/order', { orderID: cancelled.id });
  const cancellation = await waitFor(
    () => a.events.find((e) => e.type === 'CANCELLATION'),
    10_000,
    'cancellation',
  );
  assertCovers(
    'order CANCELLATION',
    loadFixture('polymarket', 'ws_user_order_cancellation_v1.json'),
    cancellation,
  );
  a.ws.close();
  b.ws.close();
});

test('bad first frames close the connection; ws/drop closes every connection', async () => {
  const garbage = await connect(sim.urls.wsMarket);
  garbage.send('{nope');
  await waitFor(() => garbage.closed, 10_000, 'close on garbage');
  const wrongType = await connect(sim.urls.wsMarket);
  wrongType.send({ type: 'user', assets_ids: [] });
  await waitFor(() => wrongType.closed, 10_000, 'close on wrong channel');
  const badAuth = await connect(sim.urls.wsUser);
  badAuth.send({ type: 'user', auth: { apiKey: 'x', secret: 'y', passphrase: 'z' } });
  await waitFor(() => badAuth.closed, 10_000, 'close on bad auth');
  const one = await subscribe([take().yes]);
  const two = await connect(sim.urls.wsUser);
  const dropped = await control(sim, 'POST', '/__sim/ws/drop');
  assert.ok(Number(dropped.json.dropped) >= 2);
  await waitFor(() => one.closed && two.closed, 10_000, 'dropped');
});

test('stall_feed keeps sockets open but sends nothing, not even PONG', async () => {
  const m = take();
  const rec = await subscribe([m.yes]);
  await control(sim, 'POST', '/__sim/faults', { stall_feed: true });
  const withheld = async () => Number((await control(sim, 'GET', '/__sim/feed')).json.withheld);
  const before = await withheld();
  const seen = rec.events.length;
  rec.send('PING');
  // The simulator counts the PONG it withheld: proof that it received this PING while stalled.
  await waitFor(async () => (await withheld()) > before, 10_000, 'the withheld PONG');
  await control(sim, 'POST', '/__sim/advance', { steps: 3 });
  await control(sim, 'DELETE', '/__sim/faults');
  // Anything sent during the stall would arrive before the PONG to this later PING.
  await flush(rec);
  assert.equal(rec.events.length, seen, 'no frames while stalled');
  assert.deepEqual(rec.texts, ['PONG'], 'the PING sent during the stall got no PONG');
  assert.equal(rec.closed, false);
  rec.ws.close();
});

test('connections that stop pinging are closed by the idle rule', async () => {
  // Pings every 50 ms against a 1.5 s idle rule: only a stall of over a second could close the pinging one.
  const quick = await startPolymarketSim({ seed: 29, size: 20, wsIdleTimeoutMs: 1_500 });
  try {
    const pinging = await connect(quick.urls.wsMarket);
    const silent = await connect(quick.urls.wsMarket);
    const timer = setInterval(() => pinging.send('PING'), 50);
    await waitFor(() => silent.closed, 15_000, 'idle close');
    clearInterval(timer);
    assert.equal(pinging.closed, false);
    pinging.ws.close();
  } finally {
    await quick.close();
  }
});

test('one market connection is served at most wsMaxAssetsPerConnection assets; the rest are accepted, never delivered', async () => {
  const capped = await startPolymarketSim({ seed: 29, size: 20, wsMaxAssetsPerConnection: 4 });
  try {
    const assets = (await activeMarkets(capped)).flatMap((m) => [m.yes, m.no]).slice(0, 6);
    assert.equal(assets.length, 6);
    const rec = await connect(capped.urls.wsMarket);
    rec.send({ type: 'market', assets_ids: assets, custom_feature_enabled: false });
    const pongs = rec.texts.filter((t) => t === 'PONG').length;
    rec.send('PING');
    // Frames on one socket arrive in order: once the PONG is back, every snapshot the server sent has arrived.
    await waitFor(() => rec.texts.filter((t) => t === 'PONG').length > pongs, 10_000, 'PONG');
    const books = rec.events.filter((e) => e.event_type === 'book').map((e) => String(e.asset_id));
    assert.deepEqual(books, assets.slice(0, 4));
    assert.equal(rec.closed, false, 'the subscription is not refused: it is silently cut');
    rec.ws.close();
  } finally {
    await capped.close();
  }
});
