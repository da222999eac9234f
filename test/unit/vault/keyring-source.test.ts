// The server's keyring: the operator's key wins over the key file, the key file is created once (0600) and reused,
// and a bad key is refused with a message that names the variable, never the text.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadKeyring } from '../../../src/vault/keyring-source.js';
import { MasterKeyError, parseMasterKey } from '../../../src/vault/master-key.js';

const dir = mkdtempSync(join(tmpdir(), 'omnibook-keyring-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('without OMNIBOOK_MASTER_KEY the key file is created on first run and reused', () => {
  const keyFile = join(dir, 'master.key');
  const first = loadKeyring({ previousMasterKeys: [], keyFile });
  assert.equal(statSync(keyFile).mode & 0o777, 0o600);
  assert.equal(loadKeyring({ previousMasterKeys: [], keyFile }).current.id, first.current.id);
});

test('the operator key is current and previous keys open older records', () => {
  const current = randomBytes(32).toString('hex');
  const previous = randomBytes(32).toString('base64');
  const ring = loadKeyring({
    masterKey: current,
    previousMasterKeys: [previous],
    keyFile: join(dir, 'unused.key'),
  });
  assert.equal(ring.current.id, parseMasterKey(current).id);
  assert.ok(ring.byId(parseMasterKey(previous).id));
});

test('a malformed key names its variable, never its text', () => {
  const text = 'definitely-not-a-key-0123456789';
  for (const source of [
    { masterKey: text, previousMasterKeys: [] },
    { masterKey: randomBytes(32).toString('hex'), previousMasterKeys: [text] },
  ]) {
    assert.throws(
      () => loadKeyring({ ...source, keyFile: join(dir, 'x.key') }),
      (e: Error) =>
        e instanceof MasterKeyError && /OMNIBOOK_MASTER_KEY/.test(e.message) && !e.message.includes(text),
    );
  }
});
