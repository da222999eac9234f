// Who may use the admin routes (GET/POST /keys, DELETE /keys/:id, GET /ws/usage?scope=global): the whole matrix of
// tier × builder × end-user, over HTTP against the real server. Only a plain admin-tier key passes. A builder key is
// never admin (POST /keys refuses the pair; a row stored so before this rule is demoted by migration 0010), and an
// end-user never holds more than its builder's tier, so no end-user key reaches an admin route (issue 31 item 2).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TIER_NAMES, type TierName } from '../../../src/domain/tiers.js';
import { MIGRATIONS } from '../../../src/store/migrations/index.js';
import { assertError } from '../../support/error-shape.js';
import { startTestServer, type TestResponse, type TestServer } from '../../support/server.js';

let server: TestServer;

before(async () => {
  server = await startTestServer();
});
after(async () => {
  await server?.stop();
});

interface CreatedKey {
  id: string;
  key: string;
  tier: string;
  builder: boolean;
}

async function createKey(tier: TierName, builder: boolean): Promise<TestResponse> {
  return server.request('/api/v1/keys', {
    method: 'POST',
    body: { tier, builder, name: `${tier} ${builder}` },
  });
}

let externalSeq = 0;
async function endUserOf(builderKey: string): Promise<string> {
  const res = await server.request('/api/v1/builder/users', {
    method: 'POST',
    key: builderKey,
    body: { external_id: `matrix-${++externalSeq}` },
  });
  assert.ok(res.status === 201 || res.status === 200, res.text);
  return (res.body as { api_key: string }).api_key;
}

/** A key nobody else uses, for a DELETE that must (or must not) take effect. */
async function throwaway(): Promise<CreatedKey> {
  const res = await createKey('free', false);
  assert.equal(res.status, 201, res.text);
  return res.body as CreatedKey;
}

/** Every admin route, called with `key`: each answer's status. */
async function adminRoutes(key: string): Promise<Record<string, number>> {
  const victim = await throwaway();
  const routes: Record<string, () => Promise<TestResponse>> = {
    'GET /keys': () => server.request('/api/v1/keys', { key }),
    'POST /keys': () =>
      server.request('/api/v1/keys', { method: 'POST', key, body: { tier: 'admin', name: 'escalated' } }),
    'DELETE /keys/:id': () => server.request(`/api/v1/keys/${victim.id}`, { method: 'DELETE', key }),
    'GET /ws/usage?scope=global': () => server.request('/api/v1/ws/usage?scope=global', { key }),
  };
  const out: Record<string, number> = {};
  for (const [name, call] of Object.entries(routes)) {
    const res = await call();
    out[name] = res.status;
    if (res.status === 403) assertError(res, 403, 'forbidden');
  }
  // A refused DELETE left the key working.
  if (out['DELETE /keys/:id'] === 403) {
    assert.equal((await server.request('/api/v1/usage', { key: victim.key })).status, 200);
  }
  return out;
}

const ALLOWED = {
  'GET /keys': 200,
  'POST /keys': 201,
  'DELETE /keys/:id': 200,
  'GET /ws/usage?scope=global': 200,
};
const REFUSED = {
  'GET /keys': 403,
  'POST /keys': 403,
  'DELETE /keys/:id': 403,
  'GET /ws/usage?scope=global': 403,
};

async function tierOf(key: string): Promise<string> {
  const res = await server.request('/api/v1/usage', { key });
  assert.equal(res.status, 200, res.text);
  return (res.body as { tier: string }).tier;
}

describe('admin routes: tier × builder × end-user', () => {
  for (const tier of TIER_NAMES) {
    test(`a ${tier} key: ${tier === 'admin' ? 'allowed' : 'refused'}`, async () => {
      const res = await createKey(tier, false);
      assert.equal(res.status, 201, res.text);
      const { key } = res.body as CreatedKey;
      assert.deepEqual(await adminRoutes(key), tier === 'admin' ? ALLOWED : REFUSED);
    });

    if (tier === 'admin') {
      test('an admin builder key cannot be created (POST /keys and the CLI share the rule)', async () => {
        const res = await createKey('admin', true);
        const body = assertError(res, 400, 'validation_error');
        assert.match(String(body.error), /builder/);
        await assert.rejects(
          server.runtime.keys.create({ name: 'cli', tier: 'admin', builder: true }),
          /builder/,
        );
      });
      continue;
    }

    test(`a ${tier} builder key and its end-user: refused, the end-user at the builder's tier`, async () => {
      const res = await createKey(tier, true);
      assert.equal(res.status, 201, res.text);
      const { key } = res.body as CreatedKey;
      assert.deepEqual(await adminRoutes(key), REFUSED);
      const endUser = await endUserOf(key);
      assert.equal(await tierOf(endUser), tier);
      assert.deepEqual(await adminRoutes(endUser), REFUSED);
    });
  }

  test('an admin builder key stored before the rule: demoted to scale, and so is its end-user', async () => {
    // Rows as an older server wrote them: an admin-tier builder key, and an end-user key that inherited admin.
    const { db } = server.runtime.store;
    const builder = await server.runtime.keys.create({
      name: 'legacy builder',
      tier: 'scale',
      builder: true,
    });
    const endUser = await endUserOf(builder.key);
    await db.updateTable('api_keys').set({ tier: 'admin' }).where('id', '=', builder.info.id).execute();
    const endUserRow = await db
      .selectFrom('builder_users')
      .select('customer_id')
      .where('builder_id', '=', builder.info.customer_id)
      .executeTakeFirstOrThrow();
    await db
      .updateTable('api_keys')
      .set({ tier: 'admin' })
      .where('customer_id', '=', endUserRow.customer_id)
      .execute();
    await MIGRATIONS['0010-no-inherited-admin']?.up(db as never);
    server.runtime.keys.forget();
    for (const key of [builder.key, endUser]) {
      assert.equal(await tierOf(key), 'scale');
      assert.deepEqual(await adminRoutes(key), REFUSED);
    }
    // The operator's own admin key is untouched.
    assert.equal(await tierOf(server.adminKey), 'admin');
  });
});
