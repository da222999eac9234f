// `omnibook sandbox` serving Predict.fun as a new user meets it: the simulator behind the adapter, a funded paper
// wallet in <data-dir>/sandbox-accounts.json whose credentials sign in as X-Exchange-Credentials and trade (a
// resting order cancelled, a crossing one filled with its fee), and capability flags that agree with the README's
// table column for predictfun.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type ServerProcess, startServerProcess } from '../../support/cli.js';
import { send } from '../../support/server.js';
import { uniqueName } from '../../support/services.js';

const dataDir = mkdtempSync(join(tmpdir(), 'omnibook-pf-sandbox-'));
const adminKey = uniqueName('sandbox_admin_key');
let server: ServerProcess;

before(async () => {
  server = await startServerProcess(['sandbox', '--port', '0', '--data-dir', dataDir], {
    OMNIBOOK_ADMIN_KEY: adminKey,
    DATABASE_URL: '',
    REDIS_URL: '',
    OMNIBOOK_CONFIG: '',
    PREDICTFUN_API_KEY: '',
    LOG_LEVEL: 'warn',
  });
});
after(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('the sandbox paper wallet for predictfun signs in through X-Exchange-Credentials', async () => {
  const accounts = JSON.parse(readFileSync(join(dataDir, 'sandbox-accounts.json'), 'utf8')) as Record<
    string,
    { credentials: Record<string, string>; address?: string }
  >;
  const account = accounts.predictfun;
  assert.ok(account, 'a predictfun paper account');
  assert.deepEqual(Object.keys(account.credentials), ['private_key']);
  assert.match(account.address ?? '', /^0x[0-9a-fA-F]{40}$/);
  const header = Buffer.from(JSON.stringify(account.credentials)).toString('base64');
  const res = await send(server.url, adminKey, '/api/v1/ping?exchange=predictfun', {
    headers: { 'x-exchange-credentials': header },
  });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body, [
    {
      exchange: 'predictfun',
      has_credentials: true,
      authenticated: true,
      message: `authenticated as ${account.address}`,
    },
  ]);
  assert.ok(!res.text.includes(account.credentials.private_key as string));
});

test("the sandbox user's predictfun paper credentials trade: a bid rests and is cancelled, a buy at the ask fills", async () => {
  const accounts = JSON.parse(readFileSync(join(dataDir, 'sandbox-accounts.json'), 'utf8')) as Record<
    string,
    { credentials: Record<string, string> }
  >;
  const headers = {
    'x-exchange-credentials': Buffer.from(JSON.stringify(accounts.predictfun?.credentials)).toString(
      'base64',
    ),
  };
  const listed = await send(
    server.url,
    adminKey,
    '/api/v1/markets?exchanges=predictfun&status=active&limit=50',
  );
  assert.equal(listed.status, 200, listed.text);
  const markets = (listed.body as { markets: Array<{ exchange_market_id: string; tick_size: number }> })
    .markets;
  let chosen: { id: string; ask: [number, number] } | null = null;
  for (const m of markets) {
    const book = await send(
      server.url,
      adminKey,
      `/api/v1/orderbook?exchange=predictfun&market_id=${m.exchange_market_id}&outcome=Yes`,
    );
    const ask = (book.body as { asks: [number, number][] }).asks[0];
    if (ask && ask[1] >= 5 && ask[0] * 5 >= 0.9 && m.tick_size === 0.01) {
      chosen = { id: m.exchange_market_id, ask };
      break;
    }
  }
  assert.ok(chosen, 'a predictfun market to trade');
  const order = (price: number, size: number) =>
    send(server.url, adminKey, '/api/v1/orders?exchange=predictfun', {
      method: 'POST',
      headers,
      body: { market_id: chosen?.id, outcome: 'Yes', side: 'buy', price, size },
    });
  const resting = await order(0.01, 100);
  assert.equal(resting.status, 200, resting.text);
  assert.equal((resting.body as { status: string }).status, 'open');
  const id = (resting.body as { id: string }).id;
  const cancelled = await send(server.url, adminKey, `/api/v1/orders/${id}?exchange=predictfun`, {
    method: 'DELETE',
    headers,
  });
  assert.equal((cancelled.body as { status: string }).status, 'cancelled', cancelled.text);
  const crossing = await order(chosen.ask[0], 5);
  assert.equal((crossing.body as { status: string }).status, 'filled', crossing.text);
  const fills = await send(server.url, adminKey, '/api/v1/fills?exchange=predictfun', { headers });
  const fill = (fills.body as Array<{ order_id: string; fee: number }>).find(
    (f) => f.order_id === (crossing.body as { id: string }).id,
  );
  assert.ok(fill && fill.fee > 0, fills.text);
});

test('GET /exchanges for predictfun says exactly what the README capability table says', async () => {
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
  const column = header?.indexOf('predictfun') ?? -1;
  assert.ok(column > 0, 'the README table has a predictfun column');
  const res = await send(server.url, adminKey, '/api/v1/exchanges');
  const served = (res.body as Array<{ id: string; has: Record<string, boolean> }>).find(
    (e) => e.id === 'predictfun',
  );
  assert.ok(served, 'the sandbox serves predictfun');
  assert.equal(body.length, Object.keys(served.has).length, 'every flag has a README row');
  for (const row of body) {
    const capability = row[0] as string;
    const cell = row[column];
    assert.equal(typeof served.has[capability], 'boolean', `${capability} is not a served flag`);
    assert.equal(cell !== '—', served.has[capability], `README says ${capability} = ${cell}`);
  }
});
