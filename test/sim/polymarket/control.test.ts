// The /__sim control surface as the Polymarket simulator serves it: on every listener, faults rendered in each
// service's style (Cloudflare 429 with Retry-After, CLOB and Gamma error bodies), accounts and funding over HTTP,
// and close() releasing every port.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type PolymarketSim, startPolymarketSim } from '../../../sim/polymarket/index.js';
import { activeMarkets, balance, book, control, getJson, type Trader } from './support.js';

let sim: PolymarketSim;

before(async () => {
  sim = await startPolymarketSim({ seed: 41, size: 40 });
});
after(() => sim.close());

test('every listener serves /__sim/*', async () => {
  const http = (ws: string) => ws.replace('ws://', 'http://').replace(/\/ws\/market$/, '');
  const manifests = await Promise.all(
    [sim.urls.gamma, sim.urls.clob, sim.urls.data, http(sim.urls.wsMarket)].map(
      async (base) => (await getJson(`${base}/__sim/manifest`)).json,
    ),
  );
  for (const m of manifests) assert.deepEqual(m, manifests[0]);
  assert.ok(Object.keys(manifests[0] as object).length > 0);
});

test('a rate limit is a Cloudflare-style 429 with Retry-After, on every service, then clears', async () => {
  await control(sim, 'POST', '/__sim/faults', { rate_limit: { retry_after: 3, count: 3 } });
  for (const url of [
    `${sim.urls.clob}/time`,
    `${sim.urls.gamma}/markets?limit=1`,
    `${sim.urls.data}/value?user=0x${'1'.repeat(40)}`,
  ]) {
    const res = await fetch(url);
    assert.equal(res.status, 429);
    assert.equal(res.headers.get('retry-after'), '3');
    assert.equal(res.headers.get('server'), 'cloudflare');
    assert.equal(await res.text(), 'error code: 1015');
  }
  assert.equal((await fetch(`${sim.urls.clob}/time`)).status, 200);
});

test('injected errors speak each service’s error style', async () => {
  await control(sim, 'POST', '/__sim/faults', { error_rate: 1, error_status: 500 });
  assert.deepEqual(await getJson(`${sim.urls.clob}/time`), {
    status: 500,
    json: { error: 'Internal server error' },
  });
  assert.deepEqual(await getJson(`${sim.urls.gamma}/markets`), {
    status: 500,
    json: { type: 'internal error', error: 'cannot get the information' },
  });
  await control(sim, 'POST', '/__sim/faults', { error_rate: 1, error_status: 503 });
  assert.deepEqual(await getJson(`${sim.urls.clob}/book?token_id=1`), {
    status: 503,
    json: { error: 'Trading is currently disabled. Check polymarket.com for updates' },
  });
  await control(sim, 'DELETE', '/__sim/faults');
  assert.equal((await fetch(`${sim.urls.clob}/ok`)).status, 200);
});

test('accounts and funding over /__sim', async () => {
  const created = await control(sim, 'POST', '/__sim/accounts', { collateral: '5000000' });
  assert.equal(created.status, 201);
  const creds = created.json.credentials as Record<string, string>;
  assert.deepEqual(Object.keys(creds).sort(), [
    'clob_api_key',
    'clob_api_passphrase',
    'clob_api_secret',
    'private_key',
  ]);
  const address = String(created.json.address);
  assert.match(address, /^0x[0-9a-fA-F]{40}$/);
  const t: Trader = {
    account: { credentials: creds as never, address, kind: 'legacy', wallets: {} },
    address,
    key: creds.clob_api_key as string,
    secret: creds.clob_api_secret as string,
    passphrase: creds.clob_api_passphrase as string,
    privateKey: creds.private_key as `0x${string}`,
  };
  assert.equal(await balance(sim, t), 5_000_000);
  assert.equal(
    (await control(sim, 'POST', '/__sim/fund', { address: address.toLowerCase(), amount: '2500000' })).status,
    200,
  );
  assert.equal(await balance(sim, t), 7_500_000);
  const fresh = await sim.createAccount();
  assert.notEqual(fresh.address, address);
  assert.equal(fresh.credentials.clob_api_key.length, 36);
});

test('close() releases every port', async () => {
  const other = await startPolymarketSim({ seed: 43, size: 10 });
  await other.close();
  for (const url of [other.urls.clob, other.urls.gamma, other.urls.data]) {
    await assert.rejects(fetch(`${url}/ok`));
  }
});

test('POST /__sim/markets lists one more market: Gamma, the CLOB and the manifest show it, with a book', async () => {
  const before = await activeMarkets(sim);
  const walkedBefore = await gammaWalk();
  const manifestBefore = (await getJson(`${sim.urls.gamma}/__sim/manifest`)).json as Record<string, string[]>;
  const listed = await control(sim, 'POST', '/__sim/markets');
  assert.equal(listed.status, 201);
  const conditionId = listed.json.condition_id as string;
  assert.equal(
    before.some((m) => m.conditionId === conditionId),
    false,
  );
  const after = await activeMarkets(sim);
  assert.equal(after.length, before.length + 1);
  const added = after.find((m) => m.conditionId === conditionId);
  assert.ok(added, 'the CLOB lists it');
  const gamma = (await getJson(`${sim.urls.gamma}/markets/slug/${listed.json.slug as string}`)).json as {
    conditionId: string;
    question: string;
  };
  assert.equal(gamma.conditionId, conditionId);
  assert.equal(gamma.question, listed.json.question);
  // Gamma's keyset walk (what a catalogue sync reads) has it too, although its lists were cached before.
  const walked = await gammaWalk();
  assert.ok(walked.includes(conditionId));
  assert.equal(walked.length, walkedBefore.length + 1);
  const manifest = (await getJson(`${sim.urls.gamma}/__sim/manifest`)).json as Record<string, string[]>;
  assert.equal(Object.keys(manifest).length, Object.keys(manifestBefore).length + 1);
  assert.ok((await book(sim, added.yes)).asks.length > 0, 'the house quotes its book');
});

async function gammaWalk(): Promise<string[]> {
  const walked: string[] = [];
  let cursor = '';
  for (let i = 0; i < 10; i++) {
    const page = (
      await getJson(`${sim.urls.gamma}/markets/keyset?limit=100${cursor ? `&after_cursor=${cursor}` : ''}`)
    ).json as { markets: Array<{ conditionId: string }>; next_cursor?: string };
    walked.push(...page.markets.map((m) => m.conditionId));
    if (!page.next_cursor) break;
    cursor = page.next_cursor;
  }
  return walked;
}
