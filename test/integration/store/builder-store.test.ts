// The builder program's repository on both dialects: idempotent creation on external_id, the pool's sum rule (also
// under concurrent creations, which the builder row's lock serialises), qps changes, the cursor's order, and
// deactivation cascading to the end-user's key in one transaction.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { ApiKeysRepo } from '../../../src/store/api-keys-repo.js';
import { BuilderRepo, type BuilderUserRow } from '../../../src/store/builder-repo.js';
import { ApiKeyService } from '../../../src/tenancy/api-keys.js';
import { EndUserKeys } from '../../../src/vault/end-user-keys.js';
import { generateMasterKey, MasterKeyring } from '../../../src/vault/master-key.js';
import { rotateEndUserKeys } from '../../../src/vault/rotation.js';
import { onBothDialects } from './dialects.js';

onBothDialects('builder store', (store) => {
  let repo: BuilderRepo;
  let keys: ApiKeyService;
  let apiKeys: ApiKeysRepo;
  let seq = 0;
  before(() => {
    repo = new BuilderRepo(store().db);
    apiKeys = new ApiKeysRepo(store().db);
    keys = new ApiKeyService(apiKeys, 0);
  });

  async function builder(pool: number): Promise<string> {
    const id = `cus_builder_${++seq}_${Math.random().toString(36).slice(2)}`;
    await repo.ensureBuilder({
      customer_id: id,
      qps_pool: pool,
      tier: 'iron',
      pool_version: 0,
      created_at: new Date().toISOString(),
    });
    return id;
  }

  function create(builderId: string, externalId: string, qps: number, seal?: (customerId: string) => string) {
    const customerId = `cus_${++seq}_${Math.random().toString(36).slice(2)}`;
    const { row } = keys.prepare({ name: externalId, tier: 'pro', qpsLimit: qps, customerId });
    const user: BuilderUserRow = {
      customer_id: customerId,
      builder_id: builderId,
      external_id: externalId,
      email: null,
      eoa_address: null,
      qps_limit: qps,
      key_id: row.id,
      sealed_key: seal ? seal(customerId) : 'sealed',
      status: 'active',
      created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(),
      deactivated_at: null,
    };
    return repo.create(user, row);
  }

  test('creation is idempotent on external_id; the pool sum rule holds', async () => {
    const b = await builder(10);
    const first = await create(b, 'alice', 4);
    assert.equal(first.kind, 'created');
    const again = await create(b, 'alice', 4);
    assert.equal(again.kind, 'existing');
    assert.equal(
      again.kind === 'existing' && again.user.customer_id,
      first.kind === 'created' && first.user.customer_id,
    );
    assert.equal((await create(b, 'bob', 6)).kind, 'created');
    const over = await create(b, 'carol', 1);
    assert.equal(over.kind, 'over_pool');
    assert.deepEqual(await repo.pool(b), { qps_pool: 10, end_user_count: 2, total_allocated_qps: 10 });
  });

  test('concurrent creations never overfill the pool', async () => {
    const b = await builder(12);
    const outcomes = await Promise.all(Array.from({ length: 8 }, (_, i) => create(b, `u${i}`, 5)));
    assert.equal(outcomes.filter((o) => o.kind === 'created').length, 2);
    assert.equal((await repo.pool(b)).total_allocated_qps, 10);
  });

  test('qps changes respect the pool; deactivation revokes the key, frees the pool and the external_id', async () => {
    const b = await builder(10);
    const made = await create(b, 'dave', 3);
    assert.equal(made.kind, 'created');
    if (made.kind !== 'created') return;
    await create(b, 'erin', 3);
    assert.equal((await repo.setQps(made.user, 8)).kind, 'over_pool');
    const updated = await repo.setQps(made.user, 7);
    assert.equal(updated.kind, 'updated');
    assert.equal(await repo.deactivate(made.user, new Date().toISOString()), true);
    assert.equal(await repo.deactivate(made.user, new Date().toISOString()), false);
    assert.notEqual((await apiKeys.findById(made.user.key_id))?.revoked_at ?? null, null);
    assert.equal((await repo.user(made.user.customer_id))?.status, 'deactivated');
    assert.equal((await repo.setQps(made.user, 1)).kind, 'inactive');
    assert.deepEqual(await repo.pool(b), { qps_pool: 10, end_user_count: 1, total_allocated_qps: 3 });
    assert.equal((await create(b, 'dave', 2)).kind, 'created', 'the external_id is free again');
  });

  test('pages follow (created_at, customer_id) with no duplicates or gaps', async () => {
    const b = await builder(100);
    for (let i = 0; i < 5; i++) await create(b, `p${i}`, 1);
    const all: string[] = [];
    let after: { created_at: string; customer_id: string } | null = null;
    for (;;) {
      const rows = await repo.page(b, after, 2);
      if (rows.length === 0) break;
      all.push(...rows.map((r) => r.external_id));
      const last = rows.at(-1)!;
      after = { created_at: last.created_at, customer_id: last.customer_id };
    }
    assert.deepEqual(all, ['p0', 'p1', 'p2', 'p3', 'p4']);
  });

  test('vault rotation rewraps end-users’ sealed API keys under the new master key, once, and a resealed one is kept', async () => {
    const oldKey = generateMasterKey();
    const newKey = generateMasterKey();
    const b = await builder(100);
    const made: Array<{ customerId: string; clear: string }> = [];
    for (let i = 0; i < 3; i++) {
      const clear = `omni_end_user_${i}_${Math.random().toString(36).slice(2)}`;
      const outcome = await create(b, `rot${i}`, 1, (customerId) =>
        new EndUserKeys(new MasterKeyring(oldKey)).seal(customerId, clear),
      );
      assert.equal(outcome.kind, 'created');
      if (outcome.kind === 'created') made.push({ customerId: outcome.user.customer_id, clear });
    }
    const both = new MasterKeyring(newKey, [oldKey]);
    const first = await rotateEndUserKeys(repo, both);
    // Other tests' end-users hold a placeholder that no key opens; they are reported, never rewritten.
    assert.ok(first.rewrapped >= 3, `rewrapped ${first.rewrapped}`);
    for (const { customerId, clear } of made) {
      const row = await repo.user(customerId);
      assert.ok(row);
      assert.equal(new EndUserKeys(new MasterKeyring(newKey)).open(customerId, row.sealed_key), clear);
      assert.throws(() => new EndUserKeys(new MasterKeyring(oldKey)).open(customerId, row.sealed_key));
    }
    assert.equal((await rotateEndUserKeys(repo, both)).rewrapped, 0);
    // A compare-and-set against a text the row no longer holds changes nothing.
    const one = made[0];
    assert.ok(one);
    const before = await repo.user(one.customerId);
    assert.equal(await repo.replaceSealedKey(one.customerId, 'not-what-is-stored', 'x'), false);
    assert.equal((await repo.user(one.customerId))?.sealed_key, before?.sealed_key);
  });
});
