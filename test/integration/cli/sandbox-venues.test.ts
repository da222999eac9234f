// `omnibook sandbox` as a new user meets it: every registered venue served from its simulator, one funded paper
// account per venue in <data-dir>/sandbox-accounts.json whose credentials work as X-Exchange-Credentials, and a
// capability matrix that agrees with the README's table.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { SIM_VENUE_LAUNCHERS } from '../../../src/cli/sandbox-venues.js';
import { EXCHANGE_IDS } from '../../../src/domain/exchanges.js';
import { type ServerProcess, startServerProcess } from '../../support/cli.js';
import { send } from '../../support/server.js';
import { uniqueName } from '../../support/services.js';

const dataDir = mkdtempSync(join(tmpdir(), 'omnibook-sandbox-'));
const adminKey = uniqueName('sandbox_admin_key');
let server: ServerProcess;

before(async () => {
  server = await startServerProcess(['sandbox', '--port', '0', '--data-dir', dataDir], {
    OMNIBOOK_ADMIN_KEY: adminKey,
    DATABASE_URL: '',
    REDIS_URL: '',
    OMNIBOOK_CONFIG: '',
    LOG_LEVEL: 'warn',
  });
});
after(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const registered = EXCHANGE_IDS.filter((id) => id in SIM_VENUE_LAUNCHERS);

interface Accounts {
  [exchange: string]: { credentials: Record<string, string>; address?: string };
}

test('every registered venue is served, in the spec order, with all its capability flags', async () => {
  assert.ok(registered.includes('polymarket'), 'the sandbox must serve polymarket');
  const res = await send(server.url, adminKey, '/api/v1/exchanges');
  assert.equal(res.status, 200, res.text);
  const list = res.body as Array<{ id: string; has: Record<string, boolean> }>;
  assert.deepEqual(
    list.map((e) => e.id),
    registered,
  );
});

test('sandbox-accounts.json holds a paper account per venue (and a Polymarket deposit-wallet one) whose credentials authenticate', async () => {
  const file = join(dataDir, 'sandbox-accounts.json');
  assert.equal(statSync(file).mode & 0o077, 0, 'paper credentials are readable by the owner only');
  const accounts = JSON.parse(readFileSync(file, 'utf8')) as Accounts;
  const named = [...registered, 'polymarket_deposit_wallet'];
  assert.deepEqual(Object.keys(accounts).sort(), named.sort());
  assert.equal(accounts.polymarket_deposit_wallet?.credentials.signature_type, '3');
  assert.match(accounts.polymarket_deposit_wallet?.credentials.funder_address ?? '', /^0x[0-9a-fA-F]{40}$/);
  for (const name of named) {
    const id = name === 'polymarket_deposit_wallet' ? 'polymarket' : name;
    const account = accounts[name];
    assert.ok(account, id);
    const header = Buffer.from(JSON.stringify(account.credentials)).toString('base64');
    const res = await send(server.url, adminKey, `/api/v1/ping?exchange=${id}`, {
      headers: { 'x-exchange-credentials': header },
    });
    assert.equal(res.status, 200, res.text);
    const [result] = res.body as Array<{
      exchange: string;
      has_credentials: boolean;
      authenticated: boolean;
      message: string;
    }>;
    assert.equal(result?.exchange, id);
    assert.equal(result?.has_credentials, true);
    assert.equal(result?.authenticated, true, `${id}: ${result?.message}`);
    for (const value of Object.values(account.credentials).filter((v) => v.length >= 16)) {
      assert.ok(!res.text.includes(value), `${id}: a credential was echoed in the ping answer`);
    }
  }
  assert.match(accounts.polymarket?.address ?? '', /^0x[0-9a-fA-F]{40}$/);
});

test('the README capability table says exactly what GET /exchanges answers', async () => {
  const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  const table = readme.slice(
    readme.indexOf('<!-- capability-table:start -->'),
    readme.indexOf('<!-- capability-table:end -->'),
  );
  const rows = table
    .split('\n')
    .filter((l) => l.startsWith('|'))
    .map((l) =>
      l
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  const [header, , ...body] = rows;
  assert.ok(header && header[0] === 'capability', 'capability table header');
  const columns = header.slice(1);
  assert.deepEqual(columns, registered, 'the README table has one column per served exchange');
  const res = await send(server.url, adminKey, '/api/v1/exchanges');
  const served = new Map(
    (res.body as Array<{ id: string; has: Record<string, boolean> }>).map((e) => [e.id, e.has]),
  );
  for (const row of body) {
    const [capability, ...cells] = row;
    cells.forEach((cell, i) => {
      const exchange = columns[i] as string;
      const flag = served.get(exchange)?.[capability as string];
      assert.equal(typeof flag, 'boolean', `${exchange}.${capability} is not a served flag`);
      assert.equal(
        cell !== '—',
        flag,
        `README says ${exchange}.${capability} = ${cell}; the server says ${flag}`,
      );
    });
  }
  assert.equal(
    body.length,
    Object.keys(served.get('polymarket') ?? {}).length,
    'every flag has a README row',
  );
});

test('the sandbox deploys our FeeEscrow on its chain: builder orders can carry fee_auth', async () => {
  const created = await send(server.url, adminKey, '/api/v1/keys', {
    method: 'POST',
    body: { name: 'sandbox builder', tier: 'pro', builder: true },
  });
  assert.equal(created.status, 201, created.text);
  const builderKey = (created.body as { key: string }).key;
  const res = await send(server.url, builderKey, '/api/v1/builder/escrow/config');
  assert.equal(res.status, 200, res.text);
  const config = res.body as Record<string, unknown>;
  assert.equal(config.fee_escrow_enabled, true);
  assert.equal(config.chain_id, 137);
  assert.match(String(config.escrow_contract_address), /^0x[0-9a-fA-F]{40}$/);
  assert.match(String(config.treasury_address), /^0x[0-9a-fA-F]{40}$/);
  assert.deepEqual(config.eip712_domain, {
    name: 'Omnibook FeeEscrow',
    version: '1',
    chainId: 137,
    verifyingContract: config.escrow_contract_address,
  });
});
