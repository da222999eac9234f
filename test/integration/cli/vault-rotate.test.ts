// `omnibook vault rotate` against a running server's database: records sealed under the old master key are
// rewrapped under the new one while the server (holding the new key as current and the old as previous) keeps
// onboarding and opening records; afterwards a server with the new key alone opens every record. Key text never
// appears in the command's output.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { type RunningSimVenue, SIM_VENUE_LAUNCHERS } from '../../../src/cli/sandbox-venues.js';
import { loadConfig } from '../../../src/config/load.js';
import { CredentialsRepo } from '../../../src/store/credentials-repo.js';
import { CredentialsStore } from '../../../src/vault/credentials-store.js';
import { MasterKeyring, parseMasterKey } from '../../../src/vault/master-key.js';
import { runCli } from '../../support/cli.js';
import { startTestServer, type TestServer } from '../../support/server.js';

const BASE_ENV: Record<string, string> = {
  DATABASE_URL: '',
  REDIS_URL: '',
  OMNIBOOK_ADMIN_KEY: '',
  OMNIBOOK_CONFIG: '',
  OMNIBOOK_DATA_DIR: '',
  OMNIBOOK_MASTER_KEY: '',
  OMNIBOOK_MASTER_KEY_PREVIOUS: '',
  LOG_LEVEL: 'warn',
};

const dataDir = mkdtempSync(join(tmpdir(), 'omnibook-rotate-'));
const cleanup: Array<() => Promise<void>> = [];
after(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
});

const OLD = randomBytes(32).toString('hex');
const NEW = randomBytes(32).toString('base64');

/** A server on the shared data dir with the given keys, over simulators of its own (its stop closes them). */
async function serverWith(
  masterKey: string,
  previousMasterKeys: string[] = [],
): Promise<{ server: TestServer; polymarket: RunningSimVenue; kalshi: RunningSimVenue }> {
  const config = loadConfig({ env: {}, overrides: { mode: 'sandbox' } });
  const polymarket = await SIM_VENUE_LAUNCHERS.polymarket!(config, { size: 2, seed: 3 });
  const kalshi = await SIM_VENUE_LAUNCHERS.kalshi!(config, { size: 2, seed: 3 });
  const server = await startTestServer({
    venues: [polymarket.adapter, kalshi.adapter],
    config: { dataDir, vault: { masterKey, previousMasterKeys } },
  });
  const stop = async () => {
    await server.stop();
    await polymarket.close();
    await kalshi.close();
  };
  cleanup.push(stop);
  return { server, polymarket, kalshi };
}

async function onboardKalshi(server: TestServer, kalshi: RunningSimVenue): Promise<string> {
  const { key, info } = await server.runtime.keys.create({ name: 'rotate', tier: 'pro' });
  const account = await kalshi.createAccount();
  const res = await server.request('/api/v1/onboard', {
    method: 'POST',
    key,
    body: { exchange: 'kalshi', mode: 'self', ...account.credentials },
  });
  assert.equal(res.status, 200, res.text);
  return info.customer_id;
}

test('rotate rewraps every record under the new key while the server runs', async () => {
  // Before the rotation: records sealed under the old key.
  const a = await serverWith(OLD);
  const { key: managedKey } = await a.server.runtime.keys.create({ name: 'managed', tier: 'pro' });
  const managed = await a.server.request('/api/v1/onboard', {
    method: 'POST',
    key: managedKey,
    body: { exchange: 'polymarket', mode: 'managed' },
  });
  assert.equal(managed.status, 200, managed.text);
  const before = await a.server.request('/api/v1/wallet/export-key', {
    method: 'POST',
    key: managedKey,
    body: { wallet_type: 'eoa' },
  });
  const managedPrivateKey = (before.body as { private_key: string }).private_key;
  const customers = [];
  for (let i = 0; i < 5; i++) customers.push(await onboardKalshi(a.server, a.kalshi));
  await cleanup.pop()?.();

  // Step 1 of the runbook: servers restart with the new key current and the old one previous.
  const b = await serverWith(NEW, [OLD]);
  const env = { ...BASE_ENV, OMNIBOOK_MASTER_KEY: NEW, OMNIBOOK_MASTER_KEY_PREVIOUS: OLD };
  const status = await runCli(['vault', 'status', '--data-dir', dataDir], env);
  assert.equal(status.code, 0, status.stderr);
  const oldId = parseMasterKey(OLD).id;
  const newId = parseMasterKey(NEW).id;
  assert.equal(status.stdout, `${oldId}\t6\tprevious\n`);

  // Step 2: rotate while the server onboards more customers (sealed under the new key) and opens old records.
  const [rotated, during] = await Promise.all([
    runCli(['vault', 'rotate', '--data-dir', dataDir], env),
    (async () => {
      const added = [];
      for (let i = 0; i < 3; i++) added.push(await onboardKalshi(b.server, b.kalshi));
      const exported = await b.server.request('/api/v1/wallet/export-key', {
        method: 'POST',
        key: managedKey,
        body: { wallet_type: 'eoa' },
      });
      assert.equal((exported.body as { private_key: string }).private_key, managedPrivateKey);
      return added;
    })(),
  ]);
  assert.equal(rotated.code, 0, rotated.stderr);
  assert.equal(
    rotated.stdout,
    `rewrapped 6 record(s) under master key ${newId}\nrewrapped 0 builder end-user API key(s)\n${newId}\t9\tcurrent\n`,
  );
  for (const text of [rotated.stdout, rotated.stderr, status.stdout, status.stderr]) {
    assert.ok(!text.includes(OLD) && !text.includes(NEW) && !text.includes(managedPrivateKey.slice(2)));
  }
  customers.push(...during);

  // Step 3: the old key can go. The new key alone opens every record, through the server and the vault.
  await cleanup.pop()?.();
  const c = await serverWith(NEW);
  const exported = await c.server.request('/api/v1/wallet/export-key', {
    method: 'POST',
    key: managedKey,
    body: { wallet_type: 'eoa' },
  });
  assert.equal(exported.status, 200, exported.text);
  assert.equal((exported.body as { private_key: string }).private_key, managedPrivateKey);
  const vault = new CredentialsStore(
    new CredentialsRepo(c.server.runtime.store.db),
    new MasterKeyring(parseMasterKey(NEW)),
  );
  for (const customerId of customers) {
    assert.equal((await vault.sessionFor(customerId, 'kalshi'))?.source, 'stored', customerId);
  }
});

test('rotate without the key being replaced names the records it cannot open and fails', async () => {
  const third = randomBytes(32).toString('hex');
  const res = await runCli(['vault', 'rotate', '--data-dir', dataDir], {
    ...BASE_ENV,
    OMNIBOOK_MASTER_KEY: third,
  });
  assert.equal(res.code, 1);
  assert.match(res.stdout, /^rewrapped 0 record\(s\)/);
  assert.match(
    res.stderr,
    /cannot open exchange_credentials of cus_\w+ on kalshi: its master key is not configured/,
  );
  assert.match(res.stderr, /9 record\(s\) are still under another key/);
  assert.ok(!res.stderr.includes(third) && !res.stdout.includes(third));

  const bad = await runCli(['vault', 'rotate', '--data-dir', dataDir], {
    ...BASE_ENV,
    OMNIBOOK_MASTER_KEY: 'too-short-secret',
  });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /OMNIBOOK_MASTER_KEY: a master key must be 32 bytes/);
  assert.ok(!bad.stderr.includes('too-short-secret'));
});
