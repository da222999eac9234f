// Every file a server writes into its data directory is readable by its owner only (0600), whatever the process's
// umask and whatever mode an older version left (issue 31 item 10): the SQLite database and its -wal and -shm
// files hold key hashes, sealed credentials and orders; the intent log holds orders; the lock file and the master
// key sit beside them. The real server is started twice on one directory: under umask 000 (the worst case: SQLite
// and Node would create files 0666), and again after every file was widened to 0644.
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { startTestServer } from '../../support/server.js';

const dataDir = mkdtempSync(join(tmpdir(), 'omnibook-modes-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));

function modes(): Record<string, string> {
  return Object.fromEntries(
    readdirSync(dataDir)
      .filter((name) => statSync(join(dataDir, name)).isFile())
      .map((name) => [name, (statSync(join(dataDir, name)).mode & 0o777).toString(8)]),
  );
}

async function serveOnce(): Promise<Record<string, string>> {
  const server = await startTestServer({ config: { dataDir } });
  try {
    // Writes a key: the database and its WAL.
    const { key } = await server.runtime.keys.create({ name: 'modes', tier: 'pro' });
    assert.equal((await server.request('/api/v1/usage', { key })).status, 200);
    return modes();
  } finally {
    // stop() removes the data directory it made: this one is ours, so it is only stopped.
    await server.runtime.stop();
  }
}

test('every data file is 0600 under umask 000, and again after an older version left them 0644', async () => {
  const previous = process.umask(0o000);
  try {
    const first = await serveOnce();
    for (const name of [
      'omnibook.sqlite',
      'omnibook.sqlite-wal',
      'omnibook.sqlite-shm',
      'omnibook.sqlite-server-lock',
      'omnibook.sqlite-intents',
    ]) {
      assert.ok(name in first, `${name} was not written: ${JSON.stringify(first)}`);
    }
    for (const [name, mode] of Object.entries(first)) assert.equal(mode, '600', `${name} is ${mode}`);

    // Not master.key: a key file others can read stops the start instead (vault/master-key.ts).
    for (const name of Object.keys(modes())) if (name !== 'master.key') chmodSync(join(dataDir, name), 0o644);
    const second = await serveOnce();
    for (const [name, mode] of Object.entries(second))
      assert.equal(mode, '600', `${name} is ${mode} on restart`);
  } finally {
    process.umask(previous);
  }
});
