// The engine over markets phrased as the five simulators phrase the shared world: links both ways of a pair are
// one link, same_market is one-to-one per exchange, and linking in batches (what each sync pass does) ends with
// exactly the links of linking everything at once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { realSet } from '../../../../bench/matching/real-set.js';
import { type SyntheticMarket, syntheticMarkets } from '../../../../bench/matching/synthetic.js';
import { createWorld } from '../../../../sim/shared/world.js';
import { type EngineLink, MatchEngine } from '../../../../src/services/matching/match-engine.js';
import { assertProperty } from '../../../support/property.js';

const markets = [...syntheticMarkets(createWorld({ seed: 11, size: 120 }))];
// The real labelled set holds markets with no date at all beside dated ones of the same subject (the Fed chair
// nomination): mixed in, batching must still equal linking everything, across the undated/dated lookups too.
const real = realSet().markets;

function shape(l: EngineLink): string {
  const [a, b, direction] =
    l.a < l.b
      ? [l.a, l.b, l.direction]
      : [
          l.b,
          l.a,
          l.direction === 'implies' ? 'implied_by' : l.direction === 'implied_by' ? 'implies' : l.direction,
        ];
  return `${a}|${b}|${l.relation}|${l.dependencyType}|${direction}`;
}

test('linkAll: same_market is one-to-one per exchange and every link has evidence', () => {
  const engine = new MatchEngine();
  assert.equal(engine.upsert(markets).length, markets.length);
  const links = engine.linkAll();
  assert.ok(links.length > 0);
  const seen = new Map<string, string>();
  for (const l of links) {
    assert.ok(l.evidence.length > 0);
    if (l.relation !== 'same_market') continue;
    for (const [x, y] of [
      [l.a, l.b],
      [l.b, l.a],
    ] as const) {
      const key = `${x}>${y.slice(0, y.indexOf(':'))}`;
      assert.equal(seen.get(key), undefined, `${x} has two same_market links on one exchange`);
      seen.set(key, y);
    }
  }
  const key = new Map(markets.map((m) => [m.svc_id, m.key]));
  const high = links.filter((l) => l.relation === 'same_market' && l.tier === 'HIGH');
  const right = high.filter((l) => key.get(l.a) === key.get(l.b));
  assert.ok(right.length / high.length >= 0.98, `${right.length}/${high.length}`);
});

test('unchanged markets are not reported as changed; an edited question is', () => {
  const engine = new MatchEngine();
  engine.upsert(markets);
  assert.deepEqual(engine.upsert(markets.slice(0, 10)), []);
  const edited = { ...(markets[0] as SyntheticMarket), question: `${markets[0]?.question} (edited)` };
  assert.deepEqual(engine.upsert([edited]), [edited.svc_id]);
});

test('property: linking batch by batch (each linkAround replacing its scope) equals linking all at once', () => {
  assertProperty(
    fc.property(
      fc.array(fc.integer({ min: 1, max: 60 }), { minLength: 1, maxLength: 8 }),
      fc.integer({ min: 0, max: 1000 }),
      (cuts, rot) => {
        const all = [...markets, ...real];
        const order = [...all.slice(rot % all.length), ...all.slice(0, rot % all.length)];
        const engine = new MatchEngine();
        const stored = new Map<string, EngineLink>();
        let at = 0;
        for (let i = 0; at < order.length; i++) {
          const batch = order.slice(at, at + (cuts[i % cuts.length] as number) * 5);
          at += batch.length;
          const changed = engine.upsert(batch);
          const { scope, links } = engine.linkAround(changed);
          const inScope = new Set(scope);
          for (const [k, l] of stored) if (inScope.has(l.a) || inScope.has(l.b)) stored.delete(k);
          for (const l of links) stored.set(`${l.a}|${l.b}`, l);
        }
        const full = new MatchEngine();
        full.upsert(order);
        const expected = new Set(full.linkAll().map(shape));
        const got = new Set([...stored.values()].map(shape));
        assert.deepEqual(
          [...got].filter((x) => !expected.has(x)),
          [],
          'links only the batched run has',
        );
        assert.deepEqual(
          [...expected].filter((x) => !got.has(x)),
          [],
          'links only the full run has',
        );
      },
    ),
    {
      numRuns: 6,
      examples: [
        [[1], 0],
        [[60], 7],
      ],
    },
  );
});

test('a market with no date meets the dated markets of its subject, linking everything and batch by batch', () => {
  // Kalshi's Hassett market is dated by its rules (before Jan 20, 2029); the Warsh and Bessent stand-ins carry no
  // date at all. One nominee excludes the others, whichever order the markets arrive in.
  const hassett = 'kalshi:KXFEDCHAIRNOM-29-KH';
  const undated = [
    'kalshi:fed-chair-warsh',
    'kalshi:fed-chair-bessent',
    'polymarket:fed-chair-warsh',
    'polymarket:fed-chair-bessent',
  ];
  const pick = (ids: string[]) => real.filter((m) => ids.includes(m.svc_id));
  const excluded = (links: EngineLink[]) =>
    links
      .filter((l) => l.relation === 'co_dependent' && (l.a === hassett || l.b === hassett))
      .map((l) => (l.a === hassett ? l.b : l.a))
      .filter((id) => undated.includes(id))
      .sort();
  const full = new MatchEngine();
  full.upsert(pick([hassett, ...undated]));
  assert.deepEqual(excluded(full.linkAll()), [...undated].sort());
  for (const [first, second] of [
    [undated, [hassett]],
    [[hassett], undated],
  ] as const) {
    const engine = new MatchEngine();
    engine.linkAround(engine.upsert(pick([...first])));
    assert.deepEqual(
      excluded(engine.linkAround(engine.upsert(pick([...second]))).links),
      [...undated].sort(),
    );
  }
});

// Markets that change (a venue moving a close, rewording a question, or listing another market's question under an
// old id) move best matches and twins among markets that did not: relinking the changed ones, each relink replacing
// the links of its scope, must still end with the full walk's links, confidence and evidence included.
test('property: relinking edited markets batch by batch equals linking the edited catalogue all at once', () => {
  const all = [...markets, ...real];
  const exact = (l: EngineLink) => `${shape(l)}|${l.source}|${l.confidence}|${l.evidence.join(';')}`;
  const edit = (m: SyntheticMarket, kind: number, other: SyntheticMarket): SyntheticMarket => {
    const end = Date.parse(m.end_date ?? '2026-12-31T00:00:00Z');
    if (kind === 0) return { ...m, end_date: new Date(end + 86_400_000).toISOString() };
    if (kind === 1) return { ...m, end_date: new Date(end - 40 * 86_400_000).toISOString() };
    return { ...m, question: other.question, end_date: other.end_date };
  };
  assertProperty(
    fc.property(
      fc.array(
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 2 }), fc.nat()), {
          minLength: 1,
          maxLength: 40,
        }),
        { minLength: 1, maxLength: 3 },
      ),
      (batches) => {
        const engine = new MatchEngine();
        engine.upsert(all);
        const stored = new Map<string, EngineLink>();
        for (const l of engine.linkAll()) stored.set(`${l.a}|${l.b}`, l);
        const current = new Map(all.map((m) => [m.svc_id, m as SyntheticMarket]));
        for (const batch of batches) {
          const edited = batch.map(([at, kind, from]) => {
            const m = all[at % all.length] as SyntheticMarket;
            return edit(
              current.get(m.svc_id) as SyntheticMarket,
              kind,
              all[from % all.length] as SyntheticMarket,
            );
          });
          for (const m of edited) current.set(m.svc_id, m);
          const { scope, links } = engine.linkAround(engine.upsert(edited));
          const inScope = new Set(scope);
          for (const [k, l] of stored) if (inScope.has(l.a) || inScope.has(l.b)) stored.delete(k);
          for (const l of links) stored.set(`${l.a}|${l.b}`, l);
        }
        const full = new MatchEngine();
        full.upsert(current.values());
        const expected = new Set(full.linkAll().map(exact));
        const got = new Set([...stored.values()].map(exact));
        assert.deepEqual(
          [...got].filter((x) => !expected.has(x)),
          [],
          'links only the relinked run has',
        );
        assert.deepEqual(
          [...expected].filter((x) => !got.has(x)),
          [],
          'links only the full run has',
        );
      },
    ),
    { numRuns: 8, examples: [] },
  );
});
