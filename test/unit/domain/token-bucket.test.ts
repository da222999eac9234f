import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { takeToken } from '../../../src/domain/token-bucket.js';
import { assertProperty } from '../../support/property.js';

test('a full bucket admits exactly burst requests at one instant, then asks to wait 1/rate', () => {
  const bucket = { tokens: 10, updatedAt: 0 };
  for (let i = 0; i < 10; i++) assert.equal(takeToken(bucket, 10, 10, 0).allowed, true);
  const refused = takeToken(bucket, 10, 10, 0);
  assert.equal(refused.allowed, false);
  assert.equal(refused.retryAfterMs, 100);
  assert.equal(takeToken(bucket, 10, 10, 100).allowed, true);
});

test('never admits more than burst + rate * elapsed', () => {
  assertProperty(
    fc.property(
      fc.double({ min: 0.1, max: 1000, noNaN: true }),
      fc.integer({ min: 1, max: 500 }),
      fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 1, maxLength: 300 }),
      (rate, burst, gaps) => {
        const bucket = { tokens: burst, updatedAt: 0 };
        let now = 0;
        let admitted = 0;
        for (const gap of gaps) {
          now += gap;
          if (takeToken(bucket, rate, burst, now).allowed) admitted += 1;
        }
        assert.ok(admitted <= burst + (rate * now) / 1000 + 1e-9);
      },
    ),
    { examples: [] },
  );
});
