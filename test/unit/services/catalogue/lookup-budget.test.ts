// The per-customer budget of on-demand venue lookups: a full burst first, then the refill; what is short is
// refused with the time until it (up to a burst) could be paid; customers do not share; a rate of 0 is unlimited.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LookupBudget } from '../../../../src/services/catalogue/lookup-budget.js';

const rate = { venueLookupsPerSecond: 2, venueLookupsBurst: 10 };

test('the burst, then what the refill paid for; the shortfall says when it could be paid', () => {
  let now = 0;
  const budget = new LookupBudget(() => now);
  assert.deepEqual(budget.take('a', 4, rate), { granted: 4, retryAfterMs: 0 });
  assert.deepEqual(budget.take('a', 10, rate), { granted: 6, retryAfterMs: 2_000 });
  now = 1_000;
  assert.deepEqual(budget.take('a', 100, rate), { granted: 2, retryAfterMs: 5_000 }, 'a burst at most');
  assert.deepEqual(budget.take('b', 10, rate), { granted: 10, retryAfterMs: 0 }, 'b has its own bucket');
});

test('a rate of 0 is unlimited', () => {
  const budget = new LookupBudget(() => 0);
  const unlimited = { venueLookupsPerSecond: 0, venueLookupsBurst: 0 };
  assert.deepEqual(budget.take('admin', 1_000, unlimited), { granted: 1_000, retryAfterMs: 0 });
});
