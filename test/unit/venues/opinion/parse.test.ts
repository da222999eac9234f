// Opinion parsers on real recorded payloads (test/fixtures/opinion, provenance in its README), plus
// invariants that hold for any input so a golden value cannot freeze a bug.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { TSchema } from 'typebox';
import Value from 'typebox/value';
import { intervalPeriod, rollUpTicks } from '../../../../src/domain/candles.js';
import { MARKET_STATUSES } from '../../../../src/domain/market.js';
import { parseSvcId } from '../../../../src/domain/svc-id.js';
import {
  eventOfRow,
  marketsOfRow,
  toMarket,
  toOrderBook,
  toPosition,
  toPriceTicks,
  topicStatus,
} from '../../../../src/venues/opinion/parse.js';
import {
  OpinionBook,
  OpinionEnvelope,
  OpinionMarket,
  OpinionPosition,
  OpinionPriceHistory,
} from '../../../../src/venues/opinion/payloads.js';
import { loadFixture } from '../../../support/fixtures.js';
import { assertProperty } from '../../../support/property.js';

const fixture = (name: string): unknown => loadFixture('opinion', name);

function decode<T>(schema: TSchema, value: unknown): T {
  const errors = [...Value.Errors(schema, value)].map((e) => `${e.instancePath}: ${e.message}`);
  assert.deepEqual(errors, [], 'payload schema rejects a real payload');
  return value as T;
}

function envelopeResult(name: string): unknown {
  const envelope = decode<OpinionEnvelope>(OpinionEnvelope, fixture(name));
  assert.equal(envelope.errno, 0);
  return envelope.result;
}

test('a categorical market (GET /market/categorical/{id}) becomes one binary market per child, grouped under it', () => {
  const row = decode<OpinionMarket>(OpinionMarket, fixture('http_get_market_categorical_result_data.json'));
  const markets = marketsOfRow(row);
  assert.deepEqual(
    markets.map((m) => m.exchange_market_id),
    ['16565', '16566'],
  );
  const [first, second] = markets;
  assert.ok(first && second);
  assert.equal(first.svc_id, 'opinion:16565');
  assert.deepEqual(parseSvcId(first.svc_id), { ok: true, value: { exchange: 'opinion', nativeId: '16565' } });
  assert.equal(first.svc_group_id, 'opinion:788');
  assert.equal(first.exchange_group_id, '788');
  assert.equal(first.group_title, 'How long will Trump and Xi shake hands when they meet?');
  assert.equal(first.question, 'How long will Trump and Xi shake hands when they meet? - 10–15s');
  assert.equal(first.market_type, 'binary');
  assert.equal(first.status, 'resolved');
  // 16565's resultTokenId is its YES token (it won); 16566's is its NO token (it lost).
  assert.deepEqual(
    first.outcomes.map((o) => [o.name, o.price]),
    [
      ['Yes', 1],
      ['No', 0],
    ],
  );
  assert.deepEqual(
    second.outcomes.map((o) => [o.name, o.price]),
    [
      ['Yes', 0],
      ['No', 1],
    ],
  );
  assert.equal(
    first.outcomes[0]?.token_id,
    '107063188116504514729209026208703521982564071792212276771696073817845504321279',
  );
  // Children carry cutoffAt 0 and empty rules: the parent's cutoff and rules stand in.
  assert.equal(first.end_date, '2026-05-15T00:00:00.000Z');
  assert.ok(first.description?.startsWith('This market resolves based on the length'));
  assert.equal(first.volume_total, 50);
  assert.equal(first.created_at, new Date(1778750719 * 1000).toISOString());
  assert.equal(first.condition_id, '469db44df1309dac7cf9fcaa142562f3c89719d47277e095d021c1561166539a');
  assert.equal(first.url, 'https://app.opinion.trade/detail?topicId=788&type=multi');
  assert.equal(first.slug, 'how-long-will-trump-and-xi-shake-hands-when-they-meet-10-15s');
  assert.match(first.image_url ?? '', /^https:\/\/images\.opinion\.trade\//);
  assert.equal(first.volume_24h, undefined, 'a child has no 24h volume of its own; none is invented');
});

test('the categorical event takes its status from its children (the recorded parent still says Created)', () => {
  const row = decode<OpinionMarket>(OpinionMarket, fixture('http_get_market_categorical_result_data.json'));
  assert.equal(topicStatus(row), 'closed', 'Created on its own is not active');
  const event = eventOfRow(row);
  assert.deepEqual(event, {
    exchange: 'opinion',
    exchange_group_id: '788',
    title: 'How long will Trump and Xi shake hands when they meet?',
    status: 'resolved',
    close_time: '2026-05-15T00:00:00.000Z',
    volume_total: 100,
  });
});

test('a child looked up on its own, parent unknown, is grouped under itself with its own title', () => {
  const row = decode<OpinionMarket>(OpinionMarket, fixture('http_get_market_categorical_result_data.json'));
  const child = row.childMarkets?.[0];
  assert.ok(child);
  const alone = toMarket(child, null);
  assert.equal(alone.exchange_group_id, '16565');
  assert.equal(alone.question, '10–15s');
  assert.equal(alone.end_date, null, 'cutoffAt 0 is no date, not 1970');
  assert.equal(alone.description, undefined);
});

test('GET /token/orderbook: decimal-string levels become sorted numbers; the ms timestamp becomes ISO', () => {
  const raw = decode<OpinionBook>(OpinionBook, envelopeResult('http_get_token_orderbook.json'));
  const token = '56915117085756475550546730127709511264652860289185956800398231821503615918119';
  const book = toOrderBook(raw, '1234', 'Yes', token);
  assert.deepEqual(book.asks, [[0.999, 5500]]);
  assert.deepEqual(book.bids, []);
  assert.equal(book.timestamp, new Date(1785488076901).toISOString());
  assert.equal(book.token_id, token);
  assert.equal(book.tick_size, null, 'Opinion publishes no tick size; none is guessed');
});

test('GET /token/price-history: points become ticks and candles starting on period boundaries', () => {
  const raw = decode<OpinionPriceHistory>(
    OpinionPriceHistory,
    envelopeResult('http_get_token_price_history.json'),
  );
  const ticks = toPriceTicks(raw, 1785495600 - 3_600, 1785495600 + 3_600);
  assert.deepEqual(ticks, [{ t: 1785495600, price: 0.001 }]);
  assert.deepEqual(rollUpTicks(ticks, intervalPeriod('1d')), [
    {
      timestamp: '2026-07-31T00:00:00.000Z',
      open: 0.001,
      high: 0.001,
      low: 0.001,
      close: 0.001,
      volume: null,
    },
  ]);
  assert.deepEqual(toPriceTicks(raw, 1785495601, 1785499999), [], 'points outside the window are dropped');
});

test('the documented {code, msg, result} envelope is accepted as well as the recorded {errno, errmsg, result}', () => {
  assert.ok(Value.Check(OpinionEnvelope, { code: 0, msg: 'success', result: { data: null } }));
  assert.ok(Value.Check(OpinionEnvelope, { errno: 11002, errmsg: 'Invalid API key', result: null }));
});

// ---- invariants ----

const decimalString = (min: number, max: number) =>
  fc.double({ min, max, noNaN: true, noDefaultInfinity: true }).map((x) => String(Math.round(x * 1e6) / 1e6));

test('invariant: any book parses sorted, uncrossed per side, unique prices in (0,1), positive sizes', () => {
  const level = fc.record({ price: decimalString(-0.5, 1.5), size: decimalString(-10, 1e6) });
  assertProperty(
    fc.property(fc.array(level, { maxLength: 30 }), fc.array(level, { maxLength: 30 }), (bids, asks) => {
      const book = toOrderBook({ timestamp: 1_700_000_000_000, bids, asks }, '1', 'Yes', '42');
      for (const [levels, descending] of [
        [book.bids, true],
        [book.asks, false],
      ] as const) {
        const prices = levels.map(([p]) => p);
        assert.deepEqual(
          prices,
          [...prices].sort((a, b) => (descending ? b - a : a - b)),
        );
        assert.equal(new Set(prices).size, prices.length);
        for (const [p, s] of levels) assert.ok(p > 0 && p < 1 && s > 0);
      }
    }),
    { examples: [] },
  );
});

test('invariant: every topic status maps to one of our statuses, and only Activated is active', () => {
  fc.assert(
    fc.property(fc.option(fc.integer({ min: -5, max: 12 })), fc.option(fc.string()), (status, statusEnum) => {
      const mapped = topicStatus({ status, statusEnum });
      assert.ok((MARKET_STATUSES as readonly string[]).includes(mapped));
      if (mapped === 'active') assert.ok(status === 2 || statusEnum?.toLowerCase() === 'activated');
    }),
    {
      // [null, '__proto__'] was found by fast-check (seed -1218740206): the enum table answered Object.prototype.
      examples: [
        [null, '__proto__'],
        [null, 'constructor'],
        [null, 'toString'],
        [null, 'hasOwnProperty'],
        [9, 'Constructor'],
      ],
    },
  );
});

test('a statusEnum naming an Object.prototype member is an unknown status, so closed', () => {
  for (const statusEnum of [
    '__proto__',
    'constructor',
    'toString',
    'hasOwnProperty',
    'valueOf',
    'CONSTRUCTOR',
  ]) {
    assert.equal(topicStatus({ status: null, statusEnum }), 'closed', statusEnum);
  }
  assert.equal(topicStatus({ status: null, statusEnum: 'Activated' }), 'active');
});

test('invariant: a position keeps its market id and size; prices are in 0..1 or null, never invented', () => {
  const position = fc.record({
    marketId: fc.integer({ min: 1, max: 10_000_000 }),
    tokenId: fc.option(fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }).map(String)),
    outcome: fc.option(fc.constantFrom('Yes', 'No', '', 'Trump')),
    outcomeSide: fc.option(fc.constantFrom(1, 2)),
    outcomeSideEnum: fc.option(fc.constantFrom('Yes', 'No')),
    sharesOwned: decimalString(0, 1e6),
    avgEntryPrice: fc.option(decimalString(-1, 2)),
    currentValueInQuoteToken: fc.option(decimalString(0, 1e6)),
  });
  assertProperty(
    fc.property(position, (raw) => {
      assert.ok(Value.Check(OpinionPosition, raw));
      const p = toPosition(raw);
      if (Number(raw.sharesOwned) === 0) return assert.equal(p, null);
      assert.ok(p);
      assert.equal(p.market_id, String(raw.marketId));
      assert.equal(p.size, Number(raw.sharesOwned));
      for (const price of [p.average_price, p.current_price])
        assert.ok(price === null || (price >= 0 && price <= 1));
      if (raw.avgEntryPrice === null) assert.equal(p.average_price, null);
    }),
    { examples: [] },
  );
});
