// Master keys: parsing what an operator gives (never echoing it), the key file created once with mode 0600 and
// shared by processes that start together, and a key file others can read refused.
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  generateMasterKey,
  loadOrCreateKeyFile,
  MasterKeyError,
  parseMasterKey,
} from '../../../src/vault/master-key.js';

test('hex and base64 of 32 bytes are the same key; anything else is refused without being repeated', () => {
  const key = generateMasterKey();
  assert.equal(parseMasterKey(key.key.toString('hex')).id, key.id);
  assert.equal(parseMasterKey(key.key.toString('base64')).id, key.id);
  assert.equal(parseMasterKey(`${key.key.toString('base64url')}\n`).id, key.id);
  for (const bad of [
    '',
    'short',
    'zz'.repeat(32),
    key.key.toString('hex').slice(2),
    `${key.key.toString('hex')}00`,
  ]) {
    assert.throws(
      () => parseMasterKey(bad),
      (error: unknown) => error instanceof MasterKeyError && (bad === '' || !String(error).includes(bad)),
    );
  }
  assert.notEqual(generateMasterKey().id, key.id);
});

test('the key file is created once with mode 0600, and read back as the same key', () => {
  const dir = mkdtempSync(join(tmpdir(), 'omnibook-vault-'));
  try {
    const path = join(dir, 'nested', 'master.key');
    const first = loadOrCreateKeyFile(path);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.equal(loadOrCreateKeyFile(path).id, first.id);
    assert.deepEqual(readdirSync(join(dir, 'nested')), ['master.key'], 'no temporary file left behind');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a key file others can read is refused, naming the file and the fix', () => {
  const dir = mkdtempSync(join(tmpdir(), 'omnibook-vault-'));
  try {
    const path = join(dir, 'master.key');
    writeFileSync(path, generateMasterKey().key.toString('hex'), { mode: 0o600 });
    chmodSync(path, 0o644);
    assert.throws(() => loadOrCreateKeyFile(path), /chmod 600/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
