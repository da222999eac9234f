// Arbitrage between two legs: every figure against a recomputation here in integer micro-units (a brute force over
// every whole size, not the module's search), with fee models of the venues' shapes written here: a per-fill fee
// rounded to 1e-5 (Polymarket), an order's fee rounded up to the cent (Kalshi), and none.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { WalkFill, WalkLevel } from '../../../../src/domain/book-walk.js';
import {
  type ArbitrageLeg,
  CURVE_SIZES,
  commonDepth,
  evaluateArbitrage,
  largestProfitable,
  mayProfit,
  pricePair,
} from '../../../../src/domain/crossvenue/arbitrage.js';
import { Decimal } from '../../../../src/domain/decimal.js';
import { assertProperty } from '../../../support/property.js';

type Lv = [price: number, size: number];
type FeeKind = 'none' | 'kalshi' | 'poly';

const d = (n: number) => Decimal.fromNumber(n);

/** The module's leg, with its fee in decimals. */
function leg(asks: Lv[], fee: FeeKind): ArbitrageLeg {
  const levels: WalkLevel[] = asks.map(([p, s]) => ({ price: d(p), size: d(s) }));
  const fees: Record<FeeKind, (fills: readonly WalkFill[]) => Decimal> = {
    none: () => Decimal.ZERO,
    kalshi: (fills) =>
      fills
        .reduce((t, f) => t.add(f.size.mul(f.price).mul(Decimal.ONE.sub(f.price))), Decimal.ZERO)
        .mul(Decimal.parse('0.07'))
        .round(2, 'ceil'),
    poly: (fills) =>
      fills.reduce(
        (t, f) =>
          t.add(
            f.size
              .mul(Decimal.parse('0.02'))
              .mul(f.price.mul(Decimal.ONE.sub(f.price)))
              .round(5, 'half_up'),
          ),
        Decimal.ZERO,
      ),
  };
  return { asks: levels, fee: fees[fee] };
}

// The reference, in integer units of 1e-8 dollars (prices have at most 2 decimals here, sizes are whole).
const U = 100_000_000;
function refCost(asks: Lv[], fee: FeeKind, size: number): number | null {
  let left = size;
  let cost = 0;
  let feeRaw = 0; // in U × 1e-4 for kalshi's p(1-p) sum
  let polyFee = 0;
  for (const [p, s] of asks) {
    if (left <= 0) break;
    const take = Math.min(s, left);
    const pc = Math.round(p * 100); // cents
    cost += pc * take * (U / 100);
    feeRaw += take * pc * (100 - pc); // × 1e-4 dollars
    // 0.02 × take × p(1-p) in dollars, rounded half up to 1e-5: in units of 1e-9 first.
    const nano = 2 * take * pc * (100 - pc) * 1_000; // 0.02 × take × pc(100-pc)/1e4 dollars = ×1e9 → ×2×1e3... per 1e-9
    polyFee += Math.floor((nano + 5_000) / 10_000) * 1_000; // to 1e-5 dollars, in 1e-8 units
    left -= take;
  }
  if (left > 0) return null;
  if (fee === 'kalshi') {
    // 0.07 × feeRaw × 1e-4 dollars, up to the cent: 7 × feeRaw × 1e-6 dollars.
    const micro = 7 * feeRaw; // in 1e-6 dollars
    cost += Math.ceil(micro / 10_000) * (U / 100);
  } else if (fee === 'poly') {
    cost += polyFee;
  }
  return cost;
}
function refProfit(a: [Lv[], FeeKind], b: [Lv[], FeeKind], size: number): number | null {
  const ca = refCost(a[0], a[1], size);
  const cb = refCost(b[0], b[1], size);
  return ca === null || cb === null ? null : size * U - ca - cb;
}
const depth = (asks: Lv[]) => asks.reduce((s, [, x]) => s + x, 0);

function check(a: [Lv[], FeeKind], b: [Lv[], FeeKind], minSize = 1): void {
  const legs = [leg(...a), leg(...b)] as const;
  const both = Math.min(depth(a[0]), depth(b[0]));
  assert.equal(commonDepth(legs).toNumber(), both);
  // Brute force: the largest whole size with a positive profit.
  let largest: number | null = null;
  for (let s = 1; s <= both; s++) if ((refProfit(a, b, s) as number) > 0) largest = s;
  assert.equal(largestProfitable(legs, commonDepth(legs))?.toNumber() ?? null, largest, 'largest profitable');
  const ev = evaluateArbitrage(legs, minSize);
  if (both < minSize) {
    assert.equal(ev, null);
    return;
  }
  assert.ok(ev);
  const want = [minSize, ...CURVE_SIZES.filter((s) => s > minSize && s <= both)];
  if (largest !== null && largest >= minSize && !want.includes(largest)) want.push(largest);
  want.sort((x, y) => x - y);
  assert.deepEqual(
    ev.curve.map((p) => p.size.toNumber()),
    want,
  );
  for (const p of ev.curve) {
    const s = p.size.toNumber();
    const profit = refProfit(a, b, s) as number;
    assert.equal(p.netProfit.toNumber(), profit / U, `profit at ${s}`);
    assert.ok(Math.abs(p.edgeBps.toNumber() - (profit / U / s) * 10_000) < 1e-4, `edge at ${s}`);
    assert.equal(p.cost.add(p.netProfit).toNumber(), s);
  }
  assert.equal(
    ev.maxProfitable?.size.toNumber() ?? null,
    largest !== null && largest >= minSize ? largest : null,
  );
  const bestEdge = Math.max(...ev.curve.map((p) => p.edgeBps.toNumber()));
  assert.equal(ev.best.edgeBps.toNumber(), bestEdge);
}

test('no fees: the largest profitable size is where the two asks stop summing below 1', () => {
  // 0.40 + 0.55 for 30, then 0.40 + 0.58 for 20, then 0.45 + 0.58: 0.95 and 0.98 pay, 1.03 does not.
  check(
    [
      [
        [0.4, 50],
        [0.45, 100],
      ],
      'none',
    ],
    [
      [
        [0.55, 30],
        [0.58, 200],
      ],
      'none',
    ],
  );
  const legs = [
    leg(
      [
        [0.4, 50],
        [0.45, 100],
      ],
      'none',
    ),
    leg(
      [
        [0.55, 30],
        [0.58, 200],
      ],
      'none',
    ),
  ] as const;
  // Pairs 1..30 earn 0.05, 31..50 earn 0.02, then each loses 0.03: profit 1.90 at 50, 0.01 at 113, −0.02 at 114.
  assert.equal(largestProfitable(legs, commonDepth(legs))?.toString(), '113');
  assert.equal(pricePair(legs, Decimal.fromInt(10)).edgeBps.toString(), '500');
  assert.equal(pricePair(legs, Decimal.fromInt(50)).netProfit.toString(), '1.9');
});

test("Kalshi's cent ceiling and Polymarket's per-fill rounding are paid at every size", () => {
  check(
    [
      [
        [0.47, 12],
        [0.49, 40],
        [0.52, 300],
      ],
      'poly',
    ],
    [
      [
        [0.5, 25],
        [0.51, 500],
      ],
      'kalshi',
    ],
  );
  check(
    [[[0.3, 7]], 'kalshi'],
    [
      [
        [0.66, 3],
        [0.69, 9],
      ],
      'kalshi',
    ],
  );
  // A shallow loss per pair past the first level, under Kalshi's cent ceiling: a sawtooth near zero.
  check(
    [
      [
        [0.3, 20],
        [0.51, 400],
      ],
      'none',
    ],
    [[[0.48, 420]], 'kalshi'],
  );
  check(
    [
      [
        [0.45, 3],
        [0.5, 400],
      ],
      'poly',
    ],
    [[[0.49, 420]], 'kalshi'],
  );
  // One contract at 0.49 + 0.49 on Kalshi pays two cents of fees (each rounded up): no profit at 1, none at all.
  check([[[0.49, 5]], 'kalshi'], [[[0.49, 5]], 'kalshi']);
  const legs = [leg([[0.49, 5]], 'kalshi'), leg([[0.49, 5]], 'kalshi')] as const;
  assert.equal(largestProfitable(legs, commonDepth(legs)), null);
});

test('min_size: the curve starts there; books holding less answer nothing', () => {
  check(
    [
      [
        [0.4, 50],
        [0.45, 100],
      ],
      'none',
    ],
    [
      [
        [0.55, 30],
        [0.58, 2000],
      ],
      'kalshi',
    ],
    40,
  );
  check([[[0.4, 5]], 'none'], [[[0.5, 30]], 'none'], 10);
  assert.equal(mayProfit([leg([[0.5, 1]], 'none'), leg([[0.5, 1]], 'none')]), false);
  assert.equal(mayProfit([leg([[0.5, 1]], 'none'), leg([[0.49, 1]], 'none')]), true);
  assert.equal(mayProfit([leg([], 'none'), leg([[0.49, 1]], 'none')]), false);
});

test('property: every curve point and the largest profitable size match the brute force', () => {
  const level = fc.tuple(fc.integer({ min: 1, max: 99 }), fc.integer({ min: 1, max: 60 }));
  const book = fc
    .array(level, { minLength: 1, maxLength: 5 })
    .map((ls) => [...ls].sort((x, y) => x[0] - y[0]).map(([p, s]) => [p / 100, s] as Lv));
  const kind = fc.constantFrom<FeeKind>('none', 'kalshi', 'poly');
  assertProperty(
    fc.property(book, kind, book, kind, fc.integer({ min: 1, max: 20 }), (a, ka, b, kb, min) => {
      check([a, ka], [b, kb], min);
    }),
    {
      numRuns: 150,
      examples: [
        [
          [
            [0.3, 10],
            [0.5, 10],
          ],
          'kalshi',
          [[0.45, 25]],
          'poly',
          1,
        ],
        [[[0.01, 60]], 'none', [[0.98, 60]], 'kalshi', 3],
      ],
    },
  );
});
