// Conformance: Kalshi's official TypeScript SDK (kalshi-typescript, generated from the exchange's OpenAPI spec,
// with its own RSA-PSS signer) pointed at the simulator. If the SDK can list, read books, trade and read its
// portfolio here, paths, parameters, field names and signing match what the real exchange serves.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import {
  Configuration,
  EventsApi,
  HistoricalApi,
  MarketApi,
  OrdersApi,
  PortfolioApi,
} from 'kalshi-typescript';
import { type KalshiSim, startKalshiSim } from '../../../sim/kalshi/index.js';
import { type Account, account } from './client.js';

let sim: KalshiSim;
let acct: Account;
before(async () => {
  sim = await startKalshiSim({ seed: 9, size: 30 });
  acct = await account(sim);
});
after(() => sim.close());

// The SDK registers its signer on the shared axios instance, so every API object here uses the same account.
const signed = () =>
  new Configuration({ apiKey: acct.api_key_id, privateKeyPem: acct.private_key, basePath: sim.url });

test('the official SDK reads markets, events, series, books, trades and candles from the simulator', async () => {
  const markets = new MarketApi(new Configuration({ basePath: sim.url }));
  const page = (
    await markets.getMarkets(
      5,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      'open',
    )
  ).data;
  assert.equal(page.markets.length, 5);
  const m = page.markets[0];
  assert.ok(m);
  assert.equal(m.status, 'active');
  const one = (await markets.getMarket(m.ticker)).data.market;
  assert.equal(one.ticker, m.ticker);
  const book = (await markets.getMarketOrderbook(m.ticker)).data.orderbook_fp;
  assert.ok(book.yes_dollars.length > 0 && book.no_dollars.length > 0);
  const events = new EventsApi(new Configuration({ basePath: sim.url }));
  const event = (await events.getEvent(m.event_ticker, true)).data.event;
  assert.ok(event.markets?.some((x) => x.ticker === m.ticker));
  const series = (await markets.getSeries(event.series_ticker)).data.series;
  assert.equal(series.ticker, event.series_ticker);
  const trades = (await markets.getTrades(3, undefined, m.ticker)).data;
  assert.equal(trades.trades.length, 3);
  const now = Math.floor(Date.now() / 1000);
  const candles = (await markets.getMarketCandlesticks(event.series_ticker, m.ticker, now - 7200, now, 60))
    .data;
  assert.ok(candles.candlesticks.length >= 1);
});

test('the official SDK signs its own requests and trades through V2 order entry', async () => {
  const portfolio = new PortfolioApi(signed());
  const orders = new OrdersApi(signed());
  const markets = new MarketApi(signed());
  const balance = (await portfolio.getBalance()).data;
  assert.equal(balance.balance, 1_000_000);
  const ticker = (
    await markets.getMarkets(
      1,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      'open',
    )
  ).data.markets[0]?.ticker as string;
  const created = (
    await orders.createOrderV2({
      ticker,
      client_order_id: randomUUID(),
      side: 'bid',
      count: '2.00',
      price: '0.0100',
      time_in_force: 'good_till_canceled',
      self_trade_prevention_type: 'taker_at_cross',
    })
  ).data;
  assert.equal(created.remaining_count, '2.00');
  const read = (await orders.getOrder(created.order_id)).data.order;
  assert.deepEqual([read.status, read.book_side, read.outcome_side], ['resting', 'bid', 'yes']);
  const amended = (
    await orders.amendOrderV2(created.order_id, { ticker, side: 'bid', price: '0.0200', count: '3.00' })
  ).data;
  assert.equal(amended.remaining_count, '3.00');
  const decreased = (await orders.decreaseOrderV2(created.order_id, { reduce_by: '1.00' })).data;
  assert.equal(decreased.remaining_count, '2.00');
  const listed = (await orders.getOrders(ticker, undefined, undefined, undefined, 'resting')).data.orders;
  assert.ok(listed.some((o) => o.order_id === created.order_id));
  const cancelled = (await orders.cancelOrderV2(created.order_id)).data;
  assert.equal(cancelled.reduced_by, '2.00');
  const book = (await markets.getMarketOrderbook(ticker)).data.orderbook_fp;
  const yesAsk = Math.round((1 - Number(book.no_dollars.at(-1)?.[0])) * 100) / 100;
  const taker = (
    await orders.createOrderV2({
      ticker,
      client_order_id: randomUUID(),
      side: 'bid',
      count: '1.00',
      price: yesAsk.toFixed(4),
      time_in_force: 'immediate_or_cancel',
      self_trade_prevention_type: 'taker_at_cross',
    })
  ).data;
  assert.equal(taker.fill_count, '1.00');
  const fills = (await portfolio.getFills(ticker)).data.fills;
  assert.equal(fills[0]?.order_id, taker.order_id);
  const positions = (await portfolio.getPositions(undefined, undefined, 'position')).data.market_positions;
  assert.deepEqual(
    positions.map((p) => [p.ticker, p.position_fp]),
    [[ticker, '1.00']],
  );
});

test('the official SDK reads the historical tier: cutoff, archived market and candles, fills, orders, positions', async () => {
  const open = new Configuration({ basePath: sim.url });
  const history = new HistoricalApi(open);
  const markets = new MarketApi(open);
  const cutoff = (await history.getHistoricalCutoff()).data;
  assert.equal(Date.parse(cutoff.market_settled_ts), 0);
  const settled = (
    await markets.getMarkets(
      1,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      'settled',
    )
  ).data.markets[0];
  assert.ok(settled?.settlement_ts);
  const after = new Date(Date.parse(settled.settlement_ts) + 1000).toISOString();
  const res = await fetch(`${sim.control}/__sim/kalshi/historical-cutoff`, {
    method: 'POST',
    body: JSON.stringify({ market_settled_ts: after }),
  });
  assert.equal(res.status, 200);
  try {
    assert.equal(Date.parse((await history.getHistoricalCutoff()).data.market_settled_ts), Date.parse(after));
    assert.equal((await history.getHistoricalMarket(settled.ticker)).data.market.ticker, settled.ticker);
    const listed = (await history.getHistoricalMarkets(10, undefined, settled.ticker)).data.markets;
    assert.deepEqual(
      listed.map((m) => m.ticker),
      [settled.ticker],
    );
    const openS = Math.ceil(Date.parse(settled.open_time) / 1000 / 3600) * 3600;
    const candles = (await history.getMarketCandlesticksHistorical(settled.ticker, openS, openS + 7200, 60))
      .data;
    assert.equal(candles.ticker, settled.ticker);
    assert.ok(candles.candlesticks.length >= 1 && typeof candles.candlesticks[0]?.volume === 'string');
    const mine = new HistoricalApi(signed());
    assert.ok(Array.isArray((await mine.getFillsHistorical()).data.fills));
    assert.ok(Array.isArray((await mine.getHistoricalOrders()).data.orders));
    const positions = (await mine.getHistoricalPositions()).data;
    assert.ok(Array.isArray(positions.market_positions) && Array.isArray(positions.event_positions));
  } finally {
    await fetch(`${sim.control}/__sim/kalshi/historical-cutoff`, {
      method: 'POST',
      body: JSON.stringify({ all: 0 }),
    });
  }
});
