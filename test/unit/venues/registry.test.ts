import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CAPABILITIES, type VenueAdapter } from '../../../src/venues/port.js';
import { RegistryError, VenueRegistry } from '../../../src/venues/registry.js';
import { descriptorFor } from '../../support/loopback-venue.js';

const noPing: VenueAdapter['ping'] = async () => ({ reachable: true, authenticated: false, message: 'ok' });

test('a declared capability without its facet method refuses to start', () => {
  const venue: VenueAdapter = {
    descriptor: descriptorFor('kalshi', { fetch_orderbook: 'supported' }),
    catalog: {},
    marketData: {},
    trading: {},
    ping: noPing,
  };
  assert.throws(
    () => new VenueRegistry([venue]),
    (e: Error) => e instanceof RegistryError && /fetch_orderbook is declared/.test(e.message),
  );
});

test('a facet method whose capability is not declared refuses to start', () => {
  const venue: VenueAdapter = {
    descriptor: descriptorFor('kalshi'),
    catalog: {},
    marketData: {},
    trading: { cancelOrder: async () => Promise.reject(new Error('unused')) },
    ping: noPing,
  };
  assert.throws(() => new VenueRegistry([venue]), /cancel_order is not declared/);
});

test('polling counts as declared, duplicates are refused, and consistent venues register', () => {
  const ok: VenueAdapter = {
    descriptor: descriptorFor('opinion', { fetch_positions: 'polling' }),
    catalog: {},
    marketData: {},
    trading: { fetchPositions: async () => [] },
    ping: noPing,
  };
  const registry = new VenueRegistry([ok]);
  assert.equal(registry.get('opinion'), ok);
  assert.throws(() => new VenueRegistry([ok, ok]), /registered twice/);
  // The wire contract's sixteen flags and fetch_execution_price (docs/architecture.md, Decisions).
  assert.equal(CAPABILITIES.length, 17);
});
