// The replay's fill rules (src/domain/replay/paper-matching.ts, docs/replay.md) on exact decimals.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Decimal } from '../../../../src/domain/decimal.js';
import {
  queueAfterBook,
  sizeAtPrice,
  TakenLiquidity,
  takeLiquidity,
  tradeAgainstResting,
} from '../../../../src/domain/replay/paper-matching.js';

const d = Decimal.parse;
const show = (fills: Array<{ price: Decimal; size: Decimal }>) =>
  fills.map((f) => [f.price.toString(), f.size.toString()]);
const book = {
  bids: [
    [0.5, 30],
    [0.49, 50],
  ] as Array<[number, number]>,
  asks: [
    [0.52, 10],
    [0.53, 20],
    [0.55, 40],
  ] as Array<[number, number]>,
};

test('a crossing order takes levels one by one up to its limit, and what it took is gone for the next', () => {
  const taken = new TakenLiquidity();
  assert.deepEqual(show(takeLiquidity('buy', d('0.53'), d('35'), book, taken)), [
    ['0.52', '10'],
    ['0.53', '20'],
  ]);
  assert.deepEqual(show(takeLiquidity('buy', d('0.55'), d('5'), book, taken)), [['0.55', '5']]);
  assert.deepEqual(show(takeLiquidity('sell', d('0.495'), d('100'), book, taken)), [['0.5', '30']]);
  taken.clear();
  assert.deepEqual(show(takeLiquidity('buy', d('0.52'), d('1'), book, taken)), [['0.52', '1']]);
});

test('a resting order waits behind the recorded size and moves up as its level shrinks', () => {
  assert.equal(sizeAtPrice('buy', d('0.5'), book).toString(), '30');
  assert.equal(sizeAtPrice('sell', d('0.54'), book).toString(), '0');
  assert.equal(queueAfterBook('buy', d('0.5'), d('30'), { bids: [[0.5, 12]], asks: [] }).toString(), '12');
  assert.equal(queueAfterBook('buy', d('0.5'), d('8'), { bids: [[0.5, 12]], asks: [] }).toString(), '8');
});

test('trades at the price pass the queue first; trades through it fill at once; the aggressor side matters', () => {
  const bid = { id: 'b', side: 'buy' as const, price: d('0.5'), remaining: d('10'), queueAhead: d('30') };
  assert.deepEqual(
    tradeAgainstResting([bid], { price: d('0.5'), size: d('35'), aggressor: 'sell' }).map((o) => [
      o.fill.toString(),
      o.queueAhead.toString(),
    ]),
    [['5', '0']],
  );
  assert.deepEqual(
    tradeAgainstResting([bid], { price: d('0.49'), size: d('4'), aggressor: null }).map((o) =>
      o.fill.toString(),
    ),
    ['4'],
  );
  assert.deepEqual(tradeAgainstResting([bid], { price: d('0.49'), size: d('4'), aggressor: 'buy' }), []);
  assert.deepEqual(tradeAgainstResting([bid], { price: d('0.51'), size: d('4'), aggressor: 'sell' }), []);
});

test('one trade serves the best price first, then the earlier order', () => {
  const orders = [
    { id: 'dearer', side: 'sell' as const, price: d('0.6'), remaining: d('5'), queueAhead: d('0') },
    { id: 'early', side: 'sell' as const, price: d('0.55'), remaining: d('5'), queueAhead: d('0') },
    { id: 'later', side: 'sell' as const, price: d('0.55'), remaining: d('5'), queueAhead: d('0') },
  ];
  const out = tradeAgainstResting(orders, { price: d('0.6'), size: d('8'), aggressor: 'buy' });
  assert.deepEqual(
    out.map((o) => [o.id, o.fill.toString()]),
    [
      ['early', '5'],
      ['later', '3'],
    ],
  );
});
