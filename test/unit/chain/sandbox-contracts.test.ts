// The bytecode the sandbox chain deploys (src/chain/sandbox/sandbox-contracts.json) is the `solc` npm package's
// output for the sources beside it: recompiled here and compared, so neither can drift from the other.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
// @ts-expect-error a plain .mjs script without types
import { compileSandboxContracts, OUTPUT } from '../../../scripts/compile-sandbox-contracts.mjs';

test('checked-in sandbox contract bytecode equals a fresh solc compile of its sources', () => {
  const fresh = compileSandboxContracts();
  const stored = JSON.parse(readFileSync(OUTPUT, 'utf8'));
  assert.equal(stored.compiler, fresh.compiler);
  assert.deepEqual(Object.keys(stored.contracts).sort(), [
    'Collateral',
    'CollateralAdapter',
    'NegRiskAdapter',
    'NegRiskCollateralAdapter',
    'WrappedCollateral',
  ]);
  assert.deepEqual(stored, fresh, 'run node scripts/compile-sandbox-contracts.mjs --write');
});
