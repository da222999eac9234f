// Contract: public market data (live book, price history, trades, wallet activity) for every registered venue,
// against its simulator over loopback.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Trade } from '../../../src/domain/book.js';
import { INTERVAL_SECONDS, intervalPeriod, rollUpSeries, windowPeriod } from '../../../src/domain/candles.js';
import type { Market } from '../../../src/domain/market.js';
import {
  liquidMarkets,
  registeredVenues,
  rejectsWithStatus,
  startVenue,
  type VenueUnderTest,
} from './harness.js';
import { assertBook, assertCandles, assertPriceSeries, assertTrades } from './invariants.js';

for (const id of registeredVenues()) {
  describe(`${id}: market data`, () => {
    let venue: VenueUnderTest;
    let markets: Market[] = [];
    before(async () => {
      venue = await startVenue(id);
      if (venue.adapter.descriptor.has.fetch_orderbook !== 'unsupported')
        markets = await liquidMarkets(venue, 3);
    });
    after(() => venue?.close());

    test('fetch_orderbook: every outcome of liquid markets gives a sorted, uncrossed book', async (t) => {
      const { marketData, descriptor } = venue.adapter;
      if (descriptor.has.fetch_orderbook === 'unsupported') {
        assert.equal(marketData.fetchOrderBook, undefined);
        return t.skip('not declared');
      }
      assert.ok(marketData.fetchOrderBook);
      for (const market of markets) {
        for (const outcome of market.outcomes) {
          const book = await marketData.fetchOrderBook(venue.ctx(), market, outcome.name);
          assertBook(book, market, outcome.name);
          // Outcome names are matched case-insensitively (clients send `yes`).
          const lower = await marketData.fetchOrderBook(venue.ctx(), market, outcome.name.toLowerCase());
          assert.equal(lower.token_id, book.token_id);
        }
        await rejectsWithStatus(marketData.fetchOrderBook(venue.ctx(), market, 'no-such-outcome'), 400);
      }
    });

    test('fetch_price_history: per declared interval, a series inside the window that rolls up into consistent candles', async (t) => {
      const { marketData, descriptor } = venue.adapter;
      if (descriptor.has.fetch_price_history === 'unsupported') {
        assert.equal(marketData.fetchPriceHistory, undefined);
        return t.skip('not declared');
      }
      assert.ok(marketData.fetchPriceHistory);
      const market = markets[0] as Market;
      const outcome = market.outcomes[0]?.name as string;
      const endTs = Math.floor(Date.now() / 1000);
      let nonEmpty = 0;
      for (const interval of descriptor.features.candleIntervals) {
        const startTs = endTs - (interval === 'max' ? 86_400 : INTERVAL_SECONDS[interval]) * 48;
        const series = await marketData.fetchPriceHistory(venue.ctx(), market, outcome, {
          interval,
          startTs,
          endTs,
        });
        const period =
          interval === 'max'
            ? windowPeriod(startTs, endTs, series.kind === 'candles' ? series.periodSeconds : null)
            : intervalPeriod(interval);
        assertPriceSeries(series, period, startTs, endTs);
        const candles = rollUpSeries(series, period);
        assertCandles(candles, period, startTs, endTs);
        if (interval === 'max') assert.ok(candles.length <= 1, 'max is one candle over the window');
        if (candles.length > 0) nonEmpty++;
      }
      assert.ok(nonEmpty > 0, 'every interval returned no candles');
    });

    test('fetch_trades: at most `limit`, newest first, inside the window; pages walk the tape without repeats or gaps', async (t) => {
      const { marketData, descriptor } = venue.adapter;
      if (descriptor.has.fetch_trades === 'unsupported') {
        assert.equal(marketData.fetchTrades, undefined);
        return t.skip('not declared');
      }
      const fetchTrades = marketData.fetchTrades;
      assert.ok(fetchTrades);
      await venue.sim.advance(5);
      const everything = { startTs: null, endTs: null, cursor: null };
      let total = 0;
      for (const market of markets) {
        const outcome = market.outcomes[0]?.name as string;
        const page = await fetchTrades(venue.ctx(), market, outcome, { ...everything, limit: 20 });
        assertTrades(page.trades, 20);
        assert.ok(page.sourceChannel.startsWith(`${id}_`), page.sourceChannel);
        total += page.trades.length;
        if (page.trades.length < 6) continue;
        assert.equal(new Set(page.trades.map((x) => x.id)).size, page.trades.length, 'ids unique in a page');
        // Two pages of 3 are the first 6 of one page, in order. (Compared without ids: a venue without trade ids
        // can have identical rows in one transaction, numbered per page.)
        const first = await fetchTrades(venue.ctx(), market, outcome, { ...everything, limit: 3 });
        assert.ok(first.cursor, 'a tape longer than the page has a next page');
        const second = await fetchTrades(venue.ctx(), market, outcome, {
          ...everything,
          limit: 3,
          cursor: first.cursor,
        });
        const content = (x: Trade) => ({ ...x, id: undefined });
        assert.deepEqual(
          [...first.trades, ...second.trades].map(content),
          page.trades.slice(0, 6).map(content),
        );
        // A window keeps exactly the trades inside it.
        const newest = Date.parse(page.trades[1]?.timestamp ?? '') / 1000;
        const oldest = Date.parse(page.trades[4]?.timestamp ?? '') / 1000;
        const window = { startTs: Math.floor(oldest), endTs: Math.floor(newest), cursor: null };
        const inside = await fetchTrades(venue.ctx(), market, outcome, { ...window, limit: 20 });
        const expected = page.trades.filter((x) => {
          const s = Math.floor(Date.parse(x.timestamp) / 1000);
          return s >= window.startTs && s <= window.endTs;
        });
        assert.deepEqual(inside.trades.map(content), expected.map(content));
      }
      assert.ok(total > 0, 'no trades on any liquid market after the tape advanced');
    });

    test('fetch_user_activity: the paper wallet has an activity document', async (t) => {
      const { marketData, descriptor } = venue.adapter;
      if (descriptor.has.fetch_user_activity === 'unsupported') {
        assert.equal(marketData.fetchUserActivity, undefined);
        return t.skip('not declared');
      }
      assert.ok(
        marketData.fetchUserActivity && venue.sandboxAddress,
        'wallet activity needs a paper wallet address',
      );
      const doc = await marketData.fetchUserActivity(venue.ctx(), venue.sandboxAddress, 10);
      assert.equal(typeof doc, 'object');
      assert.ok(doc !== null && !Array.isArray(doc));
    });
  });
}
