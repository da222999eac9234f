// Contract: what every registered venue declares is what it does. A declared capability resolves to the venue;
// an undeclared one answers 501 not_supported through the resolution every venue-facing route uses (and the
// adapter has no method for it, which the registry enforces at start).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CAPABILITIES, type Capability, VENUE_CAPABILITIES } from '../../../src/domain/capabilities.js';
import { ExchangesService } from '../../../src/services/exchanges-service.js';
import { VenueRegistry } from '../../../src/venues/registry.js';
import { registeredVenues, rejectsWithStatus, startVenue, type VenueUnderTest } from './harness.js';

for (const id of registeredVenues()) {
  describe(`${id}: capabilities`, () => {
    let venue: VenueUnderTest;
    let exchanges: ExchangesService;
    before(async () => {
      venue = await startVenue(id, { size: 20 });
      exchanges = new ExchangesService(new VenueRegistry([venue.adapter]));
    });
    after(() => venue?.close());

    /**
     * The venue's own flags as declared; the cross-venue ones need orders, an immediate type and a taker fee the fee
     * models compute (features.takerFeeModel); fetch_arbitrage is declared only with a fee model.
     */
    const expected = (capability: Capability): boolean => {
      const { has, features } = venue.adapter.descriptor;
      const own = VENUE_CAPABILITIES.find((c) => c === capability);
      if (own === 'fetch_arbitrage') {
        assert.equal(has.fetch_arbitrage !== 'unsupported', features.takerFeeModel !== null);
      }
      if (own) return has[own] !== 'unsupported';
      return (
        has.create_order !== 'unsupported' &&
        has.fetch_execution_price !== 'unsupported' &&
        features.takerFeeModel !== null &&
        (features.orderTypes.includes('ioc') || features.orderTypes.includes('fok'))
      );
    };

    test('each declared capability resolves; each undeclared one is 501 not_supported', async () => {
      const served = exchanges.matrix(new Set(CAPABILITIES))[0];
      assert.ok(served);
      for (const capability of CAPABILITIES) {
        const declared = expected(capability);
        assert.equal(served.has[capability], declared, capability);
        if (declared) {
          assert.equal(exchanges.venueFor(id, capability), venue.adapter);
        } else {
          const error = await rejectsWithStatus((async () => exchanges.venueFor(id, capability))(), 501);
          assert.equal(error.code, 'not_supported');
          assert.match(error.message, new RegExp(capability));
        }
      }
    });

    test('a declared capability whose route this build does not serve is false in the matrix', () => {
      const none = exchanges.matrix(new Set())[0];
      assert.ok(none);
      for (const capability of CAPABILITIES) assert.equal(none.has[capability], false, capability);
    });
  });
}
