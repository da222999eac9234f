// The matching evaluation as a test that can fail: on the sandbox world (five simulators walked through their
// adapters, scored against /__sim/manifest) and on the hand-labelled real markets, the engine must meet the
// issue's targets — same_market HIGH precision ≥ 0.98 with recall ≥ 0.9, co_dependent precision ≥ 0.95 (and, on the
// real set, co_dependent recall ≥ 0.9 too). The sandbox, ours, stays at 100% precision and recall everywhere.
// `npm run eval:matching` prints the full tables.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { devSet } from '../../../bench/matching/labelled-set.js';
import { evaluate, formatReport } from '../../../bench/matching/metrics.js';
import { realSet } from '../../../bench/matching/real-set.js';
import { simCatalogue } from '../../../bench/matching/sim-catalogue.js';
import { simTruth } from '../../../bench/matching/sim-truth.js';
import { createWorld } from '../../../sim/shared/world.js';
import { DEFAULT_CONFIG } from '../../../src/config/schema.js';
import { tierRank } from '../../../src/domain/matching/confidence.js';
import { MatchEngine } from '../../../src/services/matching/match-engine.js';

test('sandbox world: 100% precision and recall on every relation, tier and venue pair', async () => {
  const size = 300;
  const sim = await simCatalogue(size, 3);
  const { truth, universe } = simTruth(
    createWorld({ seed: 3, size }),
    sim.manifests,
    new Set(sim.markets.map((m) => m.svc_id)),
  );
  const engine = new MatchEngine();
  engine.upsert(sim.markets);
  const report = evaluate(engine.linkAll(), truth, universe);
  const table = formatReport('sandbox', report);
  const same = report.relation.get('same_market');
  const co = report.relation.get('co_dependent');
  assert.ok((report.sameHighPrecision ?? 0) >= 0.98, table);
  assert.ok((same?.recall ?? 0) >= 0.9, table);
  assert.ok((co?.precision ?? 0) >= 0.95, table);
  assert.ok((co?.predicted ?? 0) > 0 && (same?.predicted ?? 0) > 0, table);
  // The sandbox is ours: every relation, tier and venue pair stays at 100% precision and 100% recall (issue 32).
  for (const r of report.rows) {
    if (r.predicted > 0) assert.equal(r.precision, 1, `${r.group} precision\n${table}`);
    if (r.truth > 0) assert.equal(r.recall, 1, `${r.group} recall\n${table}`);
  }
  // Kalshi (BRTI) and Polymarket (Binance) crypto lines are co_dependent settlement_index, never same_market.
  assert.ok(
    report.rows.some((r) => r.group === 'type settlement_index' && r.predicted > 0),
    table,
  );
});

test('real labelled markets: same_market HIGH precision ≥ 0.98, co_dependent precision ≥ 0.95, recall ≥ 0.9', () => {
  const real = realSet();
  const engine = new MatchEngine();
  engine.upsert(real.markets);
  const report = evaluate(engine.linkAll(), real.truth, real.universe);
  const table = formatReport('real', report);
  assert.ok((report.sameHighPrecision ?? 0) >= 0.98, table);
  // Every published tier (matching.minTier and above) ≥ 0.95 precision, per venue pair too.
  const published = evaluate(
    engine.linkAll().filter((l) => tierRank(l.tier) >= tierRank(DEFAULT_CONFIG.matching.minTier)),
    real.truth,
    real.universe,
  );
  for (const r of published.rows)
    if (r.group.startsWith('tier ') && r.predicted > 0)
      assert.ok((r.precision ?? 1) >= 0.95, `${r.group}\n${formatReport('real, published', published)}`);
  assert.ok((report.relation.get('co_dependent')?.precision ?? 0) >= 0.95, table);
  assert.ok((report.relation.get('same_market')?.predicted ?? 0) >= 2, table);
  assert.ok((report.relation.get('same_market')?.recall ?? 0) >= 0.9, table);
  assert.ok((report.relation.get('co_dependent')?.recall ?? 0) >= 0.9, table);
});

// The real development set (253 markets in the venues' phrasing, test/fixtures/matching-real-dev/): per venue pair,
// same_market HIGH precision ≥ 0.98 and every published tier ≥ 0.95; same_market recall ≥ 0.9 per venue pair with
// at least five labelled twins; co_dependent precision ≥ 0.95 and recall ≥ 0.8, overall and per venue pair with at
// least five labelled pairs (the targets).
test('real development set: per venue pair and tier precision, same_market recall ≥ 0.9, co_dependent ≥ 0.8', () => {
  const set = devSet();
  const engine = new MatchEngine();
  engine.upsert(set.markets);
  const minTier = DEFAULT_CONFIG.matching.minTier;
  const published = engine.linkAll().filter((l) => tierRank(l.tier) >= tierRank(minTier));
  const report = evaluate(published, set.truth, set.universe);
  const table = formatReport('dev', report);
  const row = (group: string) => report.rows.find((r) => r.group === group);
  for (const r of report.rows) {
    if (r.group.startsWith('tier ') && r.predicted > 0) {
      const floor = r.group.startsWith('tier same_market HIGH') ? 0.98 : 0.95;
      assert.ok((r.precision ?? 1) >= floor, `${r.group}\n${table}`);
    }
    if (r.group.startsWith('pair same_market') && r.truth >= 5)
      assert.ok((r.recall ?? 0) >= 0.9, `${r.group}\n${table}`);
    if (r.group.startsWith('pair co_dependent') && r.truth >= 5) {
      assert.ok((r.recall ?? 0) >= 0.8, `${r.group}\n${table}`);
      assert.ok((r.precision ?? 0) >= 0.95, `${r.group}\n${table}`);
    }
    if (r.group.startsWith('pair ') && r.predicted > 0)
      assert.ok((r.precision ?? 1) >= 0.95, `${r.group}\n${table}`);
  }
  // The venue pairs the issue names are measured, not skipped for want of rows.
  for (const pair of ['kalshi~polymarket', 'polymarket~predictfun', 'kalshi~predictfun']) {
    assert.ok((row(`pair co_dependent ${pair}`)?.truth ?? 0) >= 5, `${pair}\n${table}`);
    assert.ok((row(`pair same_market ${pair}`)?.truth ?? 0) >= 5, `${pair}\n${table}`);
  }
  assert.ok((row('relation same_market')?.recall ?? 0) >= 0.9, table);
  assert.ok((report.sameHighPrecision ?? 0) >= 0.98, table);
  assert.ok((row('relation co_dependent')?.precision ?? 0) >= 0.95, table);
  assert.ok((row('relation co_dependent')?.recall ?? 0) >= 0.8, table);
  // The labels are the rule's: the cited corrections (a settlement index both venues state and differ on) are
  // applied, and the Kalshi one-touch line they name is related to its Polymarket touch, not matched.
  assert.ok(set.corrections.length >= 1, 'the corrections overlay is applied');
  const corrected = set.corrections.find((c) => c.a.startsWith('kalshi:KXBTCMAXMON'));
  assert.ok(corrected);
  const link = published.find(
    (l) => (l.a === corrected.a && l.b === corrected.b) || (l.a === corrected.b && l.b === corrected.a),
  );
  assert.equal(link?.relation, 'co_dependent', table);
  assert.equal(link?.dependencyType, 'settlement_index');
});
