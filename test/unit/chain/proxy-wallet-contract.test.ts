// The proxy wallet bytecode the Polymarket simulator places (sim/polymarket/contracts/proxy-wallet.json) is the `solc`
// npm package's output for the source beside it: recompiled here and compared, so neither can drift.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
// @ts-expect-error a plain .mjs script without types
import { compileProxyWallet, OUTPUT } from '../../../scripts/compile-proxy-wallet.mjs';

test('checked-in proxy wallet bytecode equals a fresh solc compile of its source', () => {
  const fresh = compileProxyWallet();
  const stored = JSON.parse(readFileSync(OUTPUT, 'utf8'));
  assert.deepEqual(Object.keys(stored.contracts), ['ProxyWallet']);
  assert.deepEqual(stored, fresh, 'run node scripts/compile-proxy-wallet.mjs --write');
});
