import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generatePrivateKey } from 'viem/accounts';
import { secp256k1Key, secp256k1KeyProblem } from '../../../src/domain/secp256k1-key.js';

const N = 'fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141';

test('a private key is 64 hex digits and a scalar in [1, n-1]', () => {
  const key = generatePrivateKey();
  assert.equal(secp256k1Key(key), key);
  assert.equal(secp256k1Key(key.slice(2).toUpperCase()), key);
  assert.equal(secp256k1KeyProblem(`0x${'0'.repeat(63)}1`), null);
  assert.equal(secp256k1KeyProblem(`0x${N.slice(0, 63)}0`), null);
  for (const bad of [
    '0'.repeat(64),
    `0x${'0'.repeat(64)}`,
    N,
    `0x${N}`,
    'f'.repeat(64),
    `0x${'F'.repeat(64)}`,
  ]) {
    assert.equal(secp256k1KeyProblem(bad), 'range', bad);
    assert.equal(secp256k1Key(bad), null);
  }
  for (const bad of ['', '0x', 'abc', 'z'.repeat(64), '0'.repeat(65), `0X${'1'.repeat(64)}`]) {
    assert.equal(secp256k1KeyProblem(bad), 'shape', bad);
  }
});
