import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { Candle } from '../../../src/domain/book.js';
import {
  type CandlePeriod,
  intervalPeriod,
  type PriceTick,
  periodStart,
  rollUpCandles,
  rollUpTicks,
  sumDecimals,
} from '../../../src/domain/candles.js';
import { assertProperty } from '../../support/property.js';

const HOUR: CandlePeriod = { seconds: 3_600, anchor: 0 };

test('ticks roll up into period-start candles with OHLC in time order, empty periods skipped', () => {
  const candles = rollUpTicks(
    [
      { t: 3_700, price: 0.5 },
      { t: 3_600, price: 0.4 },
      { t: 3_650, price: 0.7 },
      { t: 10_900, price: 0.6 },
    ],
    HOUR,
  );
  assert.deepEqual(candles, [
    { timestamp: '1970-01-01T01:00:00.000Z', open: 0.4, high: 0.7, low: 0.4, close: 0.5, volume: null },
    { timestamp: '1970-01-01T03:00:00.000Z', open: 0.6, high: 0.6, low: 0.6, close: 0.6, volume: null },
  ]);
});

test('volume is summed only when every tick of the period has a size, and summed exactly', () => {
  const minute = { seconds: 60, anchor: 0 };
  const sized = [
    { t: 0, price: 0.1, size: 0.1 },
    { t: 1, price: 0.2, size: 0.2 },
  ];
  assert.equal(rollUpTicks(sized, minute)[0]?.volume, 0.3, '0.1 + 0.2 is 0.3, not float noise');
  assert.equal(rollUpTicks([...sized, { t: 2, price: 0.3 }], minute)[0]?.volume, null);
  assert.equal(sumDecimals([1e-7, 2e-7]), 3e-7);
  assert.equal(sumDecimals([1e21, 1]), 1e21 + 1);
  assert.equal(sumDecimals([-0.1, 0.3]), 0.2);
});

test('weeks start on Monday 00:00 UTC; the other intervals on UTC boundaries', () => {
  const week = intervalPeriod('1w');
  // 2026-06-11 is a Thursday; its week began on Monday 2026-06-08.
  const thursday = Date.parse('2026-06-11T15:30:00Z') / 1000;
  assert.equal(new Date(periodStart(thursday, week) * 1000).toISOString(), '2026-06-08T00:00:00.000Z');
  const monday = Date.parse('2026-06-08T00:00:00Z') / 1000;
  assert.equal(periodStart(monday, week), monday);
  assert.equal(periodStart(monday - 1, week), monday - 7 * 86_400);
  assert.equal(
    new Date(periodStart(thursday, intervalPeriod('6h')) * 1000).toISOString(),
    '2026-06-11T12:00:00.000Z',
  );
});

test('candles that would straddle a target period are refused, not split', () => {
  const hourly: Candle[] = [
    { timestamp: '1970-01-01T01:00:00.000Z', open: 0.5, high: 0.5, low: 0.5, close: 0.5, volume: 1 },
  ];
  assert.throws(() => rollUpCandles(hourly, 3_600, { seconds: 5_400, anchor: 0 }), RangeError);
  assert.throws(() => rollUpCandles(hourly, 3_600, { seconds: 7_200, anchor: 1_800 }), RangeError);
  const offBoundary = [{ ...hourly[0], timestamp: '1970-01-01T01:30:00.000Z' } as Candle];
  assert.throws(() => rollUpCandles(offBoundary, 3_600, { seconds: 7_200, anchor: 0 }), RangeError);
});

const tickArb = fc.record(
  {
    t: fc.integer({ min: 0, max: 100_000_000 }),
    price: fc.double({ min: 0, max: 1, noNaN: true }),
    // Sizes in hundredths, as venues print them: the expected total is then exact integer arithmetic.
    size: fc.integer({ min: 0, max: 10_000_000 }).map((n) => n / 100),
  },
  { requiredKeys: ['t', 'price'] },
);
const periodArb = fc.oneof(
  fc.constantFrom<CandlePeriod>(
    intervalPeriod('1m'),
    intervalPeriod('1h'),
    intervalPeriod('6h'),
    intervalPeriod('1d'),
    intervalPeriod('1w'),
  ),
  fc.record({ seconds: fc.integer({ min: 1, max: 1_000_000 }), anchor: fc.integer({ min: 0, max: 1e8 }) }),
);

function assertOhlc(c: Candle): void {
  assert.ok(c.low <= c.open && c.open <= c.high, `open outside low..high: ${JSON.stringify(c)}`);
  assert.ok(c.low <= c.close && c.close <= c.high, `close outside low..high: ${JSON.stringify(c)}`);
}

test('ticks → candles: OHLC invariants, aligned period starts, one candle per period that has ticks', () => {
  assertProperty(
    fc.property(fc.array(tickArb, { maxLength: 200 }), periodArb, (ticks: PriceTick[], period) => {
      const candles = rollUpTicks(ticks, period);
      const periods = new Set(ticks.map((k) => periodStart(k.t, period)));
      assert.equal(candles.length, periods.size, 'no invented and no missing periods');
      let previous = Number.NEGATIVE_INFINITY;
      for (const c of candles) {
        assertOhlc(c);
        const start = Date.parse(c.timestamp) / 1000;
        assert.ok(periods.has(start), `candle at ${c.timestamp} has no tick`);
        assert.equal(periodStart(start, period), start, 'period start aligned');
        assert.ok(start > previous, 'candles in time order');
        previous = start;
        const inside = ticks.filter((k) => periodStart(k.t, period) === start);
        assert.equal(c.high, Math.max(...inside.map((k) => k.price)));
        assert.equal(c.low, Math.min(...inside.map((k) => k.price)));
        const sized = inside.every((k) => k.size !== undefined);
        if (!sized) assert.equal(c.volume, null);
        else {
          const cents = inside.reduce((sum, k) => sum + Math.round((k.size as number) * 100), 0);
          assert.equal(c.volume, cents / 100, 'volumes add up exactly');
        }
      }
    }),
    // A period anchored after the tick: the tick's period starts before the anchor (a negative remainder).
    { examples: [[[{ t: 0, price: 0 }], { seconds: 1, anchor: 1 }]] },
  );
});

test('candles → candles equals ticks → candles directly when the periods nest (1h → 6h, 1d → 1w, …)', () => {
  const nesting: Array<[CandlePeriod, CandlePeriod]> = [
    [intervalPeriod('1m'), intervalPeriod('1h')],
    [intervalPeriod('1h'), intervalPeriod('6h')],
    [intervalPeriod('1h'), intervalPeriod('1d')],
    [intervalPeriod('1d'), intervalPeriod('1w')],
    [intervalPeriod('1h'), { seconds: 30 * 86_400, anchor: 7 * 3_600 }],
  ];
  assertProperty(
    fc.property(
      fc.array(tickArb, { maxLength: 200 }),
      fc.constantFrom(...nesting),
      (ticks, [fine, coarse]) => {
        const direct = rollUpTicks(ticks, coarse);
        const twoStep = rollUpCandles(rollUpTicks(ticks, fine), fine.seconds, coarse);
        assert.deepEqual(twoStep, direct);
        for (const c of twoStep) assertOhlc(c);
      },
    ),
    { examples: [] },
  );
});

test('exact decimal sums agree with integer arithmetic', () => {
  assertProperty(
    fc.property(
      fc.array(fc.integer({ min: -1e9, max: 1e9 }), { maxLength: 50 }),
      fc.constantFrom(1, 100, 1e6),
      (units, scale) => {
        assert.equal(sumDecimals(units.map((u) => u / scale)), units.reduce((a, b) => a + b, 0) / scale);
      },
    ),
    { examples: [] },
  );
});
