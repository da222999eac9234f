// `omnibook sandbox` with the Limitless simulator, as a user runs it: GET /exchanges lists limitless with exactly
// the flags of the README's capability table, sandbox-accounts.json holds a funded paper account whose credentials
// work through X-Exchange-Credentials, and ping reaches the simulator.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { CAPABILITIES } from '../../../src/domain/capabilities.js';
import { type ServerProcess, startServerProcess } from '../../support/cli.js';
import { send } from '../../support/server.js';
import { uniqueName } from '../../support/services.js';

const dataDir = mkdtempSync(join(tmpdir(), 'omnibook-limitless-'));
const adminKey = uniqueName('limitless_sandbox_admin_key');
let server: ServerProcess;
before(async () => {
  server = await startServerProcess(['sandbox', '--port', '0', '--data-dir', dataDir], {
    LOG_LEVEL: 'warn',
    OMNIBOOK_ADMIN_KEY: adminKey,
  });
});
after(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The README's capability row of one exchange, as flag → boolean. */
function readmeRow(exchange: string): Record<string, boolean> {
  const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  const lines = readme.split('\n');
  const header = lines.find((l) => l.startsWith('| exchange | fetch_markets'));
  const row = lines.find((l) => l.startsWith(`| ${exchange} |`));
  assert.ok(header && row, `no README capability row for ${exchange}`);
  const cells = (l: string) =>
    l
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
  const names = cells(header).slice(1);
  const values = cells(row).slice(1);
  return Object.fromEntries(names.map((n, i) => [n, values[i] === '✓']));
}

test('GET /exchanges lists limitless with exactly the README capability row', async () => {
  const res = await send(server.url, adminKey, '/api/v1/exchanges');
  assert.equal(res.status, 200, res.text);
  const limitless = (res.body as Array<{ id: string; has: Record<string, boolean> }>).find(
    (e) => e.id === 'limitless',
  );
  assert.ok(limitless, 'limitless is served by the sandbox');
  const row = readmeRow('limitless');
  assert.deepEqual(Object.keys(row).sort(), [...CAPABILITIES].sort(), 'the README table names every flag');
  assert.deepEqual(limitless.has, row);
});

test('sandbox-accounts.json holds a limitless paper account whose credentials authenticate', async () => {
  const accounts = JSON.parse(readFileSync(join(dataDir, 'sandbox-accounts.json'), 'utf8')) as Record<
    string,
    { credentials: Record<string, string>; address?: string }
  >;
  const account = accounts.limitless;
  assert.ok(account, 'limitless account listed');
  assert.deepEqual(Object.keys(account.credentials).sort(), ['secret', 'token_id']);
  assert.match(account.address ?? '', /^0x[0-9a-fA-F]{40}$/);
  const header = Buffer.from(JSON.stringify(account.credentials)).toString('base64');
  const res = await send(server.url, adminKey, '/api/v1/ping?exchange=limitless', {
    headers: { 'x-exchange-credentials': header },
  });
  assert.equal(res.status, 200, res.text);
  const [outcome] = res.body as Array<{ exchange: string; authenticated: boolean; has_credentials: boolean }>;
  assert.equal(outcome?.exchange, 'limitless');
  assert.equal(outcome?.authenticated, true, res.text);
});
