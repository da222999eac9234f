// The arithmetic of a paired execution and of a routed order's slippage, on hand-computed books.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  depthWithin,
  pairCost,
  pairResult,
  priceBuy,
  thinnerLeg,
} from '../../../../src/domain/crossvenue/paired-execution.js';
import {
  bestNetPrice,
  planSlippage,
  type RouteVenue,
} from '../../../../src/domain/crossvenue/route-split.js';
import { Decimal } from '../../../../src/domain/decimal.js';

const d = Decimal.parse;
const levels = (...ls: Array<[string, string]>) => ls.map(([p, s]) => ({ price: d(p), size: d(s) }));
const noFee = () => Decimal.ZERO;
/** 1% of notional. */
const onePercent = (fills: ReadonlyArray<{ price: Decimal; size: Decimal }>) =>
  fills.reduce((s, f) => s.add(f.price.mul(f.size)), Decimal.ZERO).div(d('100'), 12);

test('a leg is priced by its walk, its fee and its limit on the tick', () => {
  const leg = { asks: levels(['0.40', '5'], ['0.42', '10']), fee: onePercent, tick: d('0.01') };
  const p = priceBuy(leg, d('8'));
  assert.equal(p.walk.notional.toString(), '3.26'); // 5×0.40 + 3×0.42
  assert.equal(p.fee.toString(), '0.0326');
  assert.equal(p.cost.toString(), '3.2926');
  assert.equal(p.limit.toString(), '0.42');
  assert.equal(depthWithin(leg.asks, d('0.41')).toString(), '5');
});

test('the thinner book within its limit goes first; a tie keeps the order given', () => {
  const thick = { asks: levels(['0.40', '50']), fee: noFee, tick: null };
  const thin = { asks: levels(['0.55', '3'], ['0.56', '4']), fee: noFee, tick: null };
  const size = d('6');
  assert.equal(thinnerLeg([thick, thin], [priceBuy(thick, size), priceBuy(thin, size)]), 1);
  assert.equal(thinnerLeg([thin, thick], [priceBuy(thin, size), priceBuy(thick, size)]), 0);
  assert.equal(thinnerLeg([thick, thick], [priceBuy(thick, size), priceBuy(thick, size)]), 0);
  // 6 pairs: 6×0.40 + (3×0.55 + 3×0.56) = 2.4 + 3.33 = 5.73, 0.955 a pair.
  assert.equal(pairCost(priceBuy(thick, size), priceBuy(thin, size), size)?.toString(), '0.955');
  assert.equal(pairCost(priceBuy(thick, size), priceBuy(thin, size), Decimal.ZERO), null);
});

test('a finished pair: edge on the hedged pairs, the unwind against the first leg’s cost, the residual', () => {
  // 10 bought first for 4.10 (0.41 each); 6 hedged for 3.30; 3 unwound for 1.17 net; 1 left.
  const r = pairResult(
    d('10'),
    d('4.10'),
    { filled: d('6'), cost: d('3.30') },
    { sold: d('3'), netProceeds: d('1.17') },
  );
  assert.equal(r.hedged.toString(), '6');
  assert.equal(r.hedgedCost.toString(), '5.76'); // 6×0.41 + 3.30
  assert.equal(r.edge.toString(), '0.24');
  assert.equal(r.unwindPnl.toString(), '-0.06'); // 1.17 − 3×0.41
  assert.equal(r.residual.toString(), '1');
  assert.equal(r.residualCost.toString(), '0.41');
  // Fully hedged: nothing left.
  const full = pairResult(
    d('5'),
    d('2'),
    { filled: d('5'), cost: d('2.5') },
    { sold: Decimal.ZERO, netProceeds: Decimal.ZERO },
  );
  assert.equal(full.residual.toString(), '0');
  assert.equal(full.edge.toString(), '0.5');
});

test('a route’s slippage: its average fee-net price against the best fee-net top level', () => {
  const venue = (id: string, ls: ReturnType<typeof levels>, fee: RouteVenue['fee'] = noFee): RouteVenue => ({
    id,
    levels: ls,
    fee,
    lot: d('0.01'),
    minSize: null,
    tick: null,
  });
  const a = venue('a', levels(['0.50', '10'], ['0.60', '10']));
  const b = venue('b', levels(['0.49', '10']), onePercent); // net 0.4949
  assert.equal(bestNetPrice('buy', [a, b])?.toString(), '0.4949');
  const plan = { legs: [], filled: d('20'), netCost: d('11') }; // 0.55 a contract
  assert.equal(planSlippage('buy', plan, d('0.4949'))?.toString(), '0.0551');
  // A sell: the best bid net of fee against the proceeds per contract (net cost is negative).
  const bids = venue('s', levels(['0.45', '10']), onePercent); // 0.45 − 0.0045
  assert.equal(bestNetPrice('sell', [bids])?.toString(), '0.4455');
  assert.equal(
    planSlippage('sell', { legs: [], filled: d('10'), netCost: d('-4.3') }, d('0.4455'))?.toString(),
    '0.0155',
  );
  assert.equal(
    planSlippage('buy', { legs: [], filled: Decimal.ZERO, netCost: Decimal.ZERO }, d('0.5')),
    null,
  );
});
