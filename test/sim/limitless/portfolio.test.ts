// The Limitless simulator's authentication (scoped HMAC tokens with the 30 s timestamp window, legacy X-API-Key)
// and portfolios: own positions and PnL chart, and the public positions / traded volume / PnL chart by address.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type LimitlessSim, startLimitlessSim } from '../../../sim/limitless/index.js';
import type { SimAccount } from '../../../sim/shared/control.js';
import { loadFixture } from '../../support/fixtures.js';
import { control, getJson, signed } from './helpers.js';

let sim: LimitlessSim;
let holder: SimAccount;
before(async () => {
  sim = await startLimitlessSim({ seed: 3, size: 80 });
  holder = await sim.createAccount({ holdings: 3 });
});
after(() => sim.close());

const get = (path: string, headers: Record<string, string> = {}) => getJson(sim, path, headers);

test('own positions need a valid token signature or X-API-Key; anything else is a NestJS 401', async () => {
  const fresh = await sim.createAccount();
  const path = '/portfolio/positions';
  assert.deepEqual((await get(path)).body, { message: 'Unauthorized', statusCode: 401 });
  assert.equal((await get(path, signed(fresh.credentials, 'GET', path))).status, 200);
  assert.equal((await get(path, signed(fresh.credentials, 'POST', path))).status, 401, 'method is signed');
  assert.equal((await get(path, signed(fresh.credentials, 'GET', '/portfolio/pnl-chart'))).status, 401);
  const stranger = {
    token_id: fresh.credentials.token_id ?? '',
    secret: Buffer.from('nope').toString('base64'),
  };
  assert.equal((await get(path, signed(stranger, 'GET', path))).status, 401, 'wrong secret');
  const unknown = {
    token_id: '00000000-0000-4000-8000-000000000000',
    secret: fresh.credentials.secret ?? '',
  };
  assert.equal((await get(path, signed(unknown, 'GET', path))).status, 401, 'unknown token');
  const legacy = await sim.createAccount({ scheme: 'api_key' });
  // The wallet key comes with either scheme: it signs orders, the token or key authenticates requests.
  assert.deepEqual(Object.keys(legacy.credentials), ['api_key', 'private_key']);
  assert.equal((await get(path, { 'x-api-key': legacy.credentials.api_key ?? '' })).status, 200);
  assert.equal((await get(path, { 'x-api-key': 'lmts_nope' })).status, 401);
});

test('the signature covers the query string; timestamps outside 30 s of wall time are refused', async () => {
  const path = '/portfolio/pnl-chart?timeframe=30d';
  assert.equal((await get(path, signed(holder.credentials, 'GET', path))).status, 200);
  const other = signed(holder.credentials, 'GET', '/portfolio/pnl-chart?timeframe=7d');
  assert.equal((await get(path, other)).status, 401, 'a signature for another query');
  const now = Date.now();
  assert.equal(
    (await get(path, signed(holder.credentials, 'GET', path, new Date(now - 25_000)))).status,
    200,
  );
  assert.equal(
    (await get(path, signed(holder.credentials, 'GET', path, new Date(now - 40_000)))).status,
    401,
  );
  assert.equal(
    (await get(path, signed(holder.credentials, 'GET', path, new Date(now + 40_000)))).status,
    401,
  );
  const bad = { ...signed(holder.credentials, 'GET', path), 'lmts-timestamp': 'yesterday' };
  assert.equal((await get(path, bad)).status, 401);
});

test('own positions of a fresh account are empty; a holder has CLOB positions shaped like the web app mock', async () => {
  const mock = loadFixture('limitless', 'http_get_portfolio_positions_webapp_mock.json') as {
    clob: Array<Record<string, Record<string, unknown>>>;
  } & Record<string, unknown>;
  const fresh = await sim.createAccount();
  const empty = (await get('/portfolio/positions', signed(fresh.credentials, 'GET', '/portfolio/positions')))
    .body as Record<string, unknown[]>;
  assert.deepEqual([empty.amm, empty.clob, empty.group], [[], [], []]);
  const doc = (await get('/portfolio/positions', signed(holder.credentials, 'GET', '/portfolio/positions')))
    .body as Record<string, unknown> & { clob: Array<Record<string, Record<string, unknown>>> };
  for (const key of Object.keys(mock)) assert.ok(key in doc, `missing ${key}`);
  assert.equal(doc.clob.length, 3);
  const mine = doc.clob[0] as Record<string, Record<string, unknown>>;
  const theirs = mock.clob[0] as Record<string, Record<string, unknown>>;
  for (const key of Object.keys(theirs)) assert.ok(key in mine, `position missing ${key}`);
  for (const part of ['market', 'latestTrade', 'positions', 'tokensBalance'] as const) {
    for (const key of Object.keys(theirs[part] ?? {})) {
      assert.ok(key in (mine[part] ?? {}), `${part}.${key}`);
      const a = theirs[part]?.[key];
      const b = mine[part]?.[key];
      if (a !== null && b !== null && !(typeof a === 'object' && typeof b === 'object')) {
        assert.equal(typeof b, typeof a, `${part}.${key} type`);
      }
    }
  }
  const balance = mine.tokensBalance as { yes: string; no: string };
  assert.ok(Number(balance.yes) > 0 || Number(balance.no) > 0);
  assert.ok(/^\d+$/.test(balance.yes) && /^\d+$/.test(balance.no), '6-decimal integer strings');
});

test('the PnL chart: currentValue is the realised PnL in USD; timeframes are validated', async () => {
  const path = '/portfolio/pnl-chart';
  const chart = (await get(path, signed(holder.credentials, 'GET', path))).body as {
    timeframe: string;
    data: Array<{ timestamp: number; value: number }>;
    currentValue: number;
    previousValue: number;
    percentChange: number;
    current: { realised: number; unrealized: number; total: number };
  };
  assert.equal(chart.timeframe, '7d');
  assert.equal(typeof chart.currentValue, 'number');
  assert.equal(chart.data.at(-1)?.value, chart.currentValue);
  assert.equal(chart.current.realised, chart.currentValue);
  assert.ok(Math.abs(chart.current.total - chart.current.realised - chart.current.unrealized) < 0.011);
  for (const timeframe of ['2y', '__proto__', 'constructor', 'toString']) {
    const bad = `/portfolio/pnl-chart?timeframe=${timeframe}`;
    assert.equal((await get(bad, signed(holder.credentials, 'GET', bad))).status, 400, timeframe);
  }
});

test('public portfolio by address: positions, traded volume and PnL chart without credentials', async () => {
  const address = holder.address ?? '';
  const positions = (await get(`/portfolio/${address}/positions`)).body as { clob: unknown[] };
  assert.equal(positions.clob.length, 3);
  const lower = (await get(`/portfolio/${address.toLowerCase()}/positions`)).body;
  assert.deepEqual(lower, positions, 'addresses match case-insensitively');
  const volume = (await get(`/portfolio/${address}/traded-volume`)).body as { totalVolume: number };
  assert.ok(volume.totalVolume > 0);
  const chart = (await get(`/portfolio/${address}/pnl-chart?timeframe=1d`)).body as { data: unknown[] };
  assert.equal(chart.data.length, 2);
  const nobody = `0x${'ab'.repeat(20)}`;
  assert.deepEqual(((await get(`/portfolio/${nobody}/positions`)).body as { clob: unknown[] }).clob, []);
  assert.deepEqual((await get(`/portfolio/${nobody}/traded-volume`)).body, { totalVolume: 0 });
  const invalid = await get('/portfolio/not-an-address/positions');
  assert.deepEqual(invalid.body, { message: ['Invalid address'], error: 'Bad Request', statusCode: 400 });
});

test('paper accounts: created through /__sim/accounts with HMAC credentials, funded through /__sim/fund', async () => {
  const created = (await control(sim, 'POST', 'accounts', { holdings: 1 })) as SimAccount;
  assert.deepEqual(Object.keys(created.credentials).sort(), ['private_key', 'secret', 'token_id']);
  assert.match(created.address ?? '', /^0x[0-9a-fA-F]{40}$/);
  assert.deepEqual(await control(sim, 'POST', 'fund', { address: created.address, amount: '5000000' }), {
    ok: true,
  });
  const positions = (await get(`/portfolio/${created.address}/positions`)).body as { clob: unknown[] };
  assert.equal(positions.clob.length, 1);
});
