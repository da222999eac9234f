import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { rollUpTicks } from '../../../src/domain/candles.js';
import { assertProperty } from '../../support/property.js';

test('ticks roll up into period-start candles with OHLC in time order, empty periods skipped', () => {
  const candles = rollUpTicks(
    [
      { t: 3_700, price: 0.5 },
      { t: 3_600, price: 0.4 },
      { t: 3_650, price: 0.7 },
      { t: 10_900, price: 0.6 },
    ],
    3_600,
  );
  assert.deepEqual(candles, [
    { timestamp: '1970-01-01T01:00:00.000Z', open: 0.4, high: 0.7, low: 0.4, close: 0.5, volume: null },
    { timestamp: '1970-01-01T03:00:00.000Z', open: 0.6, high: 0.6, low: 0.6, close: 0.6, volume: null },
  ]);
});

test('volume is summed only when every tick of the period has a size', () => {
  assert.equal(
    rollUpTicks(
      [
        { t: 0, price: 0.1, size: 2 },
        { t: 1, price: 0.2, size: 3 },
      ],
      60,
    )[0]?.volume,
    5,
  );
  assert.equal(
    rollUpTicks(
      [
        { t: 0, price: 0.1, size: 2 },
        { t: 1, price: 0.2 },
      ],
      60,
    )[0]?.volume,
    null,
  );
});

test('invariants: low <= open, close <= high; one candle per distinct period; period starts aligned', () => {
  assertProperty(
    fc.property(
      fc.array(
        fc.record({ t: fc.integer({ min: 0, max: 1e7 }), price: fc.double({ min: 0, max: 1, noNaN: true }) }),
      ),
      fc.constantFrom(60, 3_600, 86_400),
      (ticks, period) => {
        const candles = rollUpTicks(ticks, period);
        assert.equal(candles.length, new Set(ticks.map((k) => Math.floor(k.t / period))).size);
        for (const c of candles) {
          assert.ok(c.low <= Math.min(c.open, c.close) && c.high >= Math.max(c.open, c.close));
          assert.equal((Date.parse(c.timestamp) / 1000) % period, 0);
        }
      },
    ),
    { examples: [] },
  );
});
