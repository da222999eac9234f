// A consolidated book side: levels of several venues best first (price, then net price, then exchange), at most
// `limit`, each with its exact fee-net price; and the invariants any merge keeps.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { WalkFill } from '../../../../src/domain/book-walk.js';
import {
  consolidateSide,
  diffConsolidated,
  netPrice,
  type VenueSide,
} from '../../../../src/domain/crossvenue/consolidated-book.js';
import { Decimal } from '../../../../src/domain/decimal.js';
import type { ExchangeId } from '../../../../src/domain/exchanges.js';
import { assertProperty } from '../../../support/property.js';

const d = Decimal.parse;
const lv = (price: string, size: string) => ({ price: d(price), size: d(size) });
/** 1% of notional, exact. */
const onePercent = (fills: readonly WalkFill[]) =>
  fills.reduce((sum, f) => sum.add(f.price.mul(f.size)), Decimal.ZERO).mul(d('0.01'));

test('net price: the fee of taking the whole level, per contract, added on a buy and taken off on a sell', () => {
  assert.equal(netPrice('buy', lv('0.5', '10'), d('0.07'))?.toString(), '0.507');
  assert.equal(netPrice('sell', lv('0.5', '10'), d('0.07'))?.toString(), '0.493');
  assert.equal(netPrice('buy', lv('0.3', '3'), d('0.01'))?.toString(), '0.303333333333');
  assert.equal(netPrice('buy', lv('0.5', '10'), null), null);
});

test('asks merge lowest first; a tie on price goes to the better net price, unknown fees last, then by exchange', () => {
  const venues: VenueSide[] = [
    { exchange: 'kalshi', levels: [lv('0.41', '5'), lv('0.45', '1')], fee: onePercent },
    { exchange: 'polymarket', levels: [lv('0.41', '2'), lv('0.43', '7')], fee: () => Decimal.ZERO },
    { exchange: 'opinion', levels: [lv('0.40', '1'), lv('0.41', '3')], fee: () => null },
  ];
  const got = consolidateSide('buy', venues, 10).map((l) => [
    l.price.toString(),
    l.size.toString(),
    l.exchange,
    l.netPrice?.toString() ?? null,
  ]);
  assert.deepEqual(got, [
    ['0.4', '1', 'opinion', null],
    ['0.41', '2', 'polymarket', '0.41'],
    ['0.41', '5', 'kalshi', '0.4141'],
    ['0.41', '3', 'opinion', null],
    ['0.43', '7', 'polymarket', '0.43'],
    ['0.45', '1', 'kalshi', '0.4545'],
  ]);
  assert.equal(consolidateSide('buy', venues, 2).length, 2);
  const bids = consolidateSide(
    'sell',
    [{ exchange: 'kalshi', levels: [lv('0.6', '1'), lv('0.5', '2')], fee: onePercent }],
    5,
  );
  assert.deepEqual(
    bids.map((l) => l.netPrice?.toString()),
    ['0.594', '0.495'],
  );
});

const price = fc.integer({ min: 1, max: 99 }).map((c) => d(`0.${String(c).padStart(2, '0')}`));
const size = fc.integer({ min: 0, max: 10_000 }).map((n) => Decimal.fromInt(n).div(Decimal.fromInt(100), 2));
const exchanges: ExchangeId[] = ['polymarket', 'kalshi', 'limitless', 'opinion', 'predictfun'];

test('a merge holds the best `limit` levels of all venues, sorted, and loses no non-empty level within them', () => {
  const venue = fc.record({
    exchange: fc.constantFrom(...exchanges),
    levels: fc.array(fc.record({ price, size }), { maxLength: 12 }),
  });
  assertProperty(
    fc.property(
      fc.array(venue, { maxLength: 5 }),
      fc.integer({ min: 1, max: 30 }),
      fc.boolean(),
      (vs, limit, buy) => {
        const side = buy ? 'buy' : 'sell';
        const sorted = vs.map((v) => ({
          exchange: v.exchange,
          levels: [...v.levels].sort((a, b) => a.price.cmp(b.price) * (buy ? 1 : -1)),
          fee: onePercent,
        }));
        const got = consolidateSide(side, sorted, limit);
        const all = sorted.flatMap((v) => v.levels.filter((l) => l.size.gt(Decimal.ZERO)));
        assert.equal(got.length, Math.min(limit, all.length));
        for (let i = 1; i < got.length; i++) {
          const c = (got[i - 1] as (typeof got)[number]).price.cmp((got[i] as (typeof got)[number]).price);
          assert.ok(buy ? c <= 0 : c >= 0, 'best first');
        }
        // Nothing better than the last level kept was left out.
        const last = got.at(-1);
        if (last && got.length < all.length) {
          const better = all.filter((l) => (buy ? l.price.lt(last.price) : l.price.gt(last.price))).length;
          assert.ok(better <= got.length);
        }
        for (const l of got) {
          assert.ok(l.size.gt(Decimal.ZERO));
          const expected = netPrice(side, l, onePercent([l]));
          assert.ok(expected !== null && l.netPrice?.eq(expected));
        }
      },
    ),
    { examples: [] },
  );
});

test('a consolidated delta names each changed level by price and exchange; size 0 removes it', () => {
  const before = {
    bids: [
      [0.5, 10, 'kalshi'],
      [0.5, 4, 'polymarket'],
    ] as Array<[number, number, ExchangeId]>,
    asks: [[0.52, 3, 'kalshi']] as Array<[number, number, ExchangeId]>,
  };
  const after = {
    bids: [
      [0.5, 10, 'kalshi'],
      [0.49, 2, 'polymarket'],
    ] as Array<[number, number, ExchangeId]>,
    asks: [[0.52, 5, 'kalshi']] as Array<[number, number, ExchangeId]>,
  };
  assert.deepEqual(diffConsolidated(before, after), [
    { side: 'bid', price: 0.49, size: 2, exchange: 'polymarket' },
    { side: 'bid', price: 0.5, size: 0, exchange: 'polymarket' },
    { side: 'ask', price: 0.52, size: 5, exchange: 'kalshi' },
  ]);
  assert.deepEqual(diffConsolidated(after, after), []);
});
