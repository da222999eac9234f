// Secrets stay secret: onboarded credentials, a managed wallet's key and per-request credentials appear nowhere in
// the database (the SQLite file and its WAL byte for byte; every PostgreSQL row of every table), in the logs (trace
// level, access log on) or in any error body — only sealed text is stored.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { type RunningSimVenue, SIM_VENUE_LAUNCHERS } from '../../../src/cli/sandbox-venues.js';
import { loadConfig } from '../../../src/config/load.js';
import { startTestServer, type TestServer } from '../../support/server.js';
import { createPgSchema, TEST_DATABASE_URL } from '../../support/services.js';

// Each server gets its own simulators: a server's stop closes the adapters it was given.
let polymarket: RunningSimVenue;
let kalshi: RunningSimVenue;

async function launchSims(): Promise<void> {
  const config = loadConfig({ env: {}, overrides: { mode: 'sandbox' } });
  polymarket = await SIM_VENUE_LAUNCHERS.polymarket!(config, { size: 3, seed: 11 });
  kalshi = await SIM_VENUE_LAUNCHERS.kalshi!(config, { size: 3, seed: 11 });
}

async function closeSims(): Promise<void> {
  await polymarket?.close();
  await kalshi?.close();
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');

/** The distinctive parts of a secret as they could appear anywhere: the whole value, and each PEM body line. */
function needles(value: string): string[] {
  const out = [value.replace(/^0x/, '')];
  for (const line of value.split('\n')) if (line.length >= 40 && !line.startsWith('-----')) out.push(line);
  return out;
}

interface Exercise {
  secrets: Map<string, string>;
  errorBodies: string[];
}

/** Drives every path that handles a secret, remembering each secret and every error body. */
async function exercise(server: TestServer): Promise<Exercise> {
  const secrets = new Map<string, string>();
  const errorBodies: string[] = [];
  const remember = (what: string, value: string | undefined) => {
    assert.ok(value);
    secrets.set(what, value);
  };
  const { key } = await server.runtime.keys.create({ name: 'secrets', tier: 'pro' });
  const call = async (path: string, init: Parameters<TestServer['request']>[1]) => {
    const res = await server.request(path, { key, ...init });
    if (res.status >= 400) errorBodies.push(res.text);
    return res;
  };
  const onboard = (body: unknown) => call('/api/v1/onboard', { method: 'POST', body });

  const k = await kalshi.createAccount();
  remember('kalshi onboarded private_key', k.credentials.private_key);
  assert.equal((await onboard({ exchange: 'kalshi', mode: 'self', ...k.credentials })).status, 200);

  const p = await polymarket.createAccount();
  remember('polymarket onboarded private_key', p.credentials.private_key);
  remember('polymarket onboarded clob_api_secret', p.credentials.clob_api_secret);
  remember('polymarket onboarded clob_api_passphrase', p.credentials.clob_api_passphrase);
  const other = await server.runtime.keys.create({ name: 'secrets 2', tier: 'pro' });
  const self = await server.request('/api/v1/onboard', {
    method: 'POST',
    key: other.key,
    body: { exchange: 'polymarket', mode: 'self', ...p.credentials },
  });
  assert.equal(self.status, 200, self.text);

  const managed = await onboard({ exchange: 'polymarket', mode: 'managed' });
  assert.equal(managed.status, 200, managed.text);
  const exported = await call('/api/v1/wallet/export-key', { method: 'POST', body: { wallet_type: 'eoa' } });
  remember('managed wallet key', (exported.body as { private_key: string }).private_key);

  // Refused onboardings: rejected by the exchange (the stored record stays as it was), and malformed.
  const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString();
  remember('rejected kalshi private_key', stranger);
  const rejected = await onboard({
    exchange: 'kalshi',
    mode: 'self',
    api_key_id: k.credentials.api_key_id,
    private_key: stranger,
  });
  assert.equal(rejected.status, 403, rejected.text);
  const badClob = `${p.credentials.clob_api_passphrase}x`;
  remember('rejected clob passphrase', badClob);
  const refused = await call('/api/v1/onboard', {
    method: 'POST',
    key: (await server.runtime.keys.create({ name: 'secrets 3', tier: 'pro' })).key,
    body: { exchange: 'polymarket', mode: 'self', ...p.credentials, clob_api_passphrase: badClob },
  });
  assert.equal(refused.status, 403, refused.text);
  const malformed = `0x${'ab'.repeat(31)}zz`;
  remember('malformed private key', malformed);
  assert.equal(
    (await onboard({ exchange: 'polymarket', mode: 'self', private_key: malformed, chain_id: 5 })).status,
    400,
  );

  // Per-request credentials, header and wrong-exchange header: used for one call and dropped.
  const perRequest = await polymarket.createAccount();
  remember('per-request polymarket private_key', perRequest.credentials.private_key);
  remember('per-request clob_api_secret', perRequest.credentials.clob_api_secret);
  const header = b64(perRequest.credentials);
  remember('per-request header', header);
  const ping = await call('/api/v1/ping?exchange=polymarket', {
    headers: { 'x-exchange-credentials': header },
  });
  assert.equal(ping.status, 200, ping.text);
  assert.equal((ping.body as Array<{ authenticated: boolean }>)[0]?.authenticated, true);
  const k2 = await kalshi.createAccount();
  remember('per-request kalshi private_key', k2.credentials.private_key);
  assert.equal(
    (
      await call('/api/v1/ping?exchange=polymarket', {
        headers: { 'x-exchange-credentials': b64(k2.credentials) },
      })
    ).status,
    400,
  );
  assert.equal(
    (
      await call('/api/v1/ping?exchange=kalshi', {
        headers: { 'x-exchange-credentials': b64(k2.credentials) },
      })
    ).status,
    200,
  );
  return { secrets, errorBodies };
}

function assertAbsent(where: string, haystack: string | Buffer, secrets: Map<string, string>): void {
  const text = typeof haystack === 'string' ? haystack : haystack.toString('latin1');
  for (const [what, value] of secrets) {
    for (const needle of needles(value)) {
      assert.ok(!text.includes(needle), `${what} found in ${where}`);
    }
  }
}

describe('on SQLite', () => {
  let server: TestServer;
  before(async () => {
    await launchSims();
    server = await startTestServer({
      venues: [polymarket.adapter, kalshi.adapter],
      config: { logLevel: 'trace', accessLog: true },
    });
  });
  after(async () => {
    await server?.stop();
    await closeSims();
  });

  test('no secret in the database file, its WAL, the logs or an error body', async () => {
    const { secrets, errorBodies } = await exercise(server);
    assert.ok(errorBodies.length >= 4);
    for (const body of errorBodies) assertAbsent('an error body', body, secrets);
    assertAbsent('the logs', server.logs.join('\n'), secrets);
    const files = readdirSync(server.dataDir).filter((f) => f.startsWith('omnibook.sqlite'));
    assert.ok(files.includes('omnibook.sqlite'));
    for (const file of files) assertAbsent(file, readFileSync(join(server.dataDir, file)), secrets);
    // The rows are there, sealed.
    const rows = await server.runtime.store.db.selectFrom('credentials').select(['sealed']).execute();
    assert.equal(rows.length, 3);
    for (const row of rows) assert.match(row.sealed, /^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  });
});

describe('on PostgreSQL', () => {
  let server: TestServer;
  let schema: Awaited<ReturnType<typeof createPgSchema>>;
  before(async () => {
    await launchSims();
    schema = await createPgSchema();
    server = await startTestServer({
      venues: [polymarket.adapter, kalshi.adapter],
      pgSchema: schema.schema,
      config: { logLevel: 'trace', accessLog: true, databaseUrl: TEST_DATABASE_URL },
    });
  });
  after(async () => {
    await server?.stop();
    await closeSims();
    await schema?.drop();
  });

  test('no secret in any row of any table, the logs or an error body', async () => {
    const { secrets, errorBodies } = await exercise(server);
    for (const body of errorBodies) assertAbsent('an error body', body, secrets);
    assertAbsent('the logs', server.logs.join('\n'), secrets);
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    try {
      const tables = await client.query<{ table_name: string }>(
        'select table_name from information_schema.tables where table_schema = $1',
        [schema.schema],
      );
      assert.ok(tables.rows.some((t) => t.table_name === 'credentials'));
      for (const { table_name } of tables.rows) {
        const dump = await client.query(
          `select row_to_json(t)::text as row from ${schema.schema}."${table_name}" t`,
        );
        assertAbsent(`table ${table_name}`, dump.rows.map((r) => r.row).join('\n'), secrets);
      }
    } finally {
      await client.end();
    }
  });
});
