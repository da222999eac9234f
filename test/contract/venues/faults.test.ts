// Contract: how every registered venue's adapter behaves when its exchange misbehaves (simulator faults over
// loopback): 5xx and timeouts are 503 service_unavailable (retryable), a short burst of 429s is absorbed by the
// adapter's own backoff, and a persistent 429 surfaces as 503 only after that backoff gave up.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Market } from '../../../src/domain/market.js';
import { registeredVenues, rejectsWith, startVenue, type VenueUnderTest } from './harness.js';

for (const id of registeredVenues()) {
  describe(`${id}: upstream faults`, () => {
    let venue: VenueUnderTest;
    let market: Market;
    before(async () => {
      // A short per-attempt deadline keeps the timeout case quick.
      venue = await startVenue(id, { size: 20 }, 500);
      const manifest = await venue.sim.manifest();
      const nativeId = Object.values(manifest).flat()[0] as string;
      const found = await venue.adapter.catalog.fetchMarket?.(venue.ctx(), nativeId);
      assert.ok(found, 'fetchMarket is needed by the fault suite');
      market = found;
    });
    after(() => venue?.close());

    /** A public read every venue has: the book when declared, else the market itself. */
    const read = async () => {
      const { marketData, catalog } = venue.adapter;
      if (marketData.fetchOrderBook) {
        return marketData.fetchOrderBook(venue.ctx(), market, market.outcomes[0]?.name as string);
      }
      return catalog.fetchMarket?.(venue.ctx(), market.exchange_market_id);
    };

    test('server errors are service_unavailable and retryable', async () => {
      await venue.sim.faults({ error_rate: 1, error_status: 502 });
      const error = await rejectsWith(read(), 'service_unavailable');
      assert.equal(error.retryable, true);
      await venue.sim.clearFaults();
      assert.ok(await read());
    });

    test('a short burst of 429 is absorbed by the adapter backoff', async () => {
      await venue.sim.faults({ rate_limit: { retry_after: 0, count: 1 } });
      assert.ok(await read());
    });

    test('a persistent 429 becomes service_unavailable after the backoff gave up', async () => {
      await venue.sim.faults({ rate_limit: { retry_after: 0 } });
      await rejectsWith(read(), 'service_unavailable');
      await venue.sim.clearFaults();
    });

    test('a venue slower than the deadline is service_unavailable', async () => {
      // Held until the fault is cleared: slower than any deadline, however loaded the machine.
      await venue.sim.faults({ latency_ms: 120_000 });
      try {
        await rejectsWith(read(), 'service_unavailable');
      } finally {
        await venue.sim.clearFaults();
      }
      assert.ok(await read());
    });
  });
}
