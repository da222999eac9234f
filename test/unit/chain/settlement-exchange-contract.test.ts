// The settlement exchange bytecode the Polymarket simulator deploys (sim/polymarket/contracts/
// settlement-exchange.json) is the `solc` npm package's output for the source beside it: recompiled here and
// compared, so neither can drift.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
// @ts-expect-error a plain .mjs script without types
import { compileSettlementExchange, OUTPUT } from '../../../scripts/compile-sim-exchange.mjs';

test('checked-in settlement exchange bytecode equals a fresh solc compile of its source', () => {
  const fresh = compileSettlementExchange();
  const stored = JSON.parse(readFileSync(OUTPUT, 'utf8'));
  assert.equal(stored.compiler, fresh.compiler);
  assert.deepEqual(Object.keys(stored.contracts), ['SettlementExchange']);
  assert.deepEqual(stored, fresh, 'run node scripts/compile-sim-exchange.mjs --write');
});
