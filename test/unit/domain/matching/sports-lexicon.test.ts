// Sports phrasing the venues write differently, on their own recorded wording (test/fixtures/matching-real-holdout/):
// Kalshi's `Pro Basketball` and city-only options named by ticker code, predict.fun's `win the 2026 NBA Finals` and
// `be the 2026 F1 Drivers' Champion`, two-year seasons, club short forms, and labels that may be one name's two
// spellings (never declared exclusive).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { comparePair, mayAbbreviate, tokenWeight } from '../../../../src/domain/matching/compare.js';
import { extractDates } from '../../../../src/domain/matching/dates.js';
import { extractFeatures, type MatchInput } from '../../../../src/domain/matching/features.js';
import { kalshiOptionId } from '../../../../src/domain/matching/lexicon.js';

const market = (svc_id: string, question: string, extra: Partial<MatchInput> = {}): MatchInput => ({
  svc_id,
  exchange: svc_id.split(':')[0] as MatchInput['exchange'],
  question,
  ...extra,
});
const option = (svc_id: string, label: string, event: string, group: string): MatchInput =>
  market(svc_id, label, { group_title: event, svc_group_id: group });
const compare = (a: MatchInput, b: MatchInput) =>
  comparePair(extractFeatures(a), extractFeatures(b), tokenWeight);

test("predict.fun's 'win the 2026 NBA Finals' is the '2026 NBA Champion' option elsewhere", () => {
  const poly = option('polymarket:okc', 'Oklahoma City Thunder', '2026 NBA Champion', 'polymarket:nba');
  const pf = market('predictfun:1', 'Will the Oklahoma City Thunder win the 2026 NBA Finals?');
  const v = compare(poly, pf);
  assert.equal(v?.relation, 'same_market');
  const other = market('predictfun:2', 'Will the Boston Celtics win the 2026 NBA Finals?');
  assert.equal(compare(poly, other)?.dependencyType, 'mutually_exclusive');
  // Reaching the Finals is not winning them: a stage (lexicon/stages.json), implied by the champion's market.
  const reachQ = market('predictfun:3', 'Will the Oklahoma City Thunder reach the 2026 NBA Finals?');
  const reach = extractFeatures(reachQ);
  assert.ok(reach.tokens.includes('stagefinal') && !reach.tokens.includes('champion'));
  const staged = compare(poly, reachQ);
  assert.equal(staged?.relation, 'co_dependent');
  assert.equal(staged?.dependencyType, 'stage_reached');
  assert.equal(staged?.direction, 'implies', 'the champion reached the Finals');
  // Another team winning says nothing of this one reaching the Finals (they may meet there).
  assert.equal(
    compare(option('polymarket:bos', 'Boston Celtics', '2026 NBA Champion', 'polymarket:nba'), reachQ),
    null,
  );
});

test('qualifying for a competition is implied by winning it, for the same contestant only', () => {
  const qualify = market('polymarket:it', 'Will Italy qualify for the 2026 FIFA World Cup?');
  const win = market('predictfun:1527', 'Will Italy win the 2026 FIFA World Cup?');
  const v = compare(qualify, win);
  assert.equal(v?.relation, 'co_dependent');
  assert.equal(v?.dependencyType, 'stage_reached');
  assert.equal(v?.direction, 'implied_by');
  assert.equal(compare(qualify, market('predictfun:1528', 'Will Spain win the 2026 FIFA World Cup?')), null);
});

test("Kalshi's Pro Basketball option named by city and ticker code is the full team name elsewhere", () => {
  const kalshi = market('kalshi:KXNBA-26-LAL', 'Will the Los Angeles L win the 2026 Pro Basketball Finals?', {
    group_title: '2026 Pro Basketball Champion',
    svc_group_id: 'kalshi:KXNBA-26',
    exchange_market_id: 'KXNBA-26-LAL',
  });
  const lakers = option('polymarket:lal', 'Los Angeles Lakers', '2026 NBA Champion', 'polymarket:nba');
  const clippers = option('polymarket:lac', 'Los Angeles Clippers', '2026 NBA Champion', 'polymarket:nba');
  assert.equal(compare(kalshi, lakers)?.relation, 'same_market');
  assert.equal(compare(kalshi, clippers)?.dependencyType, 'mutually_exclusive');
  // Codes are scoped by series: BOS is the Celtics in KXNBA and the Bruins in KXNHL.
  assert.equal(kalshiOptionId('KXNBA-26-BOS'), 'boston_celtics');
  assert.equal(kalshiOptionId('KXNHL-26-BOS'), 'boston_bruins');
  assert.equal(kalshiOptionId('KXNBA-26-ZZZ'), null);
  // Hockey is another competition, never basketball.
  const bruins = option('polymarket:bos', 'Boston Bruins', '2026 NHL Stanley Cup Champion', 'polymarket:nhl');
  const celtics = market('predictfun:4', 'Will the Boston Celtics win the 2026 NBA Finals?');
  assert.equal(compare(bruins, celtics), null);
});

test("predict.fun's 'be the 2026 F1 Drivers' Champion' names its driver", () => {
  const pf = extractFeatures(
    market('predictfun:5', "Will Charles Leclerc be the 2026 F1 Drivers' Champion?"),
  );
  assert.deepEqual(pf.option, ['charle', 'leclerc']);
  const opinion = option(
    'opinion:lec',
    'F1 World Drivers’ Champion 2026 - Charles Leclerc',
    'F1 World Drivers’ Champion 2026',
    'opinion:f1',
  );
  const russell = market('predictfun:6', "Will George Russell be the 2026 F1 Drivers' Champion?");
  assert.equal(
    compare(opinion, market('predictfun:5', "Will Charles Leclerc be the 2026 F1 Drivers' Champion?"))
      ?.relation,
    'same_market',
  );
  assert.equal(compare(opinion, russell)?.dependencyType, 'mutually_exclusive');
});

test('a season over two years reads as its later year', () => {
  assert.equal(extractDates('will arsenal win the 2025-26 la liga?', null).dates[0]?.iso, '2026');
  assert.equal(extractDates('the 2025-2026 nba mvp', null).dates[0]?.iso, '2026');
  assert.equal(extractDates('the 2025/26 season', null).dates[0]?.iso, '2026');
  // Two years that are not one season stay what they say.
  assert.equal(extractDates('between 2024-26', null).dates[0]?.iso, '2024');
  const opinion = option(
    'opinion:ars',
    'La Liga Winner 2026 - Barcelona',
    'La Liga Winner 2026',
    'opinion:laliga',
  );
  const pf = market('predictfun:7', 'Will Barcelona win the 2025–26 La Liga?');
  assert.equal(compare(opinion, pf)?.relation, 'same_market');
});

test('club short forms are one club; labels that may abbreviate each other are never exclusive', () => {
  const a = option('limitless:mci', 'Man City', 'English Premier League Winner', 'limitless:epl');
  const b = option('polymarket:mci', 'Manchester City', 'English Premier League Winner', 'polymarket:epl');
  assert.equal(compare(a, b)?.relation, 'same_market');
  const psg = market('predictfun:8', 'Will PSG win the 2025–26 Champions League?');
  const paris = option(
    'polymarket:psg',
    'Paris Saint-Germain',
    'UEFA Champions League Winner',
    'polymarket:ucl',
  );
  assert.equal(compare(psg, paris)?.relation, 'same_market');
  // Inter Miami is not Inter (Milan); a hyphenated word is never read as a short name.
  assert.deepEqual(extractFeatures(market('polymarket:x', 'Inter Miami')).tokens, ['inter', 'miami']);
  assert.ok(!extractFeatures(market('polymarket:y', 'Will inter-bank rates rise?')).tokens.includes('milan'));
  // Without the lexicon's word for it, `Man United` / `Manchester United` may be one club: not known different.
  assert.equal(mayAbbreviate(['man', 'united'], ['manchester', 'united']), true);
  assert.equal(mayAbbreviate(['hassett', 'kevin'], ['kevin', 'warsh']), false);
  assert.equal(mayAbbreviate(['city', 'manchester'], ['manchester', 'united']), false);
});
