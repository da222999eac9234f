// The tier's history window: free keys read 5 days back, unlimited tiers anything; asked-for starts beyond it are
// 400s, default starts are clamped.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  assertInTierWindow,
  clampToTierWindow,
  tierWindowStart,
} from '../../../../src/services/market-data/history-window.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const caller = (days: number) => ({ requestId: 'r', logger: silent, tenant: null, historyMaxAgeDays: days });
const NOW = 1_800_000_000;

test('a 5-day tier reads back to exactly 5 days; an unlimited tier anywhere', () => {
  assert.equal(tierWindowStart(caller(5), NOW), NOW - 5 * 86_400);
  assert.equal(tierWindowStart(caller(0), NOW), null);
  assertInTierWindow(NOW - 5 * 86_400, caller(5), NOW, 'start_ts');
  assert.throws(() => assertInTierWindow(NOW - 5 * 86_400 - 1, caller(5), NOW, 'start_ts'), /older than/);
  assertInTierWindow(0, caller(0), NOW, 'start_ts');
  assert.equal(clampToTierWindow(NOW - 30 * 86_400, caller(5), NOW), NOW - 5 * 86_400);
  assert.equal(clampToTierWindow(NOW - 30 * 86_400, caller(0), NOW), NOW - 30 * 86_400);
});
