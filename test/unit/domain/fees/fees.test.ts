// Each venue's fee module on worked examples from the venue's own documents, and the invariants of the curves.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { walkBook } from '../../../../src/domain/book-walk.js';
import { Decimal } from '../../../../src/domain/decimal.js';
import { feeFor } from '../../../../src/domain/fees/fee-for.js';

const d = Decimal.parse;
const fills = (...levels: [string, string][]) =>
  walkBook(
    'buy',
    levels.map(([p, s]) => ({ price: d(p), size: d(s) })),
    levels.reduce((sum, [, s]) => sum.add(d(s)), Decimal.ZERO),
  );

test('polymarket: C × r × (p(1−p))^e per match, rounded to 5 decimals', () => {
  // docs.polymarket.com/trading/fees fee table: 100 shares at 0.50, rate 0.25, exponent 2 → $1.5625 (1.56%).
  const at50 = feeFor({ venue: 'polymarket', rate: '0.25', exponent: 2 }, fills(['0.5', '100']));
  assert.equal(at50.fee?.toString(), '1.5625');
  assert.equal(at50.info.fee_type, 'quadratic');
  assert.equal(at50.info.is_estimate, false);
  // Exponent 1, rate 0.07 (crypto): 10 shares at 0.65 → 0.15925.
  assert.equal(
    feeFor({ venue: 'polymarket', rate: '0.07', exponent: 1 }, fills(['0.65', '10'])).fee?.toString(),
    '0.15925',
  );
  // Each match rounds on its own: 1 share at 0.01 with rate 0.0175 → 0.00017325 → 0.00017.
  assert.equal(
    feeFor(
      { venue: 'polymarket', rate: '0.0175', exponent: 1 },
      fills(['0.01', '1'], ['0.02', '1']),
    ).fee?.toString(),
    '0.00051',
  );
  const free = feeFor({ venue: 'polymarket', rate: '0', exponent: 0 }, fills(['0.5', '100']));
  assert.equal(free.fee?.toString(), '0');
  assert.equal(free.info.fee_type, 'none');
});

test('kalshi: ceil(0.07 × multiplier × C × P × (1−P)) to the cent over the order', () => {
  const q = (m: string) => ({ venue: 'kalshi' as const, feeType: 'quadratic', multiplier: m });
  // Kalshi's schedule example: 10 contracts at $0.50 → $0.175 → $0.18; one contract at 0.50 → $0.02.
  assert.equal(feeFor(q('1'), fills(['0.5', '10'])).fee?.toString(), '0.18');
  assert.equal(feeFor(q('1'), fills(['0.5', '1'])).fee?.toString(), '0.02');
  // 100 contracts at 0.05 → 0.3325 → 0.34.
  assert.equal(feeFor(q('1'), fills(['0.05', '100'])).fee?.toString(), '0.34');
  assert.equal(feeFor(q('0.5'), fills(['0.5', '10'])).fee?.toString(), '0.09');
  const flat = feeFor({ venue: 'kalshi', feeType: 'flat', multiplier: '1' }, fills(['0.5', '10']));
  assert.equal(flat.fee, null);
  assert.equal(flat.info.is_estimate, true);
});

test('predictfun: feeRateBps × min(p, 1−p) × shares, before discounts', () => {
  // docs.predict.fun: buying 100 NO at 0.30 with a 0.005 rate → $0.15.
  const r = feeFor({ venue: 'predictfun', feeRateBps: '50' }, fills(['0.3', '100']));
  assert.equal(r.fee?.toString(), '0.15');
  assert.equal(r.info.is_estimate, true);
  assert.equal(
    feeFor({ venue: 'predictfun', feeRateBps: '200' }, fills(['0.7', '100'])).fee?.toString(),
    '0.6',
  );
  assert.equal(feeFor({ venue: 'predictfun', feeRateBps: null }, fills(['0.7', '100'])).fee, null);
});

test('limitless and opinion publish no curve: no fee, an estimate with a note', () => {
  for (const venue of ['limitless', 'opinion'] as const) {
    const r = feeFor({ venue }, fills(['0.5', '1']));
    assert.equal(r.fee, null);
    assert.equal(r.info.exchange, venue);
    assert.equal(r.info.is_estimate, true);
    assert.ok(r.info.note);
  }
});
