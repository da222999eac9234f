// Pair decisions: the same proposition phrased five ways is one same_market; the hard negatives (another day,
// threshold, candidate or city) are not, and become co_dependent where logic links them (nested thresholds,
// options of one event, Fed amounts at one meeting, deadline ladders), with the direction of the implication.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { comparePair, mirror } from '../../../../src/domain/matching/compare.js';
import { tierOf } from '../../../../src/domain/matching/confidence.js';
import { extractFeatures, type MatchInput } from '../../../../src/domain/matching/features.js';
import { assertProperty } from '../../../support/property.js';

const even = () => 1;
const f = (m: Partial<MatchInput> & Pick<MatchInput, 'question' | 'exchange'>) =>
  extractFeatures({ svc_id: `${m.exchange}:${m.question}`, end_date: '2027-07-15T23:59:00Z', ...m });

test('the same question across venues is one HIGH same_market with its evidence', () => {
  const pm = f({
    exchange: 'polymarket',
    question: 'Will the price of Bitcoin be above $85,000 on July 15?',
  });
  const ks = f({
    exchange: 'kalshi',
    question: 'Will the Bitcoin price be above $85,000 on Jul 15, 2027 at 11:59 PM UTC?',
    exchange_market_id: 'KXBTCD-27JUL15-T84999.99',
  });
  const v = comparePair(pm, ks, even);
  assert.equal(v?.relation, 'same_market');
  assert.equal(v?.tier, 'HIGH');
  assert.equal(v?.source, 'deterministic_graph');
  assert.ok(v?.evidence.includes('entity btc'));
  assert.ok(v?.evidence.some((e) => e.startsWith('threshold > 85000 usd')));
});

test('hard negatives: another day, threshold, asset, city or candidate is never same_market', () => {
  const pm = f({
    exchange: 'polymarket',
    question: 'Will the price of Bitcoin be above $85,000 on July 15?',
  });
  const otherDay = f({ exchange: 'opinion', question: 'Bitcoin above $85,000 on Jul 16, 2027?' });
  const otherAsset = f({ exchange: 'opinion', question: 'Ethereum above $85,000 on Jul 15, 2027?' });
  assert.equal(comparePair(pm, otherDay, even), null);
  assert.equal(comparePair(pm, otherAsset, even), null);
  const denver = f({
    exchange: 'polymarket',
    question: 'Will the highest temperature in Denver be above 80°F on July 15?',
  });
  const seattle = f({
    exchange: 'kalshi',
    question: 'Will the high temp in Seattle be >80° on Jul 15, 2027?',
  });
  assert.equal(comparePair(denver, seattle, even), null);
  const alice = f({
    exchange: 'polymarket',
    question: 'Will Alice Moreno win the election for Mayor of Chicago?',
    group_title: 'Who will win the election for Mayor of Chicago?',
  });
  const ben = f({
    exchange: 'kalshi',
    question: 'Will Ben Okafor win the Chicago mayoral election?',
    group_title: 'Who will win the Chicago mayoral election?',
  });
  const excl = comparePair(alice, ben, even);
  assert.equal(excl?.relation, 'co_dependent');
  assert.equal(excl?.dependencyType, 'mutually_exclusive');
  assert.equal(excl?.direction, 'exclusive');
  assert.equal(excl?.source, 'hierarchical');
});

test('nested thresholds: the stricter line implies the looser, both ways of reading', () => {
  const above100 = f({
    exchange: 'polymarket',
    question: 'Will the price of Bitcoin be above $100,000 on July 15?',
  });
  const above110 = f({
    exchange: 'kalshi',
    question: 'Will the Bitcoin price be above $110,000 on Jul 15, 2027?',
  });
  const v = comparePair(above110, above100, even);
  assert.equal(v?.relation, 'co_dependent');
  assert.equal(v?.dependencyType, 'nested_threshold');
  assert.equal(v?.direction, 'implies');
  assert.equal(comparePair(above100, above110, even)?.direction, 'implied_by');
  const below = f({ exchange: 'opinion', question: 'Bitcoin below $90,000 on Jul 15, 2027?' });
  const below80 = f({ exchange: 'opinion', question: 'Bitcoin below $80,000 on Jul 15, 2027?' });
  assert.equal(comparePair(below80, below, even)?.direction, 'implies');
  assert.equal(comparePair(below, above100, even), null, 'opposite comparators are not nested');
});

test('Fed decisions at one meeting exclude each other; deadlines form a ladder', () => {
  const cut = f({
    exchange: 'polymarket',
    question: 'Will the Fed cut rates by 25 bps at the meeting before July 15?',
  });
  const hold = f({ exchange: 'opinion', question: 'Fed holds rates at the meeting before Jul 15, 2027?' });
  const v = comparePair(cut, hold, even);
  assert.equal(v?.dependencyType, 'mutually_exclusive');
  const june = f({ exchange: 'polymarket', question: 'Will Bitcoin hit $150k by June 30, 2027?' });
  const dec = f({ exchange: 'kalshi', question: 'Will Bitcoin hit $150k by December 31, 2027?' });
  const ladder = comparePair(june, dec, even);
  assert.equal(ladder?.dependencyType, 'date_ladder');
  assert.equal(ladder?.direction, 'implies', 'reached by June means reached by December');
});

const QUESTIONS = [
  'Will the price of Bitcoin be above $85,000 on July 15?',
  'Bitcoin above $90,000 on Jul 15, 2027?',
  '$ETH above $4,000 on Jul 15?',
  'Will Alice Moreno win the election for Mayor of Chicago?',
  'Will Ben Okafor win the Chicago mayoral election?',
  'Fed holds rates at the meeting before Jul 15, 2027?',
  'Will the Fed cut rates by 25 bps at the meeting before July 15?',
  'Will the highest temperature in Denver be above 80°F on July 15?',
  'Will the Celtics beat the Lakers on July 15?',
  'Will Bitcoin hit $150k by June 30, 2027?',
];
const EXCHANGES = ['polymarket', 'kalshi', 'limitless', 'opinion', 'predictfun'] as const;

test('property: a pair reads the same from either side (relation, confidence, tier; direction mirrored)', () => {
  assertProperty(
    fc.property(
      fc.constantFrom(...QUESTIONS),
      fc.constantFrom(...QUESTIONS),
      fc.constantFrom(...EXCHANGES),
      fc.constantFrom(...EXCHANGES),
      (qa, qb, xa, xb) => {
        const a = f({ exchange: xa, question: qa });
        const b = f({ exchange: xb, question: qb });
        const ab = comparePair(a, b, even);
        const ba = comparePair(b, a, even);
        assert.equal(ab?.relation, ba?.relation);
        assert.equal(ab?.confidence, ba?.confidence);
        assert.equal(ab?.direction ?? null, mirror(ba?.direction ?? null));
        if (ab) {
          assert.ok(ab.confidence >= 0 && ab.confidence <= 1);
          assert.equal(ab.tier, tierOf(ab.confidence));
          if (xa === xb)
            assert.notEqual(ab.relation, 'same_market', 'a venue does not list one question twice');
        }
      },
    ),
    { examples: [[QUESTIONS[0] as string, QUESTIONS[1] as string, 'polymarket', 'kalshi']] },
  );
});

test('property: moving one side to another day never leaves a same_market link', () => {
  assertProperty(
    fc.property(fc.integer({ min: 1, max: 300 }), fc.constantFrom(...QUESTIONS.slice(0, 3)), (shift, q) => {
      const d = new Date(Date.UTC(2027, 6, 15 + shift));
      const moved = q.replace(
        /July 15|Jul 15/,
        d.toLocaleString('en-US', { month: 'long', day: 'numeric', timeZone: 'UTC' }),
      );
      const a = f({ exchange: 'polymarket', question: q });
      const b = f({ exchange: 'opinion', question: moved, end_date: d.toISOString() });
      assert.notEqual(comparePair(a, b, even)?.relation, 'same_market', moved);
    }),
    {
      examples: [
        [1, QUESTIONS[0] as string],
        [365 - 196, QUESTIONS[2] as string],
      ],
    },
  );
});
