import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, test } from 'node:test';
import { type LimitlessSim, startLimitlessSim } from '../../../sim/limitless/index.js';

let sim: LimitlessSim;
before(async () => {
  sim = await startLimitlessSim({ seed: 3, size: 20 });
});
after(() => sim.close());

function sign(secret: string, ts: string, method: string, path: string, body: string): string {
  return createHmac('sha256', Buffer.from(secret, 'base64'))
    .update(`${ts}\n${method}\n${path}\n${body}`)
    .digest('base64');
}

test('own positions need a valid X-API-Key or HMAC signature and refuse wrong ones', async () => {
  const { credentials } = await sim.registerAccount();
  const { api_key: apiKey = '', token_id: tokenId = '', secret = '' } = credentials;
  const url = `${sim.url}/portfolio/positions`;
  assert.equal((await fetch(url)).status, 401);
  assert.equal((await fetch(url, { headers: { 'x-api-key': 'nope' } })).status, 401);
  const ok = await fetch(url, { headers: { 'x-api-key': apiKey } });
  assert.equal(ok.status, 200);
  assert.deepEqual(Object.keys((await ok.json()) as object).sort(), ['amm', 'clob', 'group']);
  const ts = new Date().toISOString();
  const hmac = (sig: string) => ({ 'lmts-api-key': tokenId, 'lmts-timestamp': ts, 'lmts-signature': sig });
  assert.equal(
    (await fetch(url, { headers: hmac(sign(secret, ts, 'GET', '/portfolio/positions', '')) })).status,
    200,
  );
  assert.equal(
    (await fetch(url, { headers: hmac(sign(secret, ts, 'POST', '/portfolio/positions', '')) })).status,
    401,
  );
  const other = (await sim.registerAccount()).credentials.secret ?? '';
  assert.equal(
    (await fetch(url, { headers: hmac(sign(other, ts, 'GET', '/portfolio/positions', '')) })).status,
    401,
  );
});
