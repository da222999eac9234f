// Limitless time-series and portfolio parsers on recorded payloads and web-app mocks (test/fixtures/limitless),
// plus invariants: NO prices mirror YES ones. (Candles from ticks are the domain roll-up's, tested there.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { TSchema } from 'typebox';
import Value from 'typebox/value';
import { intervalPeriod, rollUpTicks } from '../../../../src/domain/candles.js';
import {
  limitPositionsDocument,
  positionsToPositions,
} from '../../../../src/venues/limitless/parse-portfolio.js';
import { feedTrades, historyRange, historyTicks } from '../../../../src/venues/limitless/parse-series.js';
import {
  LimitlessFeedPage as FeedSchema,
  LimitlessPriceHistory as HistorySchema,
  type LimitlessFeedPage,
  type LimitlessPositions,
  type LimitlessPriceHistory,
  LimitlessPositions as PositionsSchema,
} from '../../../../src/venues/limitless/payloads.js';
import { assertCandles } from '../../../contract/venues/invariants.js';
import { loadFixture } from '../../../support/fixtures.js';
import { assertProperty } from '../../../support/property.js';

const fixture = (name: string): unknown => loadFixture('limitless', name);

function decode<T>(schema: TSchema, value: unknown): T {
  const errors = [...Value.Errors(schema, value)].map((e) => `${e.instancePath}: ${e.message}`);
  assert.deepEqual(errors, [], 'payload schema rejects a real payload');
  return value as T;
}

test('recorded historical prices: ms-string timestamps become seconds; NO is the complement', () => {
  const raw = decode<LimitlessPriceHistory>(
    HistorySchema,
    fixture('http_get_markets_slug_historical_price.json'),
  );
  const yes = historyTicks(raw, 'Yes', 'USA and Australia both to score?');
  assert.equal(yes.length, 20);
  assert.deepEqual(yes[0], { t: 1781289000, price: 0.476 });
  assert.deepEqual(historyTicks(raw, 'No', 'whatever')[0], { t: 1781289000, price: 0.524 });
  const candles = rollUpTicks(yes, intervalPeriod('1h'));
  assert.ok(candles.length >= 5);
  assertCandles(candles, 3600, 1781271900, 1781289000);
  assert.ok(candles.every((c) => c.open === 0.476 && c.close === 0.476 && c.volume === null));
});

test('web-app history mocks: one series for a market, one per option for a group (picked by title)', () => {
  const single = decode<LimitlessPriceHistory>(
    HistorySchema,
    fixture('http_get_markets_slug_historical_price_webapp_mock.json'),
  );
  assert.deepEqual(historyTicks(single, 'Yes', 'any'), [
    { t: 1747123467, price: 0.442 },
    { t: 1747123441, price: 0.399 },
    { t: 1747123343, price: 0.442 },
    { t: 1747123295, price: 0.5 },
  ]);
  const group = decode<LimitlessPriceHistory>(
    HistorySchema,
    fixture('http_get_markets_slug_historical_price_group_webapp_mock.json'),
  );
  assert.equal(historyTicks(group, 'Yes', '>110k').length, 5);
  assert.deepEqual(historyTicks(group, 'Yes', 'no such option'), []);
});

test('the history range is the smallest Limitless range covering the window', () => {
  assert.equal(historyRange(60 * 48), '1h');
  assert.equal(historyRange(3_600), '1h');
  assert.equal(historyRange(3_601), '6h');
  assert.equal(historyRange(86_400 * 2), '1w');
  assert.equal(historyRange(86_400 * 12), '1m');
  assert.equal(historyRange(86_400 * 48), 'all');
});

test('recorded trade feed: taker side, size ÷ 1e6, only the requested token, newest first', () => {
  const raw = decode<LimitlessFeedPage>(FeedSchema, fixture('http_get_markets_slug_events.json'));
  const token = '107351533390162975244672983811852739852090084984816899292786653138720848063052';
  const trades = feedTrades(raw.events, token, 'Yes');
  assert.equal(trades.length, 3);
  assert.deepEqual(
    trades.map((t) => [t.price, t.size, t.side, t.aggressor_side, t.timestamp]),
    [
      [0.956, 104.602, 'buy', 'buy', '2026-06-12T17:43:09.095Z'],
      [0.943, 106.044, 'buy', 'buy', '2026-06-12T17:42:49.105Z'],
      [0.928, 107.758, 'buy', 'buy', '2026-06-12T17:42:31.312Z'],
    ],
  );
  assert.equal(trades[0]?.taker_address, '0xd1af707df546e3195618E4519F5e78ceE9247678');
  assert.equal(new Set(trades.map((t) => t.id)).size, 3);
  assert.deepEqual(feedTrades(raw.events, 'another-token', 'No'), []);
});

test('web-app positions mock: CLOB balances ÷ 1e6 with fillPrice ÷ 1e6, AMM amounts as decimals', () => {
  const raw = decode<LimitlessPositions>(
    PositionsSchema,
    fixture('http_get_portfolio_positions_webapp_mock.json'),
  );
  const positions = positionsToPositions(raw, null);
  assert.deepEqual(positions[0], {
    market_id: 'market-5-1744046423292',
    outcome: 'Yes',
    size: 20,
    average_price: 0.45,
    current_price: 0.45,
  });
  const both = positions.filter((p) => p.market_id === 'option-1-1744209485398');
  assert.deepEqual(
    both.map((p) => [p.outcome, p.size, p.average_price, p.current_price]),
    [
      ['Yes', 85, 0.5, 0.55],
      ['No', 38.888889, 0.5, 0.45],
    ],
  );
  const amm = positions.find((p) => p.market_id === 'trending-amm-fri-25-apr-1745575276072');
  assert.deepEqual(amm, {
    market_id: 'trending-amm-fri-25-apr-1745575276072',
    outcome: 'Yes',
    size: 254.81372399999998,
    average_price: null,
    current_price: 0.5495495507197615,
  });
  assert.ok(
    positions.every((p) => p.size > 0),
    'empty sides are not positions',
  );
  assert.deepEqual(
    positionsToPositions(raw, 'option-1-1744209485398').map((p) => p.outcome),
    ['Yes', 'No'],
  );
});

test('the wallet-activity positions document is cut per list and otherwise passed through', () => {
  const raw = fixture('http_get_portfolio_positions_webapp_mock.json') as Record<string, unknown[]>;
  const cut = limitPositionsDocument(raw, 2);
  assert.equal((cut.clob as unknown[]).length, 2);
  assert.equal((cut.amm as unknown[]).length, 1);
  assert.deepEqual(cut.rewards, raw.rewards);
  assert.deepEqual(cut.clob, raw.clob?.slice(0, 2));
});

test('invariant: a NO series is the YES series mirrored', () => {
  assertProperty(
    fc.property(
      fc.array(fc.record({ t: fc.integer({ min: 1, max: 2e9 }), p: fc.integer({ min: 0, max: 1000 }) })),
      (points) => {
        const raw = {
          title: 'x',
          prices: points.map((x) => ({ timestamp: String(x.t * 1000), price: x.p / 1000 })),
        };
        const yes = historyTicks(raw, 'Yes', 'x');
        const no = historyTicks(raw, 'No', 'x');
        assert.equal(yes.length, no.length);
        yes.forEach((y, i) => {
          assert.equal(Math.round((y.price + (no[i]?.price ?? 0)) * 1e6), 1e6);
        });
      },
    ),
    { examples: [] },
  );
});
