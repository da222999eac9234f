// The matching evaluation as a test that can fail: on the sandbox world (five simulators walked through their
// adapters, scored against /__sim/manifest) and on the hand-labelled real markets, the engine must meet the
// issue's targets — same_market HIGH precision ≥ 0.98 with recall ≥ 0.9, co_dependent precision ≥ 0.95 (and, on the
// real set, co_dependent recall ≥ 0.9 too).
// `npm run eval:matching` prints the full tables.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { evaluate, formatReport } from '../../../bench/matching/metrics.js';
import { realSet } from '../../../bench/matching/real-set.js';
import { simCatalogue } from '../../../bench/matching/sim-catalogue.js';
import { simTruth } from '../../../bench/matching/sim-truth.js';
import { createWorld } from '../../../sim/shared/world.js';
import { MatchEngine } from '../../../src/services/matching/match-engine.js';

test('sandbox world: same_market HIGH precision ≥ 0.98, recall ≥ 0.9; co_dependent precision ≥ 0.95', async () => {
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
});

test('real labelled markets: same_market HIGH precision ≥ 0.98, co_dependent precision ≥ 0.95, recall ≥ 0.9', () => {
  const real = realSet();
  const engine = new MatchEngine();
  engine.upsert(real.markets);
  const report = evaluate(engine.linkAll(), real.truth, real.universe);
  const table = formatReport('real', report);
  assert.ok((report.sameHighPrecision ?? 0) >= 0.98, table);
  assert.ok((report.relation.get('co_dependent')?.precision ?? 0) >= 0.95, table);
  assert.ok((report.relation.get('same_market')?.predicted ?? 0) >= 2, table);
  assert.ok((report.relation.get('same_market')?.recall ?? 0) >= 0.9, table);
  assert.ok((report.relation.get('co_dependent')?.recall ?? 0) >= 0.9, table);
});
