// The passes that read more than one pair at a time: events aligned across venues before their options are matched
// (a Kalshi option known by its ticker code alone finds its twin only inside the aligned event), and dependencies
// carried across same_market twins (A ≡ A′ and A′ implies B ⇒ A implies B), each naming its chain; both found the
// same way when linking everything and when relinking a neighbourhood.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { devSet } from '../../../../bench/matching/labelled-set.js';
import { extractFeatures, type MatchInput } from '../../../../src/domain/matching/features.js';
import { kalshiOptionCode, optionForm } from '../../../../src/domain/matching/options.js';
import { type EngineLink, MatchEngine } from '../../../../src/services/matching/match-engine.js';

function find(links: EngineLink[], a: string, b: string): EngineLink | undefined {
  return links.find((l) => (l.a === a && l.b === b) || (l.a === b && l.b === a));
}

/** The direction read from `from`'s side. */
function directionFrom(l: EngineLink, from: string): string | null {
  if (l.a === from) return l.direction;
  return l.direction === 'implies' ? 'implied_by' : l.direction === 'implied_by' ? 'implies' : l.direction;
}

test('option forms: containment and a Kalshi code the lexicon knows; nothing from digits or another name', () => {
  assert.equal(optionForm(['warsh'], ['kevin', 'warsh'], 'kalshi:X-26-KW', 'polymarket:1'), 'containment');
  assert.equal(optionForm(['boston'], ['boston', 'celtics'], 'kalshi:A', 'polymarket:B'), 'containment');
  assert.equal(optionForm(['hassett'], ['kevin', 'warsh'], 'kalshi:A', 'polymarket:B'), null);
  assert.equal(optionForm(['10'], ['10', '15s'], 'opinion:A', 'polymarket:B'), null);
  assert.equal(kalshiOptionCode('kalshi:KXMENWORLDCUP-26-BIH'), 'BIH');
  assert.equal(kalshiOptionCode('polymarket:558983'), null);
  const bih = extractFeatures({
    svc_id: 'polymarket:558983',
    exchange: 'polymarket',
    question: 'Will Bosnia-Herzegovina win the 2026 FIFA World Cup?',
  });
  assert.equal(optionForm([], bih.option, 'kalshi:KXMENWORLDCUP-26-BIH', bih.svcId), 'code');
  assert.equal(optionForm([], bih.option, 'kalshi:KXMENWORLDCUP-26-ARG', bih.svcId), null);
});

// One event on two venues: three options twinned by their wording align the events; the fourth Kalshi option is a
// record that kept its ticker alone, which comparePair cannot read (and never links), matched inside the aligned
// event by its ticker code.
const worldCup: MatchInput[] = [
  ...['Argentina', 'Brazil', 'France', 'Bosnia-Herzegovina'].map((team, i) => ({
    svc_id: `polymarket:wc-${i}`,
    exchange: 'polymarket' as const,
    question: `Will ${team} win the 2026 FIFA World Cup?`,
    svc_group_id: 'polymarket:wc',
    group_title: '2026 FIFA World Cup Winner',
    end_date: '2026-07-20T00:00:00Z',
  })),
  ...[
    ['ARG', 'Argentina'],
    ['BRA', 'Brazil'],
    ['FRA', 'France'],
  ].map(([code, team]) => ({
    svc_id: `kalshi:KXMENWORLDCUP-26-${code}`,
    exchange: 'kalshi' as const,
    exchange_market_id: `KXMENWORLDCUP-26-${code}`,
    question: `Will ${team} win the 2026 Men's World Cup?`,
    svc_group_id: 'kalshi:KXMENWORLDCUP-26',
    group_title: "2026 Men's World Cup winner?",
  })),
  {
    svc_id: 'kalshi:KXMENWORLDCUP-26-BIH',
    exchange: 'kalshi',
    exchange_market_id: 'KXMENWORLDCUP-26-BIH',
    question: 'KXMENWORLDCUP-26-BIH',
    svc_group_id: 'kalshi:KXMENWORLDCUP-26',
  },
];

test('events first, then options: a ticker-coded option is matched inside the aligned event only', () => {
  const engine = new MatchEngine();
  engine.upsert(worldCup);
  const links = engine.linkAll();
  const twin = find(links, 'kalshi:KXMENWORLDCUP-26-BIH', 'polymarket:wc-3');
  assert.ok(twin, JSON.stringify(links.filter((l) => l.relation === 'same_market')));
  assert.equal(twin.relation, 'same_market');
  assert.equal(twin.source, 'hierarchical');
  assert.ok(twin.resolution, 'every same_market link carries its resolution check');
  assert.match(twin.evidence.join(' '), /aligned with .*3 options twinned/);
  assert.match(twin.evidence.join(' '), /code, the only match both ways/);
  // Nothing else for the coded option: it is no twin of another team.
  for (const l of links) {
    if (l.relation === 'same_market' && [l.a, l.b].includes('kalshi:KXMENWORLDCUP-26-BIH'))
      assert.equal(l, twin);
  }
  // Without the aligned event (the other options gone), the ticker alone links nothing.
  const alone = new MatchEngine();
  alone.upsert(worldCup.filter((m) => m.svc_id.endsWith('BIH') || m.svc_id === 'polymarket:wc-3'));
  assert.equal(alone.linkAll().length, 0);
  // Relinking the coded option's neighbourhood finds the same link.
  const around = engine.linkAround(['kalshi:KXMENWORLDCUP-26-BIH']).links;
  assert.deepEqual(find(around, 'kalshi:KXMENWORLDCUP-26-BIH', 'polymarket:wc-3'), twin);
});

// Real rows of the development set: Polymarket asks `by June 30?` without the year, predict.fun `by June 30, 2026`
// (twins), and predict.fun `in 2025`. Nothing says which year Polymarket's June 30 is, so comparePair links it to
// no year's window; through its twin it is the 2026 deadline, which the 2025 window implies.
test('a dependency carried across a twin names the chain, from both sides and in a relinked neighbourhood', () => {
  const ids = ['polymarket:657287', 'predictfun:928', 'predictfun:927'];
  const engine = new MatchEngine();
  engine.upsert(devSet().markets.filter((m) => ids.includes(m.svc_id)));
  const links = engine.linkAll();
  assert.equal(find(links, 'polymarket:657287', 'predictfun:928')?.relation, 'same_market');
  const derived = find(links, 'predictfun:927', 'polymarket:657287');
  assert.ok(derived, JSON.stringify(links));
  assert.equal(derived.relation, 'co_dependent');
  assert.equal(derived.dependencyType, 'date_ladder');
  assert.equal(directionFrom(derived, 'predictfun:927'), 'implies');
  assert.equal(directionFrom(derived, 'polymarket:657287'), 'implied_by');
  assert.match(derived.evidence[0] ?? '', /^through twin predictfun:928: polymarket:657287 ≡ predictfun:928/);
  for (const id of ids) {
    const around = engine.linkAround([id]).links;
    assert.deepEqual(find(around, 'predictfun:927', 'polymarket:657287'), derived, `relinking ${id}`);
  }
});

// Every market of the development set relinked alone answers exactly the full walk's links around it: the
// event-alignment and through-twin passes read their neighbourhood as the full walk does.
test('development set: relinking any one market gives the full walk’s links of its neighbourhood', () => {
  const engine = new MatchEngine();
  const markets = devSet().markets;
  engine.upsert(markets);
  const shape = (l: EngineLink) =>
    `${l.a}|${l.b}|${l.relation}|${l.dependencyType}|${l.direction}|${l.source}`;
  const all = engine.linkAll();
  const full = new Set(all.map(shape));
  for (const m of markets) {
    const { scope, links } = engine.linkAround([m.svc_id]);
    const inScope = new Set(scope);
    const got = new Set(links.map(shape));
    for (const l of all) {
      if (inScope.has(l.a) || inScope.has(l.b))
        assert.ok(got.has(shape(l)), `${m.svc_id}: ${shape(l)} missing`);
    }
    for (const k of got) assert.ok(full.has(k), `${m.svc_id}: ${k} not in the full walk`);
  }
});

test('a deadline ladder links every step one venue implies on another, not only the nearest, each with its direction', () => {
  const m = (svc_id: string, question: string): MatchInput => ({
    svc_id,
    exchange: svc_id.split(':')[0] as MatchInput['exchange'],
    question,
  });
  const markets = [
    m('polymarket:y2025', 'Will Base launch a token in 2025?'),
    m('predictfun:jun26', 'Will Base launch a token by June 30, 2026?'),
    m('predictfun:dec26', 'Will Base launch a token by December 31, 2026?'),
    m('predictfun:mar26', 'Will Base launch a token by March 31, 2026?'),
  ];
  const engine = new MatchEngine();
  engine.upsert(markets);
  const links = engine.linkAll();
  for (const far of ['predictfun:mar26', 'predictfun:jun26', 'predictfun:dec26']) {
    const l = find(links, 'polymarket:y2025', far);
    assert.equal(l?.dependencyType, 'date_ladder', far);
    assert.equal(directionFrom(l as EngineLink, 'polymarket:y2025'), 'implies', far);
  }
  // An incremental relink of the one market finds what the full walk does.
  const around = engine
    .linkAround(['polymarket:y2025'])
    .links.filter((l) => l.a === 'polymarket:y2025' || l.b === 'polymarket:y2025');
  assert.equal(
    around.length,
    links.filter((l) => l.a === 'polymarket:y2025' || l.b === 'polymarket:y2025').length,
  );
});
