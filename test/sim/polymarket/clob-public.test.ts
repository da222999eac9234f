// Public CLOB REST against recorded payloads and Polymarket's documented errors: markets and cursor pages, the
// compact /clob-markets record, books (wire order, SDK hash, NO mirror), prices, history and the small endpoints.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import { type PolymarketSim, startPolymarketSim } from '../../../sim/polymarket/index.js';
import { loadFixture } from '../../support/fixtures.js';
import { activeMarkets, assertCovers, type Book, best, book, getJson, type MarketRef } from './support.js';

type Json = Record<string, unknown>;
let sim: PolymarketSim;
let markets: MarketRef[];

before(async () => {
  sim = await startPolymarketSim({ seed: 9, size: 300 });
  markets = await activeMarkets(sim);
});
after(() => sim.close());

const clobGet = (path: string) => getJson(`${sim.urls.clob}${path}`);
const clobPost = async (path: string, body: unknown) => {
  const res = await fetch(`${sim.urls.clob}${path}`, { method: 'POST', body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as unknown };
};
const first = () => markets[0] as MarketRef;

test('market objects and cursor pages cover the recorded CLOB payloads', async () => {
  const fixture = loadFixture('polymarket', 'http_get_markets_clob_v1.json') as Json;
  const m = (await clobGet(`/markets/${first().conditionId}`)).json as Json;
  assertCovers('market', fixture, m);
  assertCovers('market.tokens[0]', (fixture.tokens as Json[])[0], (m.tokens as Json[])[0]);
  assertCovers('market.rewards', fixture.rewards, m.rewards);
  const pageFixture = loadFixture('polymarket', 'http_get_markets_clob_page_v1.json') as Json;
  const page = (await clobGet('/markets')).json as Json;
  assertCovers('page', pageFixture, page);
  assert.equal(page.limit, 100);
  assert.equal(page.count, 100);
  assert.equal(page.next_cursor, 'MTAw');
  let cursor = String(page.next_cursor);
  let total = 100;
  while (cursor !== 'LTE=') {
    const next = (await clobGet(`/markets?next_cursor=${cursor}`)).json as {
      next_cursor: string;
      data: Json[];
    };
    total += next.data.length;
    cursor = next.next_cursor;
  }
  assert.ok(total > 100);
  assert.equal((await clobGet(`/markets/0x${'ab'.repeat(32)}`)).status, 404);
  assert.deepEqual((await clobGet('/markets/not-a-condition')).json, { error: 'Invalid market' });
});

test('/clob-markets is the compact V2 record; fee markets carry fd', async () => {
  const info = (await clobGet(`/clob-markets/${first().conditionId}`)).json as Json;
  assert.equal(info.c, first().conditionId);
  assert.deepEqual(info.t, [
    { t: first().yes, o: 'Yes' },
    { t: first().no, o: 'No' },
  ]);
  assert.equal(info.mos, 5);
  assert.equal(info.mts, first().tick);
  assert.equal(info.nr, first().negRisk);
  const fee = markets.find((m) => m.market.taker_base_fee !== 0);
  assert.ok(fee);
  const fd = ((await clobGet(`/clob-markets/${fee.conditionId}`)).json as Json).fd as Json;
  assert.ok(typeof fd.r === 'number' && fd.r > 0 && typeof fd.e === 'number' && fd.to === true);
  assert.deepEqual((await clobGet(`/markets-by-token/${fee.no}`)).json, { condition_id: fee.conditionId });
});

test('books cover the recorded V2 book, go out worst-first and hash like the SDK', async () => {
  const fixture = loadFixture('polymarket', 'http_get_book_v2_empty_ask.json') as Json;
  const b = await book(sim, first().yes);
  assertCovers('book', fixture, b);
  assert.deepEqual(Object.keys(b), Object.keys(fixture), 'same keys in the same order');
  assert.match(b.timestamp, /^\d{13}$/);
  assert.match(b.hash, /^[0-9a-f]{40}$/);
  const recomputed = createHash('sha1')
    .update(JSON.stringify({ ...b, hash: '' }))
    .digest('hex');
  assert.equal(recomputed, b.hash);
  const bids = b.bids.map((l) => Number(l.price));
  const asks = b.asks.map((l) => Number(l.price));
  assert.deepEqual(
    bids,
    [...bids].sort((x, y) => x - y),
    'bids ascending (best last) as recorded',
  );
  assert.deepEqual(
    asks,
    [...asks].sort((x, y) => y - x),
    'asks descending (best last) as recorded',
  );
  assert.ok(Math.max(...bids) < Math.min(...asks));
  for (const l of [...b.bids, ...b.asks]) assert.match(l.size, /^\d+(\.\d+)?$/);
});

test('the NO book mirrors the YES book', async () => {
  const yes = await book(sim, first().yes);
  const no = await book(sim, first().no);
  const flip = (levels: Book['bids']) =>
    levels.map((l) => `${Math.round((1 - Number(l.price)) * 1e6)}:${l.size}`).sort();
  const plain = (levels: Book['bids']) =>
    levels.map((l) => `${Math.round(Number(l.price) * 1e6)}:${l.size}`).sort();
  assert.deepEqual(plain(no.bids), flip(yes.asks));
  assert.deepEqual(plain(no.asks), flip(yes.bids));
  assert.equal(Number(no.last_trade_price), Math.round((1 - Number(yes.last_trade_price)) * 1e6) / 1e6);
});

test('price, midpoint, spread and their batch forms agree with the book', async () => {
  const m = first();
  const { bid, ask } = best(await book(sim, m.yes));
  assert.deepEqual((await clobGet(`/price?token_id=${m.yes}&side=BUY`)).json, { price: String(bid) });
  assert.deepEqual((await clobGet(`/price?token_id=${m.yes}&side=SELL`)).json, { price: String(ask) });
  const mid = Math.round(((bid + ask) / 2) * 1e6) / 1e6;
  assert.deepEqual((await clobGet(`/midpoint?token_id=${m.yes}`)).json, { mid: String(mid) });
  assert.deepEqual((await clobGet(`/spread?token_id=${m.yes}`)).json, {
    spread: String(Math.round((ask - bid) * 1e6) / 1e6),
  });
  const prices = (
    await clobPost('/prices', [
      { token_id: m.yes, side: 'BUY' },
      { token_id: m.yes, side: 'SELL' },
    ])
  ).json as Json;
  assert.deepEqual(prices, { [m.yes]: { BUY: String(bid), SELL: String(ask) } });
  assert.deepEqual((await clobGet(`/prices?token_ids=${m.yes}&sides=BUY`)).json, {
    [m.yes]: { BUY: String(bid) },
  });
  assert.deepEqual((await clobPost('/midpoints', [{ token_id: m.yes }])).json, { [m.yes]: String(mid) });
  assert.ok(Object.keys((await clobPost('/spreads', [{ token_id: m.yes }])).json as Json).includes(m.yes));
  const books = (await clobPost('/books', [{ token_id: m.yes }, { token_id: m.no }])).json as Book[];
  assert.deepEqual(
    books.map((x) => x.asset_id),
    [m.yes, m.no],
  );
  const last = (await clobGet(`/last-trade-price?token_id=${m.yes}`)).json as Json;
  assert.ok(['BUY', 'SELL'].includes(String(last.side)) && Number(last.price) > 0);
  const lasts = (await clobPost('/last-trades-prices', [{ token_id: m.no }])).json as Json[];
  assert.equal(lasts[0]?.token_id, m.no);
});

test('tick size, neg-risk, fee rate, time, version and ok', async () => {
  const m = first();
  assert.deepEqual((await clobGet(`/tick-size?token_id=${m.yes}`)).json, { minimum_tick_size: m.tick });
  assert.deepEqual((await clobGet(`/neg-risk?token_id=${m.no}`)).json, { neg_risk: m.negRisk });
  assert.ok('base_fee' in ((await clobGet(`/fee-rate?token_id=${m.yes}`)).json as Json));
  // The server's time falls within the request, whatever the request took.
  const sent = Math.floor(Date.now() / 1000);
  const time = (await clobGet('/time')).json as number;
  const answered = Math.ceil(Date.now() / 1000);
  assert.ok(
    Number.isInteger(time) && time >= sent && time <= answered,
    `${time} outside [${sent}, ${answered}]`,
  );
  assert.deepEqual((await clobGet('/version')).json, { version: 2 });
  assert.equal((await clobGet('/ok')).json, 'OK');
});

test('price history: intervals, explicit ranges, fidelity and validation', async () => {
  const m = first();
  const day = (await clobGet(`/prices-history?market=${m.yes}&interval=1d&fidelity=60`)).json as {
    history: Array<{ t: number; p: number }>;
  };
  assert.ok(day.history.length >= 23 && day.history.length <= 25);
  const gaps = day.history.slice(1).map((pt, i) => pt.t - (day.history[i]?.t ?? 0));
  assert.ok(gaps.every((g) => g === 3600));
  const now = Math.floor(Date.now() / 1000);
  const ranged = (
    await clobGet(`/prices-history?market=${m.yes}&startTs=${now - 7200}&endTs=${now}&fidelity=10`)
  ).json as { history: unknown[] };
  assert.ok(ranged.history.length >= 11);
  const month = (await clobGet(`/prices-history?market=${m.no}&interval=1m`)).json as { history: unknown[] };
  assert.ok(month.history.length > 100);
  const both = await clobGet(`/prices-history?market=${m.yes}&interval=1d&startTs=${now - 60}&endTs=${now}`);
  assert.equal(both.status, 400);
  assert.equal((await clobGet(`/prices-history?market=${m.yes}&interval=2y`)).status, 400);
  // Names of Object.prototype members are unknown intervals like any other, not the prototype's properties.
  for (const interval of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
    assert.deepEqual(await clobGet(`/prices-history?market=${m.yes}&interval=${interval}`), {
      status: 400,
      json: { error: `invalid interval: ${interval}` },
    });
  }
  assert.equal((await clobGet('/prices-history?interval=1d')).status, 400);
});

test('unknown and malformed tokens answer the documented errors', async () => {
  assert.deepEqual(await clobGet('/book?token_id=123456789'), {
    status: 404,
    json: { error: 'No orderbook exists for the requested token id' },
  });
  assert.deepEqual(await clobGet('/book?token_id=abc'), { status: 400, json: { error: 'Invalid token id' } });
  assert.deepEqual(await clobGet('/book'), { status: 400, json: { error: 'Invalid token id' } });
  assert.deepEqual(await clobGet(`/price?token_id=${first().yes}&side=UP`), {
    status: 400,
    json: { error: 'Invalid side' },
  });
  assert.deepEqual(await clobGet('/tick-size?token_id=42'), {
    status: 404,
    json: { error: 'market not found' },
  });
  assert.deepEqual((await clobPost('/books', { token_id: 1 })).json, { error: 'Invalid payload' });
  const bad = await fetch(`${sim.urls.clob}/books`, { method: 'POST', body: '{not json' });
  assert.equal(bad.status, 400);
  const closed = ((await clobGet('/markets')).json as { data: Json[] }).data.find((m) => m.closed === true);
  assert.ok(closed);
  const token = (closed.tokens as Json[])[0]?.token_id;
  assert.equal((await clobGet(`/book?token_id=${token}`)).status, 404, 'finished markets have no book');
});
