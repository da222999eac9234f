// Polymarket parsers on real recorded payloads (test/fixtures/polymarket, provenance in its README), plus
// invariants that hold for any input so a golden value cannot freeze a bug.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { TSchema } from 'typebox';
import Value from 'typebox/value';
import { parseSvcId } from '../../../../src/domain/svc-id.js';
import {
  clobBookToOrderBook,
  gammaEventToEvent,
  gammaMarketToMarket,
  gammaStatus,
  parseJsonStringArray,
} from '../../../../src/venues/polymarket/parse.js';
import {
  PolymarketBook,
  PolymarketGammaEvent,
  PolymarketGammaMarket,
} from '../../../../src/venues/polymarket/payloads.js';
import { loadFixture } from '../../../support/fixtures.js';
import { assertProperty } from '../../../support/property.js';

const fixture = (name: string): unknown => loadFixture('polymarket', name);

function decode<T>(schema: TSchema, value: unknown): T {
  const errors = [...Value.Errors(schema, value)].map((e) => `${e.instancePath}: ${e.message}`);
  assert.deepEqual(errors, [], 'payload schema rejects a real payload');
  return value as T;
}

test('a resolved Gamma market (GET /markets/{id}) normalizes with token ids, prices and the resolved status', () => {
  const raw = decode<PolymarketGammaMarket>(PolymarketGammaMarket, fixture('http_get_gamma_markets_id.json'));
  const m = gammaMarketToMarket(raw);
  assert.equal(m.svc_id, 'polymarket:0x202abb9a80673068ec5ce9294d60e31eeaf3ab5c82fb21fb0c9142e5d0cab385');
  assert.deepEqual(parseSvcId(m.svc_id), {
    ok: true,
    value: { exchange: 'polymarket', nativeId: m.exchange_market_id },
  });
  assert.equal(m.exchange_group_id, '346898');
  assert.equal(m.svc_group_id, 'polymarket:346898');
  assert.equal(m.status, 'resolved');
  assert.equal(m.market_type, 'binary');
  assert.deepEqual(
    m.outcomes.map((o) => [o.name, o.price]),
    [
      ['FaZe', 1],
      ['illwill', 0],
    ],
  );
  assert.match(m.outcomes[0]?.token_id ?? '', /^\d{70,80}$/);
  assert.equal(m.volume_total, 26458.188064999995);
  assert.equal(m.liquidity, null, 'absent liquidity stays null, never 0');
  assert.equal(m.tick_size, 0.001);
  assert.equal(m.min_order_size, 5);
  assert.equal(m.event_start_time, '2026-04-05T15:10:00.000Z');
  assert.equal(m.url, 'https://polymarket.com/event/cs2-faze-ill-2026-04-05');
});

test('a Gamma event (GET /events) and its nested markets normalize, the markets grouped under the event', () => {
  const events = fixture('http_get_gamma_events.json') as unknown[];
  const raw = decode<PolymarketGammaEvent>(PolymarketGammaEvent, events[0]);
  const event = gammaEventToEvent(raw);
  assert.deepEqual(event, {
    exchange: 'polymarket',
    exchange_group_id: '835109',
    title: 'Toray MLP Playoffs Newport Beach: St. Louis Shock vs Texas Ranchers (Match 1)',
    status: 'active',
    close_time: '2026-08-21T21:00:00Z',
    volume_total: 885.047949,
  });
  const markets = (raw.markets ?? []).map((m) => gammaMarketToMarket(m, raw));
  assert.equal(markets.length, 2);
  for (const m of markets) {
    assert.equal(m.exchange_group_id, '835109');
    assert.equal(m.status, 'active');
    assert.equal(m.outcomes.length, 2);
    const sum = m.outcomes.reduce((s, o) => s + (o.price ?? 0), 0);
    assert.ok(Math.abs(sum - 1) < 0.02, `outcome prices of ${m.svc_id} sum to ${sum}`);
  }
  assert.equal(markets[0]?.liquidity, 29.0194, 'a decimal-string liquidity becomes a number');
});

test('the reduced Gamma market of GET /markets?slug= decodes and normalizes', () => {
  const raw = decode<PolymarketGammaMarket>(
    PolymarketGammaMarket,
    fixture('http_get_gamma_markets_slug_reduced.json'),
  );
  const m = gammaMarketToMarket(raw);
  assert.equal(m.exchange, 'polymarket');
  assert.ok(m.outcomes.every((o) => typeof o.token_id === 'string'));
});

test('CLOB books, V2 with an empty ask side and V1 unsorted without a timestamp, come out sorted', () => {
  const v2 = clobBookToOrderBook(
    decode<PolymarketBook>(PolymarketBook, fixture('http_get_book_v2_empty_ask.json')),
    'Yes',
    new Date(0),
  );
  assert.deepEqual(v2.bids, [
    [0.002, 6.99],
    [0.001, 667.12],
  ]);
  assert.deepEqual(v2.asks, []);
  assert.equal(v2.tick_size, 0.001);
  assert.equal(v2.min_order_size, 5);
  assert.equal(v2.timestamp, new Date(1785734468581).toISOString());

  const received = new Date('2026-11-22T10:00:00Z');
  const v1 = clobBookToOrderBook(
    decode<PolymarketBook>(PolymarketBook, fixture('http_get_book_v1.json')),
    'Yes',
    received,
  );
  assert.equal(v1.timestamp, received.toISOString());
  assertBookInvariants(v1);
  assert.equal(v1.tick_size, null, 'an absent tick size stays null');
});

test('book invariants hold for any levels the wire may send', () => {
  const level = fc.record({
    price: fc.integer({ min: 1, max: 999 }).map((p) => String(p / 1000)),
    size: fc.double({ min: 0.01, max: 1e6, noNaN: true }).map(String),
  });
  assertProperty(
    fc.property(fc.array(level), fc.array(level), (bids, asks) => {
      const book = clobBookToOrderBook({ market: '0x1', asset_id: '1', bids, asks }, 'Yes', new Date(0));
      assert.equal(book.bids.length, bids.length);
      assert.equal(book.asks.length, asks.length);
      for (let i = 1; i < book.bids.length; i++)
        assert.ok((book.bids[i - 1]?.[0] ?? 0) >= (book.bids[i]?.[0] ?? 0));
      for (let i = 1; i < book.asks.length; i++)
        assert.ok((book.asks[i - 1]?.[0] ?? 0) <= (book.asks[i]?.[0] ?? 0));
    }),
    { examples: [] },
  );
});

test('status mapping and JSON-string arrays follow the venue rules', () => {
  assert.equal(
    gammaStatus({ archived: true, closed: true, active: true, umaResolutionStatus: 'resolved' }),
    'archived',
  );
  assert.equal(
    gammaStatus({ archived: false, closed: true, active: true, umaResolutionStatus: 'resolved' }),
    'resolved',
  );
  assert.equal(
    gammaStatus({ archived: false, closed: true, active: true, umaResolutionStatus: 'proposed' }),
    'closed',
  );
  assert.equal(
    gammaStatus({ archived: false, closed: false, active: true, umaResolutionStatus: null }),
    'active',
  );
  assert.deepEqual(parseJsonStringArray('["Yes", "No"]', 'outcomes'), ['Yes', 'No']);
  assert.deepEqual(parseJsonStringArray(undefined, 'outcomes'), []);
  assert.throws(() => parseJsonStringArray('Yes,No', 'outcomes'), /not a JSON-encoded array/);
  assert.throws(() => parseJsonStringArray('[1,2]', 'outcomes'), /not an array of strings/);
});

function assertBookInvariants(book: ReturnType<typeof clobBookToOrderBook>): void {
  for (let i = 1; i < book.bids.length; i++)
    assert.ok((book.bids[i - 1]?.[0] ?? 0) > (book.bids[i]?.[0] ?? 0));
  for (let i = 1; i < book.asks.length; i++)
    assert.ok((book.asks[i - 1]?.[0] ?? 0) < (book.asks[i]?.[0] ?? 0));
  const bestBid = book.bids[0]?.[0];
  const bestAsk = book.asks[0]?.[0];
  if (bestBid !== undefined && bestAsk !== undefined) assert.ok(bestBid < bestAsk, 'crossed book');
}
