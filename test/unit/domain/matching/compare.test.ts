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

test('a strict bound on a rate move is the next step: `>25bps` is `50+ bps`, and excludes `25 bps`', () => {
  const meeting = { end_date: '2027-09-16T18:00:00Z' };
  const strict = f({
    exchange: 'kalshi',
    question: 'Will the Federal Reserve Cut rates by >25bps at their September 2027 meeting?',
    ...meeting,
  });
  const plus = f({
    exchange: 'polymarket',
    question: 'Fed decreases interest rates by 50+ bps after 2027 September meeting?',
    ...meeting,
  });
  const words = f({
    exchange: 'limitless',
    question:
      'Will the Fed cut interest rates by more than 25 basis points at the September 2027 FOMC meeting?',
    ...meeting,
  });
  const exact = f({
    exchange: 'opinion',
    question: 'Fed cuts rates by 25 bps at its September 2027 meeting?',
    ...meeting,
  });
  for (const [a, b] of [
    [strict, plus],
    [strict, words],
    [plus, words],
  ] as const) {
    const v = comparePair(a, b, even);
    assert.equal(v?.relation, 'same_market', `${a.svcId} ~ ${b.svcId}`);
  }
  for (const other of [strict, plus, words]) {
    const v = comparePair(other, exact, even);
    assert.equal(v?.relation, 'co_dependent', other.svcId);
    assert.equal(v?.dependencyType, 'mutually_exclusive', other.svcId);
  }
  const october = f({
    exchange: 'polymarket',
    question: 'Fed decreases interest rates by 50+ bps after 2027 October meeting?',
    end_date: '2027-10-28T18:00:00Z',
  });
  assert.equal(comparePair(strict, october, even), null, 'another meeting');
});

test('nominees of one race behind a venue label exclude each other; another race does not', () => {
  const q = (name: string, race = 'U.S. 2024 Republican presidential nomination') =>
    f({ exchange: 'polymarket', question: `[Single Market] Will ${name} win the ${race}?` });
  const trump = q('Donald J. Trump');
  const haley = q('Nikki Haley');
  const v = comparePair(trump, haley, even);
  assert.equal(v?.relation, 'co_dependent');
  assert.equal(v?.dependencyType, 'mutually_exclusive');
  assert.equal(v?.direction, 'exclusive');
  assert.equal(
    comparePair(haley, q('Nikki Haley', 'U.S. 2028 Republican presidential nomination'), even),
    null,
  );
  assert.equal(
    comparePair(trump, q('Gavin Newsom', 'U.S. 2024 Democratic presidential nomination'), even)?.relation,
    undefined,
    'another party is another race',
  );
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

// The sandbox world's hard negatives that once made 13 MEDIUM links: a Limitless candidate market that names no
// date (only its end date says when) beside another venue's market for the election a day later or earlier. The
// end dates a whole day apart are two deadlines; only closes less than a day apart (a close-time convention) may
// stand in for a date, and then never above MEDIUM.
const LIMITLESS_SEATTLE = {
  exchange: 'limitless',
  svc_id: 'limitless:alice-moreno-1794009540427',
  question: 'Alice Moreno',
  group_title: 'Who will win the Mayor of Seattle election?',
  rules:
    'This market will resolve to "YES" if Alice Moreno wins the election for Mayor of Seattle. Otherwise, this market will resolve to "NO".',
  end_date: '2027-03-21T23:59:00.000Z',
} as const;

test('fixed examples: an end date a day away from the other side is another election, not the same market', () => {
  const polymarket = f({
    exchange: 'polymarket',
    question: 'Will Alice Moreno win the election for Mayor of Seattle?',
    group_title: 'Who will win the election for Mayor of Seattle?',
    rules:
      'This market will resolve to "Yes" if Alice Moreno wins the election for Mayor of Seattle held by March 22. Otherwise, this market will resolve to "No".',
    end_date: '2027-03-22T23:59:00Z',
  });
  const kalshi = f({
    exchange: 'kalshi',
    exchange_market_id: 'KXMAYORMIA-27B-AMOR',
    question: 'Will Alice Moreno win the Miami mayoral election?',
    group_title: 'Who will win the Miami mayoral election?',
    rules:
      'If Alice Moreno is certified as the winner of the Miami mayoral election held before Mar 5, 2027, then the market resolves to Yes.',
    end_date: '2027-03-05T23:59:00.000Z',
  });
  const limitlessMiami = f({
    exchange: 'limitless',
    question: 'Alice Moreno',
    group_title: 'Who will win the Mayor of Miami election?',
    end_date: '2027-03-06T23:59:00.000Z',
  });
  const predictfun = f({
    exchange: 'predictfun',
    question: 'Will Alice Moreno win the election for Mayor of Denver by May 12, 2027?',
    group_title: 'Mayor of Denver election winner',
    end_date: '2027-05-12T23:59:00.000Z',
  });
  const limitlessDenver = f({
    exchange: 'limitless',
    question: 'Alice Moreno',
    group_title: 'Who will win the Mayor of Denver election?',
    end_date: '2027-05-11T23:59:00.000Z',
  });
  const limitlessSeattle = f(LIMITLESS_SEATTLE);
  for (const [x, y] of [
    [limitlessSeattle, polymarket],
    [kalshi, limitlessMiami],
    [limitlessDenver, predictfun],
  ] as const) {
    assert.equal(comparePair(x, y, even)?.relation === 'same_market', false, `${x.svcId} ~ ${y.svcId}`);
    assert.equal(comparePair(y, x, even)?.relation === 'same_market', false, `${y.svcId} ~ ${x.svcId}`);
  }
});

test('fixed examples: an end-date-only market still matches the same deadline, and a close hours apart stays MEDIUM', () => {
  const limitless = f(LIMITLESS_SEATTLE);
  const sameDay = f({
    exchange: 'predictfun',
    question: 'Will Alice Moreno win the election for Mayor of Seattle by March 21, 2027?',
    group_title: 'Mayor of Seattle election winner',
    end_date: '2027-03-21T23:59:00.000Z',
  });
  const exact = comparePair(limitless, sameDay, even);
  assert.equal(exact?.relation, 'same_market');
  assert.equal(exact?.tier, 'HIGH');
  // The same deadline, closed at midnight Eastern: the 22nd in UTC, but four hours after the other venue's close.
  const eastern = f({ ...LIMITLESS_SEATTLE, end_date: '2027-03-22T03:59:00.000Z' });
  const near = comparePair(eastern, sameDay, even);
  assert.equal(near?.relation, 'same_market');
  assert.equal(near?.tier, 'MEDIUM');
  assert.ok(near?.evidence.includes('closes 4.0 h apart'), near?.evidence.join('; '));
});

// KXNYCMAYOR-25 as our Kalshi adapter now shapes it (the candidate from `yes_sub_title`) against Polymarket's
// per-candidate questions (public code index file ids 8455640222, 55734125693; provenance in
// test/fixtures/matching/README.md): the same candidate is one market, the other candidate excludes it.
test('fixed examples: a Kalshi event-question market with its option appended matches the per-candidate market', () => {
  const kalshi = (suffix: string, name: string) =>
    f({
      exchange: 'kalshi',
      svc_id: `kalshi:KXNYCMAYOR-25-${suffix}`,
      exchange_market_id: `KXNYCMAYOR-25-${suffix}`,
      question: `Who will win the NYC mayoral election in 2025? - ${name}`,
      group_title: 'NYC Mayor 2025',
      end_date: undefined,
    });
  const polymarket = (name: string) =>
    f({
      exchange: 'polymarket',
      question: `Will ${name} win the 2025 NYC mayoral election?`,
      end_date: '2025-11-04T12:00:00Z',
    });
  const zm = kalshi('ZM', 'Zohran Mamdani');
  const ac = kalshi('AC', 'Andrew Cuomo');
  assert.deepEqual(zm.option, ['mamdani', 'zohran']);
  const same = comparePair(zm, polymarket('Zohran Mamdani'), even);
  assert.equal(same?.relation, 'same_market', JSON.stringify(same));
  const other = comparePair(ac, polymarket('Zohran Mamdani'), even);
  assert.equal(other?.relation, 'co_dependent');
  assert.equal(other?.dependencyType, 'mutually_exclusive');
});

// Real markets of test/fixtures/matching/ (provenance in its README) that the first rules got wrong.
test('fixed examples: attendance is not a contest; places exclude only for one contestant; shared first names', () => {
  const cheney = (name: string) =>
    f({
      exchange: 'kalshi',
      question: `Will ${name} attend Dick Cheney's funeral?`,
      group_title: "Who will attend Dick Cheney's funeral?",
      rules: `If ${name} attends Dick Cheney's funeral, then the market resolves to Yes.`,
      end_date: '2025-11-22T02:46:33Z',
    });
  assert.equal(comparePair(cheney('Donald Trump'), cheney('Mike Pence'), even), null, 'both may attend');

  const pm = (question: string) => f({ exchange: 'polymarket', question, end_date: undefined });
  const win = pm('Will Zohran Mamdani win the 2025 NYC mayoral election?');
  const second = pm('Will Zohran Mamdani win second place in the 2025 NYC mayoral election?');
  const cuomo = pm('Will Andrew Cuomo win the 2025 NYC mayoral election?');
  const primaryThird = pm(
    'Will Zohran Mamdani finish third in the 2025 New York City Mayoral Democratic Primary?',
  );
  assert.equal(second.place, 2);
  const places = comparePair(win, second, even);
  assert.equal(places?.dependencyType, 'mutually_exclusive');
  assert.ok(places?.evidence.includes('option mamdani zohran: place 1 vs 2'), places?.evidence.join('; '));
  assert.equal(comparePair(cuomo, second, even), null, 'Cuomo first and Mamdani second can both be Yes');
  assert.equal(comparePair(win, primaryThird, even), null, 'the primary is another contest');

  const nominate = (name: string) =>
    f({
      exchange: 'kalshi',
      question: `Will Trump next nominate ${name} as Fed Chair?`,
      end_date: undefined,
    });
  const hassett = nominate('Kevin Hassett');
  assert.equal(hassett.rate, false, 'a Fed chair nomination is no rate decision');
  assert.deepEqual(hassett.option, ['hassett', 'kevin']);
  const two = comparePair(hassett, nominate('Kevin Warsh'), even);
  assert.equal(two?.dependencyType, 'mutually_exclusive', 'Kevin Hassett and Kevin Warsh are two options');
  const same = comparePair(
    nominate('Kevin Warsh'),
    f({
      exchange: 'polymarket',
      question: 'Will Trump nominate Kevin Warsh as the next Fed chair?',
      end_date: undefined,
    }),
    even,
  );
  assert.equal(same?.relation, 'same_market');
});

test('fixed examples: the same people doing different things are no same_market (real Trump-Xi summit markets)', () => {
  // Opinion's handshake bucket (parent's rules: `on May 14, 2026`) and Polymarket's hug and kiss markets (`around
  // May 14-15, 2026`): one day, the same two names, nothing else in common. Without a threshold saying what is
  // measured, only the names would agree.
  const handshake = f({
    exchange: 'opinion',
    svc_group_id: 'opinion:788',
    group_title: 'How long will Trump and Xi shake hands when they meet?',
    question: 'How long will Trump and Xi shake hands when they meet? - 10–15s',
    rules:
      'This market resolves based on the length of the longest qualifying handshake between Donald Trump and Xi Jinping on May 14, 2026 (Beijing local time).',
    end_date: '2026-05-15T00:00:00.000Z',
  });
  const summit = (what: string) =>
    f({
      exchange: 'polymarket',
      question: `Will Trump and Xi ${what} at their summit?`,
      description: `Donald Trump is scheduled to visit China for a summit with Xi Jinping around May 14-15, 2026. This market will resolve to “Yes” if Donald Trump and Xi Jinping ${what} at any point during this summit.`,
      end_date: undefined,
    });
  assert.equal(handshake.date?.iso, '2026-05-14');
  assert.equal(summit('hug').date?.iso, '2026-05-14');
  assert.equal(comparePair(handshake, summit('hug'), even), null);
  assert.equal(comparePair(handshake, summit('kiss'), even), null);
  // The same question in other words still shares its predicate (`nominate`) beyond the names.
  const kalshi = f({ exchange: 'kalshi', question: 'Will Trump next nominate Kevin Warsh as Fed Chair?' });
  const poly = f({
    exchange: 'polymarket',
    question: 'Will Trump nominate Kevin Warsh as the next Fed chair?',
  });
  assert.equal(comparePair(kalshi, poly, even)?.relation, 'same_market');
});
