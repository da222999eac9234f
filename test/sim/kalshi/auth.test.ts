// Authentication as the exchange checks it, with the refusal bodies recorded on the demo exchange: a good RSA-PSS
// signature over timestamp + METHOD + /trade-api/v2 path passes; a wrong key, an unknown key id, a missing
// header, a stale timestamp, a signed query string or a path without the /trade-api/v2 prefix are 401.
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { type KalshiSim, startKalshiSim } from '../../../sim/kalshi/index.js';
import { type Account, account, call, signHeaders } from './client.js';

let sim: KalshiSim;
let acct: Account;
before(async () => {
  sim = await startKalshiSim({ seed: 3, size: 20 });
  acct = await account(sim);
});
after(() => sim.close());

const balance = '/trade-api/v2/portfolio/balance';
const get = (headers: Record<string, string>, path = '/portfolio/balance') =>
  call(sim, 'GET', path, { headers });

test('a correctly signed request is answered; public market data needs no signature', async () => {
  const ok = await get(signHeaders(acct, 'GET', balance));
  assert.equal(ok.status, 200);
  const body = ok.body as { balance: number; balance_dollars: string; portfolio_value: number };
  assert.equal(body.balance, 1_000_000, 'a new paper account holds $10,000, reported in cents');
  assert.equal(body.balance_dollars, '10000.0000');
  assert.equal((await call(sim, 'GET', '/markets?limit=1')).status, 200);
  assert.equal((await call(sim, 'GET', '/exchange/status')).status, 200);
});

test('refusals carry the recorded codes: wrong key, unknown key id, missing signature, stale timestamp', async () => {
  const other = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  }).privateKey;
  const cases: Array<[string, Record<string, string>, unknown]> = [
    [
      'signed with another key',
      signHeaders({ ...acct, private_key: other }, 'GET', balance),
      {
        error: {
          code: 'authentication_error',
          message: 'authentication_error',
          details: 'INCORRECT_API_KEY_SIGNATURE',
        },
      },
    ],
    [
      'unknown key id',
      signHeaders({ ...acct, api_key_id: randomUUID() }, 'GET', balance),
      { error: { code: 'authentication_error', message: 'authentication_error', details: 'NOT_FOUND' } },
    ],
    [
      'no signature',
      { ...signHeaders(acct, 'GET', balance), 'KALSHI-ACCESS-SIGNATURE': '' },
      { error: { code: 'signature_is_missing_from_headers', message: 'signature is missing from headers' } },
    ],
    [
      '30 s old',
      signHeaders(acct, 'GET', balance, Date.now() - 30_000),
      { error: { code: 'header_timestamp_expired', message: 'header timestamp expired' } },
    ],
    [
      '5 min ahead',
      signHeaders(acct, 'GET', balance, Date.now() + 300_000),
      { error: { code: 'header_timestamp_expired', message: 'header timestamp expired' } },
    ],
  ];
  for (const [what, headers, body] of cases) {
    const res = await get(headers);
    assert.equal(res.status, 401, what);
    assert.deepEqual(res.body, body, what);
  }
  // Recorded: ±5 s of skew still passes.
  assert.equal((await get(signHeaders(acct, 'GET', balance, Date.now() - 5_000))).status, 200);
  assert.equal((await get(signHeaders(acct, 'GET', balance, Date.now() + 5_000))).status, 200);
});

test('the signed path starts at /trade-api and excludes the query string; the method is signed', async () => {
  const path = '/trade-api/v2/portfolio/orders';
  assert.equal((await get(signHeaders(acct, 'GET', path), '/portfolio/orders?status=resting')).status, 200);
  assert.equal(
    (await get(signHeaders(acct, 'GET', `${path}?status=resting`), '/portfolio/orders?status=resting'))
      .status,
    401,
  );
  assert.equal((await get(signHeaders(acct, 'GET', '/portfolio/orders'), '/portfolio/orders')).status, 401);
  assert.equal((await get(signHeaders(acct, 'POST', path), '/portfolio/orders')).status, 401);
});

test('the WebSocket handshake is signed over GET /trade-api/ws/v2; unsigned or mis-signed upgrades are 401', async () => {
  const open = (headers: Record<string, string>) =>
    new Promise<number>((resolve) => {
      const ws = new WebSocket(sim.wsUrl, { headers });
      ws.once('open', () => {
        ws.terminate();
        resolve(101);
      });
      ws.once('unexpected-response', (_req, res) => {
        resolve(res.statusCode ?? 0);
        ws.terminate();
      });
      ws.once('error', () => undefined);
    });
  assert.equal(await open(signHeaders(acct, 'GET', '/trade-api/ws/v2')), 101);
  assert.equal(await open({}), 401);
  assert.equal(await open(signHeaders(acct, 'GET', '/trade-api/v2/ws')), 401);
});

test('a test-only clock skew makes every client look stale (for the adapter’s stale-timestamp case)', async () => {
  await fetch(`${sim.control}/__sim/kalshi/auth-skew`, {
    method: 'POST',
    body: JSON.stringify({ skew_ms: 120_000 }),
  });
  try {
    const res = await get(signHeaders(acct, 'GET', balance));
    assert.equal(res.status, 401);
    assert.deepEqual(res.body, {
      error: { code: 'header_timestamp_expired', message: 'header timestamp expired' },
    });
  } finally {
    await fetch(`${sim.control}/__sim/kalshi/auth-skew`, {
      method: 'POST',
      body: JSON.stringify({ skew_ms: 0 }),
    });
  }
  assert.equal((await get(signHeaders(acct, 'GET', balance))).status, 200);
});
