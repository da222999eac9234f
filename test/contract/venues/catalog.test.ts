// Contract: catalogue facets (fetch_markets, fetch_events, one market) for every registered venue, against its
// simulator over loopback. The simulator's manifest is the ground truth for what the venue lists.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Market, MarketEvent, Page } from '../../../src/domain/market.js';
import { allMarkets, registeredVenues, startVenue, type VenueUnderTest } from './harness.js';
import { assertEvent, assertMarket } from './invariants.js';

for (const id of registeredVenues()) {
  describe(`${id}: catalogue`, () => {
    let venue: VenueUnderTest;
    before(async () => {
      venue = await startVenue(id);
    });
    after(() => venue?.close());

    test('fetch_markets walks every page once: valid markets, no duplicates, every active listing present', async (t) => {
      const { catalog, descriptor } = venue.adapter;
      if (descriptor.has.fetch_markets === 'unsupported') {
        assert.equal(catalog.fetchMarketsPage, undefined);
        return t.skip('fetch_markets not declared');
      }
      const markets = await allMarkets(venue);
      assert.ok(markets.length > 0, 'empty catalogue');
      const seen = new Set<string>();
      for (const m of markets) {
        assertMarket(m, id);
        assert.ok(!seen.has(m.svc_id), `${m.svc_id} listed twice`);
        seen.add(m.svc_id);
      }
      // Every market the simulator lists must be reachable by exact lookup; every active one also by the walk.
      const manifest = await venue.sim.manifest();
      const nativeIds = [...new Set(Object.values(manifest).flat())];
      assert.ok(nativeIds.length > 0, 'empty manifest');
      assert.ok(catalog.fetchMarket, 'fetch_markets needs fetchMarket for exact lookups');
      for (const nativeId of nativeIds) {
        const market: Market | null = await catalog.fetchMarket(venue.ctx(), nativeId);
        assert.ok(market, `manifest market ${nativeId} not found by fetchMarket`);
        assertMarket(market, id);
        assert.equal(market.exchange_market_id, nativeId);
        if (market.status === 'active')
          assert.ok(seen.has(market.svc_id), `active ${market.svc_id} missing from the walk`);
      }
    });

    test('fetchMarket answers null for an id the venue does not know', async (t) => {
      const { catalog } = venue.adapter;
      if (!catalog.fetchMarket) return t.skip('no exact lookup');
      assert.equal(await catalog.fetchMarket(venue.ctx(), 'no-such-market-000000'), null);
    });

    test('fetch_events walks every page once with valid events covering the markets', async (t) => {
      const { catalog, descriptor } = venue.adapter;
      if (descriptor.has.fetch_events === 'unsupported') {
        assert.equal(catalog.fetchEventsPage, undefined);
        return t.skip('fetch_events not declared');
      }
      assert.ok(catalog.fetchEventsPage);
      const groups = new Set<string>();
      let cursor: string | null = null;
      for (let i = 0; i < 2_000; i++) {
        const result: Page<MarketEvent> = await catalog.fetchEventsPage(venue.ctx(), cursor);
        for (const e of result.items) {
          assertEvent(e, id);
          assert.ok(!groups.has(e.exchange_group_id), `event ${e.exchange_group_id} listed twice`);
          groups.add(e.exchange_group_id);
        }
        cursor = result.cursor;
        if (cursor === null) break;
      }
      assert.equal(cursor, null, 'events did not end');
      assert.ok(groups.size > 0);
      for (const m of (await allMarkets(venue)).filter((x) => x.status === 'active')) {
        assert.ok(
          groups.has(m.exchange_group_id),
          `${m.svc_id}: event ${m.exchange_group_id} not among events`,
        );
      }
    });
  });
}
