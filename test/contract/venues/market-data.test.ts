// Contract: public market data (live book, price history, trades, wallet activity) for every registered venue,
// against its simulator over loopback.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { INTERVAL_SECONDS } from '../../../src/domain/candles.js';
import type { Market } from '../../../src/domain/market.js';
import {
  liquidMarkets,
  registeredVenues,
  rejectsWithStatus,
  startVenue,
  type VenueUnderTest,
} from './harness.js';
import { assertBook, assertCandles, assertTrades } from './invariants.js';

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

    test('fetch_price_history: candles per declared interval are ordered, aligned and consistent', async (t) => {
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
        const period = interval === 'max' ? null : INTERVAL_SECONDS[interval];
        const startTs = endTs - (period ?? 86_400) * 48;
        const candles = await marketData.fetchPriceHistory(venue.ctx(), market, outcome, {
          interval,
          startTs,
          endTs,
        });
        assertCandles(candles, period, startTs, endTs);
        if (candles.length > 0) nonEmpty++;
      }
      assert.ok(nonEmpty > 0, 'every interval returned no candles');
    });

    test('fetch_trades: at most `limit`, newest first, prices in 0..1', async (t) => {
      const { marketData, descriptor } = venue.adapter;
      if (descriptor.has.fetch_trades === 'unsupported') {
        assert.equal(marketData.fetchTrades, undefined);
        return t.skip('not declared');
      }
      assert.ok(marketData.fetchTrades);
      await venue.sim.advance(5);
      let total = 0;
      for (const market of markets) {
        const list = await marketData.fetchTrades(
          venue.ctx(),
          market,
          market.outcomes[0]?.name as string,
          20,
        );
        assertTrades(list, 20);
        total += list.length;
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
