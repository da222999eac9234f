// Kalshi's historical tier, the adapter against its simulator over loopback: once the cutoffs of GET
// /historical/cutoff pass a settled market, a fill and a finished order, the live endpoints stop serving them
// (docs.kalshi.com "Historical data"), and the adapter still finds them under /historical/*: the market by its
// ticker, its candles, the fills (newest first, the live ones before the archived, none twice) and the order
// history. The cutoff is moved with the simulator's control before the adapter first reads it.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { BookLevel } from '../../../src/domain/book.js';
import type { Market } from '../../../src/domain/market.js';
import type { Fill, Order } from '../../../src/domain/trading.js';
import type { VenueSession } from '../../../src/venues/port.js';
import { liquidMarkets, startVenue, type VenueUnderTest } from './harness.js';

interface RawCandle {
  end_period_ts: number;
  price?: { close_dollars?: string };
}

describe('kalshi: the historical tier', () => {
  let venue: VenueUnderTest;
  let session: VenueSession;
  let live: Market;
  let settledTicker: string;
  let liveCandles: RawCandle[];
  let window: { startTs: number; endTs: number };
  let archivedOrder: Order;
  let liveOrder: Order;
  let archivedFill: Fill;
  let liveFill: Fill;

  const raw = async (path: string): Promise<{ status: number; body: unknown }> => {
    const res = await fetch(`${venue.controlUrl}/trade-api/v2${path}`);
    const text = await res.text();
    return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text };
  };

  const ioc = async (): Promise<{ order: Order; fill: Fill }> => {
    const { trading, marketData } = venue.adapter;
    assert.ok(trading.createOrder && trading.fetchFills && marketData.fetchOrderBook);
    const book = await marketData.fetchOrderBook(venue.ctx(), live, 'Yes');
    const [price] = book.asks[0] as BookLevel;
    const order = await trading.createOrder(venue.ctx(), session, {
      market_id: live.exchange_market_id,
      outcome: 'Yes',
      side: 'buy',
      price,
      size: 1,
      order_type: 'ioc',
      client_order_id: randomUUID(),
    });
    assert.equal(order.filled, 1, 'the IOC filled');
    const [fill] = await trading.fetchFills(venue.ctx(), session, live.exchange_market_id, 1);
    assert.ok(fill && fill.order_id === order.id);
    return { order, fill };
  };

  before(async () => {
    venue = await startVenue('kalshi', { size: 40 }, 3_000);
    session = (await venue.newSession()).session;
    [live] = (await liquidMarkets(venue, 1)) as [Market];

    // A settled market, its settlement time and its candles while it is still live.
    const settled = (await raw('/markets?status=settled&limit=1')).body as {
      markets: Array<{ ticker: string; open_time: string; settlement_ts: string }>;
    };
    const m = settled.markets[0];
    assert.ok(m, 'the catalogue has a settled market');
    settledTicker = m.ticker;
    const openS = Date.parse(m.open_time) / 1000;
    window = { startTs: Math.ceil(openS / 3600) * 3600, endTs: Math.ceil(openS / 3600) * 3600 + 6 * 3600 };
    const batch = (
      await raw(
        `/markets/candlesticks?market_tickers=${settledTicker}&start_ts=${window.startTs + 3600}&end_ts=${window.endTs + 3600}&period_interval=60`,
      )
    ).body as { markets: Array<{ candlesticks: RawCandle[] }> };
    liveCandles = batch.markets[0]?.candlesticks ?? [];
    assert.ok(
      liveCandles.some((c) => c.price?.close_dollars),
      'the live market has traded candles',
    );

    // One fill and finished order before the cutoff, then (a minute later on the exchange's clock) one after it.
    const first = await ioc();
    archivedOrder = first.order;
    archivedFill = first.fill;
    const boundaryMs =
      Math.max(
        Date.parse(first.order.updated_at ?? first.order.created_at),
        Date.parse(first.fill.created_at),
      ) + 1;
    const cutoff = await fetch(`${venue.controlUrl}/__sim/kalshi/historical-cutoff`, {
      method: 'POST',
      body: JSON.stringify({
        market_settled_ts: new Date(Date.parse(m.settlement_ts) + 1000).toISOString(),
        trades_created_ts: new Date(boundaryMs).toISOString(),
        orders_updated_ts: new Date(boundaryMs).toISOString(),
      }),
    });
    assert.equal(cutoff.status, 200);
    await venue.sim.advanceClock(60);
    const second = await ioc();
    liveOrder = second.order;
    liveFill = second.fill;
  });
  after(() => venue?.close());

  test('the simulator no longer serves the archived records on the live endpoints', async () => {
    assert.equal((await raw(`/markets/${settledTicker}`)).status, 404);
    assert.equal((await raw(`/historical/markets/${settledTicker}`)).status, 200);
    assert.equal((await raw(`/historical/markets/${live.exchange_market_id}`)).status, 404);
  });

  test('fetchMarket finds an archived market under /historical/markets/{ticker}', async () => {
    const { catalog } = venue.adapter;
    assert.ok(catalog.fetchMarket);
    const market = await catalog.fetchMarket(venue.ctx(), settledTicker);
    assert.ok(market, 'an archived market is not "unknown"');
    assert.equal(market.exchange_market_id, settledTicker);
    assert.equal(market.status, 'resolved');
    assert.ok(
      market.question.length > 0 && market.group_title.length > 0,
      'the event title still comes from /events',
    );
    assert.equal(await catalog.fetchMarket(venue.ctx(), 'KXNOSUCH-26DEC01-X'), null);
  });

  test('the price history of an archived market reads the historical candlesticks', async () => {
    const { catalog, marketData } = venue.adapter;
    assert.ok(catalog.fetchMarket && marketData.fetchPriceHistory);
    const market = await catalog.fetchMarket(venue.ctx(), settledTicker);
    assert.ok(market);
    const series = await marketData.fetchPriceHistory(venue.ctx(), market, 'Yes', {
      interval: '1h',
      ...window,
    });
    assert.equal(series.kind, 'candles');
    if (series.kind !== 'candles') return;
    const traded = liveCandles.filter((c) => c.price?.close_dollars);
    assert.ok(series.candles.length > 0, 'candles of an archived market are not silently empty');
    assert.deepEqual(
      series.candles.map((c) => c.close),
      traded.map((c) => Number(c.price?.close_dollars)),
      'the same closes the live tier served before the market was archived',
    );
  });

  test('the cutoff is read once for many price histories, not once a request', async () => {
    const { catalog, marketData } = venue.adapter;
    assert.ok(catalog.fetchMarket && marketData.fetchPriceHistory);
    const market = await catalog.fetchMarket(venue.ctx(), settledTicker);
    assert.ok(market);
    await venue.sim.clearRequests();
    for (let i = 0; i < 3; i++)
      await marketData.fetchPriceHistory(venue.ctx(), market, 'Yes', { interval: '1h', ...window });
    const seen = await venue.sim.requests();
    const count = (part: string) =>
      [...seen].filter(([route]) => route.includes(part)).reduce((n, [, c]) => n + c, 0);
    assert.equal(count('/candlesticks'), 3, [...seen.keys()].join(', '));
    assert.ok(count('/historical/cutoff') <= 1, [...seen.keys()].join(', '));
  });

  test('fills read the live tier, then the historical one: newest first, none twice', async () => {
    const { trading } = venue.adapter;
    assert.ok(trading.fetchFills);
    const fills = await trading.fetchFills(venue.ctx(), session, null, 50);
    assert.deepEqual(
      fills.map((f) => f.fill_id),
      [liveFill.fill_id, archivedFill.fill_id],
    );
    const one = await trading.fetchFills(venue.ctx(), session, live.exchange_market_id, 1);
    assert.deepEqual(
      one.map((f) => f.fill_id),
      [liveFill.fill_id],
      'a limit the live tier fills asks no more',
    );
  });

  test('order history merges the archived orders with the live ones, newest first', async () => {
    const { trading } = venue.adapter;
    assert.ok(trading.fetchOrderHistory);
    const orders = await trading.fetchOrderHistory(venue.ctx(), session, live.exchange_market_id);
    assert.deepEqual(
      orders.map((o) => o.id),
      [liveOrder.id, archivedOrder.id],
    );
    const all = await trading.fetchOrderHistory(venue.ctx(), session, null);
    assert.equal(new Set(all.map((o) => o.id)).size, all.length, 'no order twice');
  });
});
