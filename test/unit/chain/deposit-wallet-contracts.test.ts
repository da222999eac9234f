// The deposit wallet bytecode the Polymarket simulator deploys (sim/polymarket/contracts/deposit-wallet.json) is the
// `solc` npm package's output for the source beside it: recompiled here and compared, so neither can drift.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
// @ts-expect-error a plain .mjs script without types
import { compileDepositWallet, OUTPUT } from '../../../scripts/compile-deposit-wallet.mjs';

test('checked-in deposit wallet bytecode equals a fresh solc compile of its source', () => {
  const fresh = compileDepositWallet();
  const stored = JSON.parse(readFileSync(OUTPUT, 'utf8'));
  assert.equal(stored.compiler, fresh.compiler);
  assert.deepEqual(Object.keys(stored.contracts).sort(), ['DepositWallet', 'DepositWalletFactory']);
  assert.deepEqual(stored, fresh, 'run node scripts/compile-deposit-wallet.mjs --write');
});
