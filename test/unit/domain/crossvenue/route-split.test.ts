// The router's split: worked examples (fees turning the choice, a venue's minimum, max_legs, lots, ticks), the
// optimum against a brute force over every allocation where costs are convex (proportional fees), and the
// invariants of any split under venues' real rounding (Kalshi's cent ceiling per order, Polymarket's per match).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { WalkFill, WalkLevel } from '../../../../src/domain/book-walk.js';
import { type RouteVenue, splitRoute } from '../../../../src/domain/crossvenue/route-split.js';
import { Decimal } from '../../../../src/domain/decimal.js';
import { kalshiTakerFee } from '../../../../src/domain/fees/kalshi.js';
import { polymarketTakerFee } from '../../../../src/domain/fees/polymarket.js';
import { assertProperty } from '../../../support/property.js';

const d = Decimal.parse;
const levels = (...ls: Array<[string, string]>): WalkLevel[] =>
  ls.map(([p, s]) => ({ price: d(p), size: d(s) }));
const notional = (fills: readonly WalkFill[]) =>
  fills.reduce((s, f) => s.add(f.price.mul(f.size)), Decimal.ZERO);
const free = () => Decimal.ZERO;
const pct = (rate: string) => (fills: readonly WalkFill[]) => notional(fills).mul(d(rate));
const venue = (id: string, ls: readonly WalkLevel[], extra: Partial<RouteVenue> = {}): RouteVenue => ({
  id,
  levels: ls,
  fee: free,
  lot: d('0.01'),
  minSize: null,
  tick: d('0.01'),
  ...extra,
});
const legs = (r: ReturnType<typeof splitRoute>) =>
  r.plan.legs.map((l) => [l.id, l.size.toString(), l.limitPrice.toString(), l.netCost.toString()]);

test('buy 12: the cheap levels of both books, cheaper than the best single venue', () => {
  const a = venue('a', levels(['0.40', '5'], ['0.50', '10']));
  const b = venue('b', levels(['0.45', '10']));
  const r = splitRoute('buy', [a, b], d('12'), 5);
  assert.deepEqual(legs(r), [
    ['a', '5', '0.4', '2'],
    ['b', '7', '0.45', '3.15'],
  ]);
  assert.equal(r.plan.netCost.toString(), '5.15');
  // Alone, b cannot fill 12; a can, for 2 + 3.5.
  assert.equal(r.bestSingle?.legs[0]?.id, 'a');
  assert.equal(r.bestSingle?.netCost.toString(), '5.5');
});

test('a fee turns the choice: 10% on a makes b’s dearer price the cheaper contract', () => {
  const a = venue('a', levels(['0.40', '20']), { fee: pct('0.1') });
  const b = venue('b', levels(['0.43', '20']));
  const r = splitRoute('buy', [a, b], d('10'), 5);
  assert.deepEqual(legs(r), [['b', '10', '0.43', '4.3']]);
});

test('a sell: proceeds as a negative cost, highest bids first, fee taken off', () => {
  const a = venue('a', levels(['0.60', '3'], ['0.50', '10']), { fee: pct('0.02') });
  const b = venue('b', levels(['0.55', '10']));
  const r = splitRoute('sell', [a, b], d('8'), 5);
  // a's 0.60 nets 0.588; b's 0.55; a's 0.50 nets 0.49.
  assert.deepEqual(legs(r), [
    ['a', '3', '0.6', '-1.764'],
    ['b', '5', '0.55', '-2.75'],
  ]);
});

test('a share below a venue’s minimum is not proposed; max_legs 1 is the best single venue', () => {
  const a = venue('a', levels(['0.40', '5'], ['0.50', '10']));
  const b = venue('b', levels(['0.45', '10']), { minSize: d('10') });
  const r = splitRoute('buy', [a, b], d('12'), 5);
  assert.deepEqual(legs(r), [['a', '12', '0.5', '5.5']]);
  const one = splitRoute('buy', [venue('a', a.levels), venue('b', b.levels)], d('12'), 1);
  assert.deepEqual(legs(one), [['a', '12', '0.5', '5.5']]);
});

test('lots: shares are whole lots, topped up where the next lot is cheapest; an off-tick book rounds the limit', () => {
  const a = venue('a', levels(['0.40', '2.5'], ['0.60', '10']), { lot: d('1') });
  const b = venue('b', levels(['0.45', '1.5'], ['0.70', '10']), { lot: d('1') });
  const r = splitRoute('buy', [a, b], d('4'), 5);
  // Greedy: a 2.5, b 1.5 → cut to 2 and 1; the last lot is cheaper on a (0.5×0.40 + 0.5×0.60) than on b.
  assert.deepEqual(legs(r), [
    ['a', '3', '0.6', '1.3'],
    ['b', '1', '0.45', '0.45'],
  ]);
  const off = splitRoute('buy', [venue('a', levels(['0.403', '5']))], d('1'), 5);
  assert.equal(off.plan.legs[0]?.limitPrice.toString(), '0.41');
});

const cents = fc.integer({ min: 1, max: 99 }).map((c) => Decimal.fromInt(c).div(Decimal.fromInt(100), 2));
const book = fc
  .array(fc.record({ price: cents, size: fc.integer({ min: 1, max: 5 }).map((n) => Decimal.fromInt(n)) }), {
    maxLength: 4,
  })
  .map((ls) => [...ls].sort((x, y) => x.price.cmp(y.price)));

/** The least cost of `filled` contracts over every integer allocation, by brute force. */
function bruteForce(venues: RouteVenue[], filled: number): Decimal {
  const cost = (v: RouteVenue, n: number) => {
    let left = n;
    const fills: WalkFill[] = [];
    for (const l of v.levels) {
      const take = Math.min(left, l.size.toNumber());
      if (take > 0) fills.push({ price: l.price, size: Decimal.fromInt(take) });
      left -= take;
    }
    return notional(fills).add(v.fee(fills));
  };
  let best: Decimal | null = null;
  const go = (i: number, left: number, acc: Decimal) => {
    if (i === venues.length) {
      if (left === 0 && (!best || acc.lt(best))) best = acc;
      return;
    }
    const v = venues[i] as RouteVenue;
    const depth = v.levels.reduce((s, l) => s + l.size.toNumber(), 0);
    for (let n = 0; n <= Math.min(depth, left); n++)
      go(i + 1, left - n, acc.add(n === 0 ? Decimal.ZERO : cost(v, n)));
  };
  go(0, filled, Decimal.ZERO);
  return best ?? Decimal.ZERO;
}

test('with proportional fees (convex costs) the split is the optimum a brute force finds', () => {
  const rate = fc.constantFrom('0', '0.01', '0.05');
  assertProperty(
    fc.property(
      fc.array(fc.tuple(book, rate), { minLength: 1, maxLength: 3 }),
      fc.integer({ min: 1, max: 12 }),
      (vs, amount) => {
        const venues = vs.map(([ls, r], i) => venue(`v${i}`, ls, { fee: pct(r), lot: d('1') }));
        const depth = venues.reduce((s, v) => s + v.levels.reduce((t, l) => t + l.size.toNumber(), 0), 0);
        const r = splitRoute('buy', venues, Decimal.fromInt(amount), venues.length);
        const filled = Math.min(depth, amount);
        assert.equal(r.plan.filled.toNumber(), filled);
        if (filled > 0) assert.equal(r.plan.netCost.toString(), bruteForce(venues, filled).toString());
      },
    ),
    { examples: [] },
  );
});

test('under rounded fees: within max_legs, whole lots, minimums kept, never dearer than the best single venue', () => {
  const kalshi = (fills: readonly WalkFill[]) => kalshiTakerFee(Decimal.ONE, fills);
  const poly = (fills: readonly WalkFill[]) =>
    fills.reduce((s, f) => s.add(polymarketTakerFee(d('0.04'), 1, f.price, f.size)), Decimal.ZERO);
  const lotSized = fc
    .array(
      fc.record({
        price: cents,
        size: fc.integer({ min: 1, max: 2_000 }).map((n) => Decimal.fromInt(n).div(Decimal.fromInt(100), 2)),
      }),
      { maxLength: 5 },
    )
    .map((ls) => [...ls].sort((x, y) => x.price.cmp(y.price)));
  assertProperty(
    fc.property(
      fc.array(
        fc.tuple(
          lotSized,
          fc.constantFrom('kalshi', 'poly', 'free'),
          fc.option(fc.integer({ min: 1, max: 5 })),
        ),
        { minLength: 1, maxLength: 4 },
      ),
      fc.integer({ min: 1, max: 6_000 }).map((n) => Decimal.fromInt(n).div(Decimal.fromInt(100), 2)),
      fc.integer({ min: 1, max: 4 }),
      (vs, amount, maxLegs) => {
        const venues = vs.map(([ls, f, min], i) =>
          venue(`v${i}`, ls, {
            fee: f === 'kalshi' ? kalshi : f === 'poly' ? poly : free,
            minSize: min === null ? null : Decimal.fromInt(min),
          }),
        );
        const r = splitRoute('buy', venues, amount, maxLegs);
        assert.ok(r.plan.legs.length <= maxLegs);
        assert.ok(r.plan.filled.lte(amount));
        assert.ok(r.plan.legs.reduce((s, l) => s.add(l.size), Decimal.ZERO).eq(r.plan.filled));
        for (const leg of r.plan.legs) {
          const v = venues.find((x) => x.id === leg.id) as RouteVenue;
          assert.ok(leg.size.div(v.lot, 0, 'floor').mul(v.lot).eq(leg.size), 'whole lots');
          if (v.minSize) assert.ok(leg.size.gte(v.minSize), 'at least the minimum');
          for (const f of leg.walk.fills)
            assert.ok(f.price.lte(leg.limitPrice), 'the limit covers every fill');
        }
        if (r.bestSingle) {
          assert.ok(r.plan.filled.gte(r.bestSingle.filled));
          if (r.plan.filled.eq(r.bestSingle.filled)) assert.ok(r.plan.netCost.lte(r.bestSingle.netCost));
        }
      },
    ),
    { examples: [], numRuns: 200 },
  );
});

test('fixed example (found by the HTTP test’s grid check): Kalshi’s cent ceiling makes a split cheaper than greedy', () => {
  // The sandbox books of kalshi:KXMAYORSEA-27B-AMOR and its polymarket twin, buy 60: greedy put all 60 on kalshi
  // (9.93); moving part of it to polymarket (minimum 5) saves the fee's last cent.
  const kalshi = venue('kalshi', levels(['0.15', '23'], ['0.16', '175'], ['0.17', '462']), {
    fee: (fills) => kalshiTakerFee(Decimal.ONE, fills),
  });
  const poly = venue('poly', levels(['0.17', '189'], ['0.18', '528']), { minSize: d('5') });
  const amount = d('60');
  const r = splitRoute('buy', [poly, kalshi], amount, 5);
  // Every split on the 0.01 grid, priced exactly.
  const cost = (v: RouteVenue, size: Decimal) => {
    if (size.isZero()) return Decimal.ZERO;
    const fills: WalkFill[] = [];
    let left = size;
    for (const l of v.levels) {
      const take = Decimal.min(l.size, left);
      if (take.gt(Decimal.ZERO)) fills.push({ price: l.price, size: take });
      left = left.sub(take);
    }
    return notional(fills).add(v.fee(fills));
  };
  let best: Decimal | null = null;
  for (let c = 0; c <= 6000; c++) {
    const onPoly = Decimal.fromInt(c).div(Decimal.fromInt(100), 2);
    if (onPoly.gt(Decimal.ZERO) && onPoly.lt(d('5'))) continue;
    const total = cost(poly, onPoly).add(cost(kalshi, amount.sub(onPoly)));
    if (!best || total.lt(best)) best = total;
  }
  assert.equal(r.plan.netCost.toString(), best?.toString());
  assert.ok(r.plan.netCost.lt(cost(kalshi, amount)), 'cheaper than all on kalshi');
});

test('a venue’s minimum order value: a leg worth less than it (size × limit, whole cents) is never planned', () => {
  // Alone, a's 3 contracts at 0.30 are the cheapest, worth $0.90: below a $1 minimum (Polymarket's marketable buy).
  const a = venue('a', levels(['0.30', '3'], ['0.60', '100']), { minValue: d('1') });
  const b = venue('b', levels(['0.35', '100']));
  const r = splitRoute('buy', [a, b], d('6'), 5);
  for (const leg of r.plan.legs) {
    if (leg.id === 'a')
      assert.ok(leg.size.mul(leg.limitPrice).gte(d('1')), `a's leg ${leg.size} × ${leg.limitPrice}`);
  }
  // Without the minimum, the split takes a's three cheap contracts and b's three.
  const unbound = splitRoute('buy', [venue('a', a.levels), b], d('6'), 5);
  assert.deepEqual(legs(unbound), [
    ['a', '3', '0.3', '0.9'],
    ['b', '3', '0.35', '1.05'],
  ]);
  assert.notDeepEqual(legs(r), legs(unbound));
  // $1 exactly is taken: 4 at 0.25.
  const c = venue('c', levels(['0.25', '4']), { minValue: d('1') });
  assert.deepEqual(legs(splitRoute('buy', [c], d('4'), 5)), [['c', '4', '0.25', '1']]);
  assert.equal(splitRoute('buy', [c], d('3'), 5).plan.legs.length, 0, '3 × 0.25 = $0.75 is refused');
});
