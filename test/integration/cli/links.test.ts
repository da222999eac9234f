// `omnibook links` as a user runs it: markets in as JSON lines, links out as JSON lines, the same engine the
// server runs (so the same links the engine gives in-process); a line that is not a market names its line number.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { syntheticMarkets } from '../../../bench/matching/synthetic.js';
import { createWorld } from '../../../sim/shared/world.js';
import { DEFAULT_CONFIG } from '../../../src/config/schema.js';
import { tierRank } from '../../../src/domain/matching/confidence.js';
import { MatchEngine } from '../../../src/services/matching/match-engine.js';
import { runCli } from '../../support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'omnibook-links-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('links a JSON-lines catalogue and writes one line per link, as the engine does in-process', async () => {
  const markets = [...syntheticMarkets(createWorld({ seed: 5, size: 40 }))].map(({ key: _key, ...m }) => m);
  const input = join(dir, 'markets.jsonl');
  const output = join(dir, 'links.jsonl');
  writeFileSync(input, `${markets.map((m) => JSON.stringify(m)).join('\n')}\n`);
  const res = await runCli(['links', '--markets', input, '--out', output]);
  assert.equal(res.code, 0, res.stderr);
  const lines = readFileSync(output, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const engine = new MatchEngine();
  engine.upsert(markets);
  // What `omnibook links` writes by default: links at or above the server's default matching.minTier.
  const expected = engine
    .linkAll()
    .filter((l) => tierRank(l.tier) >= tierRank(DEFAULT_CONFIG.matching.minTier));
  assert.equal(lines.length, expected.length);
  assert.match(res.stderr, new RegExp(`${markets.length} markets, ${expected.length} links`));
  for (const l of lines) {
    assert.ok(['same_market', 'co_dependent'].includes(l.relation));
    assert.ok(['HIGH', 'MEDIUM', 'LOW'].includes(l.confidence_tier));
    assert.ok(l.confidence >= 0.6 && l.confidence <= 1);
    assert.ok(Array.isArray(l.evidence) && l.evidence.length > 0);
    if (l.relation === 'co_dependent') {
      // One line on two stated settlement indices has no direction; every other dependency has one.
      if (l.dependency_type === 'settlement_index') assert.equal(l.dependency_direction, null);
      else assert.ok(['implies', 'implied_by', 'exclusive'].includes(l.dependency_direction));
    } else {
      assert.equal(l.dependency_type, undefined);
      // Every same_market line carries its resolution check.
      assert.equal(typeof l.resolution_check?.comparable, 'boolean');
      assert.ok(Array.isArray(l.resolution_check.differences));
      assert.ok('deadline' in l.resolution_check.market && 'deadline' in l.resolution_check.linked);
    }
  }
  assert.ok(
    lines.some((l) => l.relation === 'same_market') && lines.some((l) => l.relation === 'co_dependent'),
  );
});

test('a line that is not a market fails with its line number and writes nothing', async () => {
  const input = join(dir, 'bad.jsonl');
  const output = join(dir, 'bad-out.jsonl');
  writeFileSync(input, '{"svc_id":"kalshi:A","exchange":"kalshi","question":"Q?"}\n{"svc_id":"x"}\n');
  const res = await runCli(['links', '--markets', input, '--out', output]);
  assert.equal(res.code, 2);
  assert.match(res.stderr, /bad\.jsonl:2: .*exchange/);
  assert.throws(() => readFileSync(output));
  const missing = await runCli(['links']);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /--markets/);
});
