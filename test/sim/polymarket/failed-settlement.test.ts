// The exchange's answer to a match whose on-chain settlement failed (Exchange.afterSettlement): the match is taken
// back out of the ledger, an order it had completed ends CANCELED off the book, an order still resting rests again
// with its size given back, and the feed hears MATCHED first, then FAILED, then the orders' updates. The settler
// seam stands in for the chain here (the sandbox-chain run is test/integration/chain/trading-chain-http.test.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Accounts } from '../../../sim/polymarket/accounts.js';
import { Catalogue, type PmMarket } from '../../../sim/polymarket/catalogue.js';
import { Exchange, type FeedSink } from '../../../sim/polymarket/exchange.js';
import type { TradeRecord } from '../../../sim/polymarket/trade.js';
import { createWorld } from '../../../sim/shared/world.js';
import { simUserOrder } from '../../support/sim-polymarket-order.js';

const world = createWorld({ seed: 5, size: 40 });
const cat = new Catalogue(world, world.seed);

test('a failed settlement: the ledger is as before, the resting maker rests whole again, the completed taker ends CANCELED', async () => {
  const accounts = new Accounts();
  const exchange = new Exchange(cat, accounts, () => 1_000);
  const heard: string[] = [];
  const feed: FeedSink = {
    watches: () => false,
    bookChanged: () => {},
    tickChanged: () => {},
    traded: (t) => heard.push(`trade ${t.chainStatus}`),
    tradeSettled: (t) => heard.push(`settled ${t.chainStatus}`),
    orderEvent: (o, type) => heard.push(`${o.account} ${type}`),
  };
  exchange.feed = feed;
  // Stands in for trade-chain.ts: pending from the call, then the transaction reverts.
  exchange.settler = (t: TradeRecord) => {
    t.chainStatus = 'PENDING';
    return Promise.resolve().then(() => {
      t.chainStatus = 'FAILED';
    });
  };
  const m = cat.markets.find((x) => x.status === 'active' && exchange.view(x)?.depth.bids.length) as PmMarket;
  const view = exchange.view(m);
  assert.ok(view);
  const [bid] = view.depth.bids[0] as [number, number];
  const price = bid + view.tick;
  const [maker, taker] = ['1', '2'].map((x) => `0x${x.repeat(40)}`) as [string, string];
  accounts.wallet(maker).collateral = 50_000_000;
  accounts.wallet(taker).collateral = 50_000_000;
  accounts.position(accounts.wallet(taker), m, 0, cat.tokenId(m, 0)).size = 10_000_000;
  const snapshot = () =>
    [maker, taker].map((a) => [
      accounts.wallet(a).collateral,
      // An entry the failed match created is left empty: no position.
      [...accounts.wallet(a).positions.values()]
        .filter((p) => p.size !== 0 || p.cost !== 0 || p.realized !== 0)
        .map((p) => [p.size, p.cost, p.realized]),
    ]);
  const before = snapshot();

  const resting = simUserOrder(m, maker, 'BUY', price, 10_000_000);
  assert.equal(exchange.submit(resting, false).ok, true);
  const hit = simUserOrder(m, taker, 'SELL', price, 4_000_000);
  const result = exchange.submit(hit, false);
  assert.ok(result.ok && result.trade);
  const trade = result.trade;
  assert.equal(resting.matched, 4_000_000, 'matched in the ledger first');
  assert.notDeepEqual(snapshot(), before);
  await trade.settled;

  assert.equal(trade.chainStatus, 'FAILED');
  assert.deepEqual(snapshot(), before);
  assert.equal(resting.matched, 0);
  assert.equal(resting.status, 'LIVE');
  assert.ok(accounts.wallet(maker).open.has(resting), 'still resting');
  const level = exchange.view(m)?.depth.bids.find(([p]) => p === price);
  assert.equal(level?.[1], 10_000_000, 'its whole size is on the book again');
  assert.equal(hit.matched, 0);
  assert.equal(hit.status, 'CANCELED');
  assert.ok(accounts.wallet(taker).fills.every((f) => f.failed));
  assert.deepEqual(heard.slice(heard.indexOf('trade PENDING')), [
    'trade PENDING',
    `${taker} UPDATE`,
    `${maker} UPDATE`,
    'settled FAILED',
    `${taker} CANCELLATION`,
    `${maker} UPDATE`,
  ]);
});
