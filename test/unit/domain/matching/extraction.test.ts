// Reading dates, thresholds, entities and options out of each venue's wording: the phrasings the five exchanges
// really use (Kalshi titles, rules and tickers; Polymarket questions; Limitless `$BTC` titles with dates in the
// text; Opinion parent - child titles; Predict.fun categories) come out as the same features.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import fc from 'fast-check';
import { extractDates, extractTimes, kalshiTickerDate } from '../../../../src/domain/matching/dates.js';
import { extractFeatures, type MatchInput, withoutTags } from '../../../../src/domain/matching/features.js';
import { extractThreshold } from '../../../../src/domain/matching/thresholds.js';
import { marketsOfRow } from '../../../../src/venues/opinion/parse.js';
import { assertProperty } from '../../../support/property.js';

const ref = new Date('2027-07-15T12:00:00Z');
const day = (text: string) => extractDates(text.toLowerCase(), ref).dates[0];

test('dates: every venue style, with years inferred from the end date', () => {
  assert.deepEqual(
    ['Jul 15, 2027', 'July 15', '15 July 2027', '2027-07-15', '7/15/2027', 'on Jul 15th'].map(
      (t) => day(t)?.iso,
    ),
    Array(6).fill('2027-07-15'),
  );
  assert.equal(day('December 2025')?.precision, 'month');
  assert.equal(day('December 2025')?.iso, '2025-12');
  assert.equal(day('in 2028')?.iso, '2028');
  assert.equal(day('by Dec 31, 2026')?.preposition, 'by');
  assert.equal(day('before Jan 2')?.iso, '2028-01-02', 'the nearer Jan 2 to a mid-July end date');
  assert.equal(day('before Jun 2')?.iso, '2027-06-02');
  assert.equal(day('Will BTC be above $2,025 on X?'), undefined, 'an amount is not a year');
  assert.equal(day('may reach $100k'), undefined, 'may the verb is not May the month');
  assert.equal(kalshiTickerDate('KXBTCD-27JUL15-T84999.99')?.iso, '2027-07-15');
  assert.equal(kalshiTickerDate('KXFEDDECISION-26DEC-C25')?.iso, '2026-12');
  assert.deepEqual(day('after 2024 September meeting'), {
    iso: '2024-09',
    precision: 'month',
    preposition: 'after',
    endOf: false,
  });
  assert.equal(day('at the 2026 Dec. FOMC meeting')?.iso, '2026-12', 'year first, abbreviated month');
  // Polymarket's summit markets: `around May 14-15, 2026` is a span of days, dated by its first day and its year.
  assert.equal(day('with Xi Jinping around May 14-15, 2026.')?.iso, '2026-05-14');
  assert.equal(day('May 14–15, 2026')?.iso, '2026-05-14');
  const spanThenTime = extractDates('on march 11 - 12:00pm et', ref);
  assert.equal(spanThenTime.dates[0]?.iso, '2027-03-11', 'a dash before a time is no span of days');
  assert.deepEqual(extractTimes(spanThenTime.rest).times, [{ minutes: 720, zone: 'et' }]);
  assert.equal(day('in 2027 march')?.precision, 'month');
  assert.deepEqual(
    extractDates('2027 may 3', ref).dates.map((d) => d.precision),
    ['year', 'day'],
    'a year before a full date is no month',
  );
  assert.equal(day('above $2,027 march')?.precision, undefined, 'an amount before a month is no year');
  assert.deepEqual(extractTimes('at 11:59 pm utc').times, [{ minutes: 1439, zone: 'utc' }]);
  assert.deepEqual(extractTimes('12pm et').times, [{ minutes: 720, zone: 'et' }]);
});

test('thresholds: amounts, units and comparators as venues write them', () => {
  const t = (text: string, rate = false) => extractThreshold(text.toLowerCase(), rate);
  assert.deepEqual(t('above $100k'), { comparator: 'gt', value: 100_000, high: null, unit: 'usd' });
  assert.equal(t('be above $99,999.99')?.value, 99_999.99);
  assert.equal(t('$1.5m or more')?.value, 1_500_000);
  assert.equal(t('$1.5m or more')?.comparator, 'gt');
  assert.deepEqual(t('be >80°'), { comparator: 'gt', value: 80, high: null, unit: 'deg' });
  assert.deepEqual(t('below 4.5%'), { comparator: 'lt', value: 4.5, high: null, unit: 'pct' });
  assert.deepEqual(t('between $100,000 and $105,000'), {
    comparator: 'range',
    value: 100_000,
    high: 105_000,
    unit: 'usd',
  });
  assert.equal(t('when will bitcoin hit $150k')?.comparator, 'touch_up');
  assert.deepEqual(t('fed cuts rates by 25 bps', true), {
    comparator: 'eq',
    value: -25,
    high: null,
    unit: 'bps',
  });
  assert.deepEqual(t('cut rates by 25bps', true), { comparator: 'eq', value: -25, high: null, unit: 'bps' });
  assert.deepEqual(t('hold rates unchanged', true), { comparator: 'eq', value: 0, high: null, unit: 'bps' });
  assert.equal(t('50+ bps decrease', true)?.comparator, 'lt');
  assert.equal(t('will it rain in seattle'), null);
  // Bounds on a decision: inclusive (`+`, `or more`, `at least`, `>=`) keep the amount; strict (`>`, `more
  // than`, `over`) move to the next 25 bps step, so Kalshi's `Cut >25bps` is Polymarket's `50+ bps`.
  const cut50 = { comparator: 'lt', value: -50, high: null, unit: 'bps' };
  const hike50 = { comparator: 'gt', value: 50, high: null, unit: 'bps' };
  for (const text of [
    'cut rates by >25bps',
    'cut rates by > 25 bps',
    'cut rates by more than 25 basis points',
    'decrease interest rates by over 25 bps',
    'decreases interest rates by 50+ bps',
    'cut by 50 bps or more',
    'cut rates by at least 50bps',
    'lower rates by >=50 bps',
    'more than 25 bps cut',
    '50+ bps decrease',
  ])
    assert.deepEqual(t(text, true), cut50, text);
  for (const text of ['hike rates by >25bps', 'raise rates by more than 25 bps', 'increase by 50+ bps'])
    assert.deepEqual(t(text, true), hike50, text);
  assert.deepEqual(t('hike rates by >=25 bps', true), {
    comparator: 'gt',
    value: 25,
    high: null,
    unit: 'bps',
  });
  assert.deepEqual(t('hike rates by 0bps', true), { comparator: 'eq', value: 0, high: null, unit: 'bps' });
});

test('property: any whole-dollar amount reads back the same in plain, grouped and k/m spellings', () => {
  assertProperty(
    fc.property(fc.integer({ min: 1, max: 9_999 }), fc.constantFrom('', 'k', 'm'), (n, suffix) => {
      const scale = suffix === 'k' ? 1e3 : suffix === 'm' ? 1e6 : 1;
      const value = n * scale;
      const grouped = value.toLocaleString('en-US');
      for (const text of [`above $${n}${suffix}`, `above $${grouped}`, `$${grouped} or above`]) {
        const got = extractThreshold(text, false);
        assert.equal(got?.value, value, text);
        assert.equal(got?.comparator, 'gt', text);
      }
    }),
    {
      examples: [
        [1, 'k'],
        [999, 'm'],
        [1000, ''],
      ],
    },
  );
});

const base = { end_date: '2027-07-15T23:59:00Z' } as const;
const f = (m: Partial<MatchInput> & Pick<MatchInput, 'question' | 'exchange'>) =>
  extractFeatures({ svc_id: `${m.exchange}:${m.question}`, ...base, ...m });

test('one proposition, five phrasings: same entity, threshold and day', () => {
  const phrasings = [
    f({ exchange: 'polymarket', question: 'Will the price of Bitcoin be above $85,000 on July 15?' }),
    f({
      exchange: 'kalshi',
      question: 'Will the Bitcoin price be above $85,000 on Jul 15, 2027 at 11:59 PM UTC?',
      group_title: 'Bitcoin price on Jul 15, 2027?',
      exchange_market_id: 'KXBTCD-27JUL15-T84999.99',
    }),
    f({ exchange: 'limitless', question: '$BTC above $85,000 on Jul 15?' }),
    f({ exchange: 'opinion', question: 'Bitcoin above $85,000 on Jul 15, 2027?' }),
    f({
      exchange: 'predictfun',
      question: 'Will Bitcoin be above $85,000 on July 15, 2027?',
      group_title: 'Bitcoin above $85,000 on July 15, 2027?',
    }),
  ];
  for (const x of phrasings) {
    assert.deepEqual(x.entities, ['btc'], x.svcId);
    assert.deepEqual(x.threshold, { comparator: 'gt', value: 85_000, high: null, unit: 'usd' }, x.svcId);
    assert.equal(x.date?.iso, '2027-07-15', x.svcId);
    assert.deepEqual(x.option, [], x.svcId);
  }
});

test('options inside multi-option events: candidate names, whatever the layout', () => {
  const options = [
    f({
      exchange: 'polymarket',
      question: 'Will Alice Moreno win the election for Mayor of Chicago?',
      group_title: 'Who will win the election for Mayor of Chicago?',
    }),
    f({
      exchange: 'kalshi',
      question: 'Will Alice Moreno win the Chicago mayoral election?',
      group_title: 'Who will win the Chicago mayoral election?',
    }),
    f({
      exchange: 'limitless',
      question: 'Alice Moreno',
      group_title: 'Who will win the Mayor of Chicago election?',
    }),
    f({
      exchange: 'opinion',
      question: 'Who will win the Mayor of Chicago election by Jun 18, 2027? - Alice Moreno',
      group_title: 'Who will win the Mayor of Chicago election by Jun 18, 2027?',
    }),
    f({
      exchange: 'predictfun',
      question: 'Will Alice Moreno win the election for Mayor of Chicago by June 18, 2027?',
      group_title: 'Mayor of Chicago election winner',
    }),
  ];
  for (const x of options) {
    assert.deepEqual(x.option, ['alice', 'moreno'], x.svcId);
    assert.ok(x.event.includes('chicago') && x.event.includes('mayor'), x.svcId);
    assert.ok(x.exclusive, x.svcId);
  }
  assert.deepEqual(
    f({ exchange: 'polymarket', question: 'Will the Celtics beat the Lakers on July 15?' }).option,
    ['celtic'],
  );
  assert.deepEqual(f({ exchange: 'limitless', question: 'Celtics to beat the Lakers on Jul 15?' }).option, [
    'celtic',
  ]);
  assert.deepEqual(
    f({
      exchange: 'kalshi',
      question: 'Will the Suns win the Suns vs Nuggets game on Jun 2, 2027?',
      group_title: 'Suns vs Nuggets',
    }).option,
    ['suns'],
  );
});

test('a leading venue label in brackets is not part of the question: the named option still reads', () => {
  const nominees = [
    '[Single Market] Will Donald J. Trump win the U.S. 2024 Republican presidential nomination?',
    '[Single Market] Will Nikki Haley win the U.S. 2024 Republican presidential nomination?',
    '[Featured] [Single Market] Will Gavin Newsom win the 2028 Democratic presidential nomination?',
    '[Sports] Will the Celtics win the 2026 NBA Finals?',
  ].map((question) => f({ exchange: 'polymarket', question }));
  assert.deepEqual(
    nominees.map((x) => x.option),
    [['donald', 'trump'], ['haley', 'nikki'], ['gavin', 'newsom'], ['celtic']],
  );
  for (const x of nominees)
    assert.ok(!x.tokens.includes('single') && !x.tokens.includes('featured'), x.svcId);
  assert.equal(withoutTags('Who wins [the] final?'), 'Who wins [the] final?', 'only a leading label');
});

test('a month in the title is refined by the day in the rules (Kalshi Fed markets)', () => {
  const k = f({
    exchange: 'kalshi',
    question: 'Will the Federal Reserve cut rates by 25bps at their July 2027 meeting?',
    rules:
      'If the Federal Reserve decides to cut rates by 25bps at its meeting before Jul 1, 2027, then the market resolves to Yes.',
    end_date: '2027-07-01T23:59:00Z',
  });
  assert.deepEqual(k.date, { iso: '2027-07-01', precision: 'day', source: 'rules', preposition: 'before' });
  assert.deepEqual(k.threshold, { comparator: 'eq', value: -25, high: null, unit: 'bps' });
  assert.ok(k.rate);
});

test('the fingerprint changes with the matching inputs only', () => {
  const a = f({ exchange: 'opinion', question: 'Bitcoin above $85,000 on Jul 15, 2027?' });
  const b = extractFeatures({
    svc_id: a.svcId,
    exchange: 'opinion',
    question: 'Bitcoin above $85,000 on Jul 15, 2027?',
    ...base,
    status: 'closed',
  });
  const c = f({ exchange: 'opinion', question: 'Bitcoin above $90,000 on Jul 15, 2027?' });
  assert.equal(a.fingerprint, b.fingerprint);
  assert.notEqual(a.fingerprint, c.fingerprint);
});

test("Opinion categorical children take no condition from their parent's rules, which describe every option", () => {
  // The recorded categorical market (test/fixtures/opinion), shaped by our adapter: both children carry the
  // parent's rules, which say `exceeds 15 seconds` and `more than 15 seconds` of one option each.
  const row = JSON.parse(
    readFileSync(
      new URL('../../../fixtures/opinion/http_get_market_categorical_result_data.json', import.meta.url),
      'utf8',
    ),
  );
  const children = marketsOfRow(row).map((m) => extractFeatures(m as MatchInput));
  assert.deepEqual(
    children.map((f) => [f.option, f.threshold, f.date?.iso, f.exclusive]),
    [
      [['10-15s'], null, '2026-05-14', true],
      [['15s+'], null, '2026-05-14', true],
    ],
  );
});
