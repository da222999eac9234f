// The lexicon (venue phrasing as data, each entry sourced), the resolution check every same_market link carries,
// and the window rule for touches: each on the venues' own recorded wording.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { comparePair, tokenWeight } from '../../../../src/domain/matching/compare.js';
import { extractFeatures, type MatchInput } from '../../../../src/domain/matching/features.js';
import {
  kalshiTitleFromTicker,
  lexiconVersion,
  loadLexicon,
} from '../../../../src/domain/matching/lexicon.js';
import { mirrorCheck, resolutionCheck, resolutionFacts } from '../../../../src/domain/matching/resolution.js';

const market = (svc_id: string, question: string, extra: Partial<MatchInput> = {}): MatchInput => ({
  svc_id,
  exchange: svc_id.split(':')[0] as MatchInput['exchange'],
  question,
  ...extra,
});
const compare = (a: MatchInput, b: MatchInput) =>
  comparePair(extractFeatures(a), extractFeatures(b), tokenWeight);

after(() => loadLexicon([]));

test('every lexicon entry names its source', () => {
  const dir = new URL('../../../../src/domain/matching/lexicon/', import.meta.url);
  for (const name of readdirSync(dir)) {
    const file = JSON.parse(readFileSync(new URL(name, dir), 'utf8')) as {
      version: string;
      entries: Array<{ source: string }>;
    };
    assert.ok(file.version, name);
    for (const e of file.entries) assert.ok(e.source.length > 20, `${name}: ${JSON.stringify(e)}`);
  }
});

test("Kalshi's Men's World Cup and Polymarket's FIFA World Cup are one competition; country forms fold", () => {
  const kalshi = market(
    'kalshi:KXMENWORLDCUP-26-BIH',
    "Will Bosnia and Herzegovina win the 2026 Men's World Cup?",
  );
  const poly = market('polymarket:558983', 'Will Bosnia-Herzegovina win the 2026 FIFA World Cup?', {
    end_date: '2026-07-20T00:00:00Z',
  });
  const v = compare(kalshi, poly);
  assert.equal(v?.relation, 'same_market');
  assert.equal(v?.tier, 'HIGH');
  // Another option of the aligned event on the other venue: exclusive across venues.
  const brazil = market('polymarket:558937', 'Will Brazil win the 2026 FIFA World Cup?');
  const x = compare(kalshi, brazil);
  assert.equal(x?.relation, 'co_dependent');
  assert.equal(x?.dependencyType, 'mutually_exclusive');
  // The women's cup is another competition, never the men's.
  const women = market('polymarket:w', "Will Brazil win the 2027 FIFA Women's World Cup?");
  assert.equal(compare(brazil, women), null);
});

test('an operator lexicon file adds names and changes the version (every market relinks)', () => {
  const before = lexiconVersion();
  const a = market('kalshi:A', 'Will Los Angeles win the 2026 Stanley Cup?');
  const b = market('polymarket:B', 'Will LA Kings win the 2026 NHL Stanley Cup Final?');
  const dir = mkdtempSync(join(tmpdir(), 'lexicon-'));
  const path = join(dir, 'extra.json');
  writeFileSync(
    path,
    JSON.stringify({
      version: 'op-1',
      kind: 'competitions',
      entries: [
        {
          id: 'stanleycup',
          names: ['nhl stanley cup final', 'stanley cup'],
          source: 'operator test entry (NHL naming)',
        },
      ],
    }),
  );
  loadLexicon([path]);
  assert.notEqual(lexiconVersion(), before);
  assert.ok(extractFeatures(a).entities.includes('stanleycup'));
  assert.ok(extractFeatures(b).entities.includes('stanleycup'));
  loadLexicon([]);
  assert.equal(lexiconVersion(), before);
  assert.throws(() => loadLexicon([join(dir, 'missing.json')]));
});

test('a Kalshi market known by its ticker alone reads as its series title', () => {
  assert.equal(
    kalshiTitleFromTicker('KXFEDDECISION-25DEC-C25'),
    'Will the Federal Reserve Cut rates by 25bps at their December 2025 meeting?',
  );
  assert.equal(kalshiTitleFromTicker('KXFEDDECISION-25XYZ-C25'), null);
  const k = market('kalshi:KXFEDDECISION-25DEC-H0', 'KXFEDDECISION-25DEC-H0', {
    exchange_market_id: 'KXFEDDECISION-25DEC-H0',
    group_title: 'KXFEDDECISION-25DEC-H0',
  });
  const p = market('polymarket:570362', 'No change in Fed interest rates after December 2025 meeting?');
  assert.equal(compare(k, p)?.relation, 'same_market');
});

test('the resolution check lists deadline, settlement source and inclusiveness differences, mirrored', () => {
  const kalshi = resolutionFacts({
    question: 'Bitcoin above $100,000?',
    rules: "Settled on CF Benchmarks' Bitcoin Real-Time Index (BRTI).",
    statedDay: { iso: '2026-04-30', source: 'text' },
    endAt: null,
    hasThreshold: true,
  });
  const poly = resolutionFacts({
    question: 'Bitcoin $100,000 or above?',
    rules: 'Resolves by the Binance 1 minute candle for BTC/USDT.',
    statedDay: null,
    endAt: Date.parse('2026-05-02T16:00:00Z'),
    hasThreshold: true,
  });
  const c = resolutionCheck(kalshi, poly);
  assert.equal(c.comparable, false);
  assert.deepEqual(c.differences, ['deadline', 'settlement_source', 'threshold_inclusive']);
  assert.deepEqual(c.market.settlement_source, ['brti']);
  assert.equal(c.market.deadline, '2026-04-30T23:59:59Z');
  assert.equal(c.linked.deadline, '2026-05-02T16:00:00.000Z');
  assert.deepEqual(mirrorCheck(c).market, c.linked);
  const bare = resolutionFacts({
    question: 'X?',
    rules: '',
    statedDay: null,
    endAt: null,
    hasThreshold: false,
  });
  const u = resolutionCheck(kalshi, bare);
  assert.equal(u.comparable, true);
  assert.deepEqual(u.differences, ['unknown']);
});

test('every same_market verdict carries its resolution check', () => {
  const a = market('polymarket:1823777', 'Will Bitcoin reach $75,000 in April?');
  const b = market('predictfun:139758', 'Will Bitcoin reach $75,000 in April?');
  const v = compare(a, b);
  assert.equal(v?.relation, 'same_market');
  assert.ok(v?.resolution);
  assert.equal(typeof v?.resolution?.comparable, 'boolean');
});

test('a touch in a month implies the touch before a later deadline of that year, not of the year before', () => {
  const april = market('polymarket:1823771', 'Will Bitcoin reach $105,000 in April?');
  const beforeJuly = market('kalshi:KXBTCMAX100-26-JUNE', 'When will bitcoin hit 100k? - Before July 2026', {
    exchange_market_id: 'KXBTCMAX100-26-JUNE',
    group_title: 'When will bitcoin hit 100k?',
  });
  const v = compare(april, beforeJuly);
  assert.equal(v?.relation, 'co_dependent');
  assert.equal(v?.dependencyType, 'date_ladder');
  assert.equal(v?.direction, 'implies');
  assert.equal(compare(beforeJuly, april)?.direction, 'implied_by');
  const dec2025 = market('polymarket:687200', 'Will Bitcoin reach $100,000 by December 31, 2025?');
  assert.equal(compare(beforeJuly, dec2025), null, 'two series of two years: no implication');
  // A lower line in the narrower window implies nothing about a higher line in the wider one.
  const low = market('polymarket:x', 'Will Bitcoin reach $95,000 in April?');
  assert.equal(compare(low, beforeJuly), null);
});

test('one line on two stated settlement indices is co_dependent settlement_index, never same_market', () => {
  const kalshi = market(
    'kalshi:KXBTCMAXMON-BTC-26APR30-8000000',
    'Will Bitcoin reach $80,000 in April 2026?',
    {
      rules: "The Contract is settled by taking an average of CF Benchmarks' Bitcoin Real-Time Index (BRTI).",
    },
  );
  const poly = market('polymarket:1823776', 'Will Bitcoin reach $80,000 in April 2026?', {
    rules: 'The resolution source for this market is Binance, specifically the BTC/USDT High prices.',
  });
  const v = compare(kalshi, poly);
  assert.equal(v?.relation, 'co_dependent');
  assert.equal(v?.dependencyType, 'settlement_index');
  assert.equal(v?.direction, null);
  assert.ok(v?.evidence.some((e) => e.includes('brti vs binance')));
  // A side that states no index is compared as before: the same market, its check listing nothing unknown.
  const unstated = market('predictfun:139757', 'Will Bitcoin reach $80,000 in April 2026?');
  assert.equal(compare(kalshi, unstated)?.relation, 'same_market');
});

test('an operator stages file adds a stage phrase: reaching it is implied by winning, never the same market', () => {
  const stage = market('polymarket:p', 'Will the Knicks make the 2026 NBA playoffs?');
  const win = market('predictfun:w', 'Will the Knicks win the 2026 NBA Finals?');
  // Without the phrase the two share too little to say anything, or would say the wrong thing.
  assert.notEqual(compare(stage, win)?.dependencyType, 'stage_reached');
  const dir = mkdtempSync(join(tmpdir(), 'lexicon-'));
  const path = join(dir, 'stages.json');
  writeFileSync(
    path,
    JSON.stringify({
      version: 'op-stages-1',
      kind: 'stages',
      entries: [
        { id: 'playoffs', names: ['make the … playoffs'], source: 'operator test entry (a playoff stage)' },
      ],
    }),
  );
  loadLexicon([path]);
  try {
    assert.ok(extractFeatures(stage).tokens.includes('stageplayoff'));
    const v = compare(win, stage);
    assert.equal(v?.relation, 'co_dependent');
    assert.equal(v?.dependencyType, 'stage_reached');
    assert.equal(v?.direction, 'implies');
  } finally {
    loadLexicon([]);
  }
});
