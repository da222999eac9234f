// Data API against recorded payloads: positions (average entry, PnL), activity rows, the public trade tape (house
// prints and user matches, takerOnly) and portfolio value; wallets compare case-insensitively.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type PolymarketSim, startPolymarketSim } from '../../../sim/polymarket/index.js';
import { loadFixture } from '../../support/fixtures.js';
import {
  activeMarkets,
  assertCovers,
  best,
  book,
  getJson,
  type MarketRef,
  post,
  type Trader,
  trader,
} from './support.js';

type Json = Record<string, unknown>;
let sim: PolymarketSim;
let m: MarketRef;
let quiet: MarketRef;
let buyer: Trader;
let seller: Trader;
let fillPrice = 0;

before(async () => {
  sim = await startPolymarketSim({ seed: 23, size: 200 });
  const markets = (await activeMarkets(sim, false)).filter(
    (x) => x.tick === 0.01 && x.market.taker_base_fee === 0,
  );
  m = markets[0] as MarketRef;
  quiet = markets[1] as MarketRef;
  buyer = await trader(sim);
  seller = await trader(sim);
  const { ask } = best(await book(sim, m.yes));
  await post(sim, seller, { tokenId: m.yes, side: 'BUY', price: ask, size: 20 });
  fillPrice = Math.round((ask - 0.01) * 100) / 100;
  await post(sim, seller, { tokenId: m.yes, side: 'SELL', price: fillPrice, size: 12 });
  const res = await post(sim, buyer, { tokenId: m.yes, side: 'BUY', price: ask, size: 12 });
  assert.equal(res.body.status, 'matched');
});
after(() => sim.close());

const data = (path: string) => getJson(`${sim.urls.data}${path}`);

test('positions cover the recorded row and carry the average entry price', async () => {
  const fixture = (loadFixture('polymarket', 'http_get_data_positions.json') as Json[])[0];
  const rows = (await data(`/positions?user=${buyer.address.toUpperCase().replace(/^0X/, '0x')}`))
    .json as Json[];
  assert.equal(rows.length, 1);
  assertCovers('position', fixture, rows[0]);
  const p = rows[0] as Json;
  assert.equal(p.asset, m.yes);
  assert.equal(p.conditionId, m.conditionId);
  assert.equal(p.size, 12);
  assert.equal(p.avgPrice, fillPrice);
  assert.equal(p.outcome, 'Yes');
  assert.equal(p.oppositeAsset, m.no);
  assert.equal(p.proxyWallet, buyer.address.toLowerCase());
  const seller8 = ((await data(`/positions?user=${seller.address}`)).json as Json[])[0];
  assert.equal(seller8?.size, 8);
  assert.ok(Number(seller8?.realizedPnl) < 0, 'sold below the price paid');
  assert.deepEqual((await data(`/positions?user=${buyer.address}&market=${quiet.conditionId}`)).json, []);
});

test('activity rows cover the recorded TRADE row', async () => {
  const fixture = (loadFixture('polymarket', 'http_get_data_activity.json') as Json[])[0];
  const rows = (await data(`/activity?user=${buyer.address}`)).json as Json[];
  assert.equal(rows.length, 1);
  assertCovers('activity', fixture, rows[0]);
  assert.deepEqual(
    [rows[0]?.type, rows[0]?.side, rows[0]?.size, rows[0]?.price],
    ['TRADE', 'BUY', 12, fillPrice],
  );
  const sells = (await data(`/activity?user=${seller.address}&side=SELL`)).json as Json[];
  assert.equal(sells.length, 1);
});

test('the public tape covers the recorded trade row: user matches and house prints', async () => {
  const fixture = (loadFixture('polymarket', 'http_get_data_trades_sanitized.json') as Json[])[0];
  const mine = (await data(`/trades?user=${buyer.address}`)).json as Json[];
  assertCovers('trade', fixture, mine[0]);
  const tape = (await data(`/trades?market=${m.conditionId}&limit=50`)).json as Json[];
  assert.ok(tape.some((t) => t.proxyWallet === buyer.address.toLowerCase()));
  assert.ok(
    !tape.some((t) => t.proxyWallet === seller.address.toLowerCase() && t.side === 'SELL'),
    'takerOnly by default',
  );
  const both = (await data(`/trades?market=${m.conditionId}&takerOnly=false&limit=50`)).json as Json[];
  assert.ok(both.some((t) => t.proxyWallet === seller.address.toLowerCase() && t.side === 'SELL'));
  const house = (await data(`/trades?market=${quiet.conditionId}&limit=5`)).json as Json[];
  assert.equal(house.length, 1, 'an untouched market shows the house print of each step so far');
  assertCovers('house trade', fixture, house[0]);
  await fetch(`${sim.control}/__sim/advance`, { method: 'POST', body: JSON.stringify({ steps: 3 }) });
  const later = (await data(`/trades?market=${quiet.conditionId}&limit=10`)).json as Json[];
  assert.equal(later.length, 4);
  const times = later.map((t) => Number(t.timestamp));
  assert.deepEqual(
    times,
    [...times].sort((a, b) => b - a),
  );
  // Offset pages are slices of the one newest-first list; offset stops at 10,000 as the docs say.
  const paged = (await data(`/trades?market=${quiet.conditionId}&limit=2&offset=1`)).json as Json[];
  assert.deepEqual(paged, later.slice(1, 3));
  assert.equal((await data(`/trades?market=${quiet.conditionId}&offset=10000`)).status, 200);
  assert.equal((await data(`/trades?market=${quiet.conditionId}&offset=10001`)).status, 400);
});

test('value covers the recorded row; missing user is a 400', async () => {
  const fixture = (loadFixture('polymarket', 'http_get_data_value.json') as Json[])[0];
  const rows = (await data(`/value?user=${buyer.address}`)).json as Json[];
  assertCovers('value', fixture, rows[0]);
  assert.ok(Number(rows[0]?.value) > 0);
  assert.equal((await data('/positions')).status, 400);
  for (const sortBy of ['BOGUS', 'constructor', '__proto__', 'toString']) {
    assert.equal((await data(`/positions?user=${buyer.address}&sortBy=${sortBy}`)).status, 400, sortBy);
  }
  assert.equal((await data('/value?user=nope')).status, 400);
  const stranger = `0x${'9'.repeat(40)}`;
  assert.deepEqual((await data(`/positions?user=${stranger}`)).json, []);
  assert.deepEqual((await data(`/value?user=${stranger}`)).json, [{ user: stranger, value: 0 }]);
});
