import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertError } from '../../support/error-shape.js';
import { startTestServer, type TestServer } from '../../support/server.js';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.stop());

test('a missing X-API-Key is 401 unauthorized', async () => {
  const res = await server.request('/api/v1/exchanges', { key: null });
  assertError(res, 401, 'unauthorized');
  assert.match((res.body as { error: string }).error, /X-API-Key/);
});

test('an unknown key is 401 and the failure does not echo it', async () => {
  const res = await server.request('/api/v1/exchanges', { key: 'ob_not_a_real_key_0000000000000000' });
  assertError(res, 401, 'unauthorized');
  assert.ok(!res.text.includes('ob_not_a_real_key'));
});

test('a revoked key is 401 at once on the node that revoked it', async () => {
  const created = await server.request('/api/v1/keys', {
    method: 'POST',
    body: { tier: 'pro', name: 'to revoke' },
  });
  assert.equal(created.status, 201, created.text);
  const { id, key } = created.body as { id: string; key: string };
  assert.equal((await server.request('/api/v1/exchanges', { key })).status, 200);
  const revoked = await server.request(`/api/v1/keys/${id}`, { method: 'DELETE' });
  assert.equal(revoked.status, 200, revoked.text);
  const res = await server.request('/api/v1/exchanges', { key });
  assertError(res, 401, 'unauthorized');
  assert.match((res.body as { error: string }).error, /revoked/);
});

test('keys are stored as hashes only', async () => {
  const created = await server.request('/api/v1/keys', { method: 'POST', body: { tier: 'free' } });
  const { key } = created.body as { key: string };
  const rows = await server.runtime.store.db.selectFrom('api_keys').selectAll().execute();
  const dump = JSON.stringify(rows);
  assert.ok(!dump.includes(key), 'clear key found in the database');
  assert.ok(!dump.includes(server.adminKey), 'clear admin key found in the database');
  const listed = await server.request('/api/v1/keys');
  assert.ok(!listed.text.includes(key));
  assert.ok(!listed.text.includes('key_hash'));
});

test('key administration needs the admin tier (403 forbidden otherwise)', async () => {
  const created = await server.request('/api/v1/keys', { method: 'POST', body: { tier: 'scale' } });
  const { key } = created.body as { key: string };
  assertError(await server.request('/api/v1/keys', { key }), 403, 'forbidden');
  assertError(
    await server.request('/api/v1/keys', { key, method: 'POST', body: { tier: 'admin' } }),
    403,
    'forbidden',
  );
});

test('an admin key cannot revoke itself, and unknown ids are 404', async () => {
  const list = (await server.request('/api/v1/keys')).body as Array<{ id: string; name: string }>;
  const self = list.find((k) => k.name === 'OMNIBOOK_ADMIN_KEY');
  assert.ok(self);
  assertError(await server.request(`/api/v1/keys/${self.id}`, { method: 'DELETE' }), 409, 'conflict');
  assertError(await server.request('/api/v1/keys/key_nope', { method: 'DELETE' }), 404, 'not_found');
});

test('every authenticated response carries the tier and monthly quota headers', async () => {
  const created = await server.request('/api/v1/keys', { method: 'POST', body: { tier: 'free' } });
  const { key } = created.body as { key: string };
  const before = new Date();
  const res = await server.request('/api/v1/exchanges', { key });
  const after = new Date();
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('x-svc-tier'), 'free');
  assert.equal(res.headers.get('x-ratelimit-monthly-limit'), '50000');
  assert.equal(res.headers.get('x-ratelimit-monthly-remaining'), '49999');
  const reset = Number(res.headers.get('x-ratelimit-monthly-reset'));
  // The start of the next month as of when the request was answered (a month may end during the request).
  const nextMonth = (d: Date) => Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000;
  assert.ok([nextMonth(before), nextMonth(after)].includes(reset), `reset ${reset}`);
  const admin = await server.request('/api/v1/exchanges');
  assert.equal(admin.headers.get('x-svc-tier'), 'admin');
  assert.equal(admin.headers.get('x-ratelimit-monthly-limit'), '0');
});
