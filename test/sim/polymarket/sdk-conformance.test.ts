// Polymarket's official V2 SDK (@polymarket/clob-client-v2) against the simulator: if the SDK cannot tell the sim
// from clob.polymarket.com for keys, books, orders, cancels, fills, balances, history and market paging, neither
// can our adapter.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AssetType, ClobClient, OrderType, Side } from '@polymarket/clob-client-v2';
import { createWalletClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { polygon } from 'viem/chains';
import { type PolymarketSim, startPolymarketSim } from '../../../sim/polymarket/index.js';
import { activeMarkets, type MarketRef, type Trader, trader } from './support.js';

let sim: PolymarketSim;
let me: Trader;
let client: ClobClient;
let market: MarketRef;

before(async () => {
  sim = await startPolymarketSim({ seed: 5, size: 80 });
  me = await trader(sim);
  const signer = createWalletClient({
    account: privateKeyToAccount(me.privateKey),
    chain: polygon,
    transport: http(),
  });
  const creds = await new ClobClient({ host: sim.urls.clob, chain: 137, signer }).createOrDeriveApiKey();
  assert.equal(creds.key, me.key, 'createOrDerive falls back to the key L1 already created for nonce 0');
  assert.equal(creds.secret, me.secret);
  assert.equal(creds.passphrase, me.passphrase);
  client = new ClobClient({ host: sim.urls.clob, chain: 137, signer, creds, throwOnError: true });
  const markets = await activeMarkets(sim, false);
  const chosen = markets.find((m) => m.tick === 0.01 && m.market.taker_base_fee === 0);
  assert.ok(chosen, 'an active fee-free market quoted in cents');
  market = chosen;
});
after(() => sim.close());

test('SDK reads books, tick size and neg-risk', async () => {
  const book = await client.getOrderBook(market.yes);
  assert.equal(book.asset_id, market.yes);
  assert.equal(book.market, market.conditionId);
  assert.ok(book.bids.length > 0 && book.asks.length > 0);
  assert.equal(await client.getOrderBookHash({ ...book }), book.hash, 'hash is the SDK summary hash');
  assert.equal(await client.getTickSize(market.yes), String(market.tick));
  assert.equal(await client.getNegRisk(market.yes), false);
  assert.equal(await client.getVersion(), 2);
});

test('SDK places a resting GTC, lists it, fetches it and cancels it', async () => {
  const book = await client.getOrderBook(market.yes);
  const bestBid = Math.max(...book.bids.map((l) => Number(l.price)));
  const price = Math.round((bestBid - 2 * market.tick) * 100) / 100;
  const res = await client.createAndPostOrder(
    { tokenID: market.yes, price, size: 10, side: Side.BUY },
    { tickSize: '0.01', negRisk: false },
    OrderType.GTC,
  );
  assert.equal(res.success, true);
  assert.equal(res.status, 'live');
  assert.match(res.orderID, /^0x[0-9a-f]{64}$/);
  const open = await client.getOpenOrders({ market: market.conditionId });
  assert.ok(open.some((o) => o.id === res.orderID));
  const order = await client.getOrder(res.orderID);
  assert.equal(order.status, 'LIVE');
  assert.equal(order.original_size, '10');
  assert.equal(Number(order.price), price);
  const cancel = await client.cancelOrder({ orderID: res.orderID });
  assert.deepEqual(cancel.canceled, [res.orderID]);
  assert.equal((await client.getOrder(res.orderID)).status, 'CANCELED');
  assert.equal((await client.getOpenOrders()).length, 0);
});

test('SDK crossing BUY fills at the resting price, shows up in trades and moves the balance', async () => {
  const before = Number((await client.getBalanceAllowance({ asset_type: AssetType.COLLATERAL })).balance);
  const book = await client.getOrderBook(market.yes);
  const bestAsk = Math.min(...book.asks.map((l) => Number(l.price)));
  const res = await client.createAndPostOrder(
    {
      tokenID: market.yes,
      price: Math.min(0.99, Math.round((bestAsk + market.tick) * 100) / 100),
      size: 5,
      side: Side.BUY,
    },
    { tickSize: '0.01', negRisk: false },
    OrderType.GTC,
  );
  assert.equal(res.status, 'matched');
  assert.equal(res.takingAmount, '5');
  assert.equal(Number(res.makingAmount), Math.round(5 * bestAsk * 1e6) / 1e6, 'paid the resting price');
  assert.equal(res.transactionsHashes?.length, 1, JSON.stringify(res));
  const trades = await client.getTrades({ market: market.conditionId });
  const trade = trades.find((t) => t.taker_order_id === res.orderID);
  assert.ok(trade);
  assert.equal(trade.trader_side, 'TAKER');
  assert.equal(trade.status, 'TRADE_STATUS_CONFIRMED');
  const after = Number((await client.getBalanceAllowance({ asset_type: AssetType.COLLATERAL })).balance);
  assert.equal(before - after, Math.round(5 * bestAsk * 1e6));
  const held = await client.getBalanceAllowance({ asset_type: AssetType.CONDITIONAL, token_id: market.yes });
  assert.equal(held.balance, '5000000');
  assert.ok(Object.keys(held.allowances).length > 0);
});

test('SDK market orders (FOK BUY by dollars, FOK SELL by shares) pass the precision and tick rules', async () => {
  const info = await client.getClobMarketInfo(market.conditionId);
  assert.equal(info.c, market.conditionId);
  const buy = await client.createAndPostMarketOrder(
    { tokenID: market.yes, amount: 6, side: Side.BUY },
    { tickSize: '0.01', negRisk: false },
    OrderType.FOK,
  );
  assert.equal(buy.status, 'matched', JSON.stringify(buy));
  const shares = Number(buy.takingAmount);
  assert.ok(shares > 6, 'a dollar amount buys more than that many shares below 1');
  const sell = await client.createAndPostMarketOrder(
    { tokenID: market.yes, amount: 5, side: Side.SELL },
    { tickSize: '0.01', negRisk: false },
    OrderType.FOK,
  );
  assert.equal(sell.status, 'matched', JSON.stringify(sell));
  assert.equal(sell.makingAmount, '5');
});

test('SDK signs neg-risk orders for the neg-risk exchange and the sim accepts them', async () => {
  const negRisk = (await activeMarkets(sim, true))[0];
  assert.ok(negRisk);
  assert.equal(await client.getNegRisk(negRisk.yes), true);
  const res = await client.createAndPostOrder(
    { tokenID: negRisk.yes, price: negRisk.tick === 0.01 ? 0.01 : 0.001, size: 10, side: Side.BUY },
    { tickSize: String(negRisk.tick) as '0.01', negRisk: true },
    OrderType.GTC,
  );
  assert.equal(res.status, 'live');
  assert.deepEqual((await client.cancelAll()).canceled, [res.orderID]);
});

test('SDK price history and market paging to the end cursor', async () => {
  const history = await client.getPricesHistory({
    market: market.yes,
    interval: '1d' as never,
    fidelity: 60,
  });
  const points = (history as unknown as { history: Array<{ t: number; p: number }> }).history;
  assert.ok(points.length >= 20);
  assert.ok(points.every((pt) => Number.isInteger(pt.t) && pt.p > 0 && pt.p < 1));
  let cursor: string | undefined;
  let seen = 0;
  for (let pages = 0; pages < 100 && cursor !== 'LTE='; pages++) {
    const page = await client.getMarkets(cursor);
    seen += page.data.length;
    cursor = page.next_cursor;
  }
  assert.equal(cursor, 'LTE=');
  assert.ok(seen > 0);
});
