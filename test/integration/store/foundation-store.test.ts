import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ApiKeysRepo } from '../../../src/store/api-keys-repo.js';
import { UsageRepo } from '../../../src/store/usage-repo.js';
import { ApiKeyService } from '../../../src/tenancy/api-keys.js';
import { onBothDialects } from './dialects.js';

onBothDialects('foundation store', (store) => {
  it('migrates idempotently and answers ping', async () => {
    assert.deepEqual(await store().migrate(), []);
    await store().ping();
  });

  it('creates, authenticates, lists and revokes keys by hash', async () => {
    const keys = new ApiKeyService(new ApiKeysRepo(store().db), 0);
    const { key, info } = await keys.create({ name: 'k', tier: 'pro', builder: true, qpsLimit: 5 });
    const auth = await keys.authenticate(key);
    assert.ok(auth.ok);
    assert.equal(auth.principal.tier, 'pro');
    assert.equal(auth.principal.isBuilder, true);
    assert.equal(auth.principal.limits.restQps, 5);
    // Its own qps_limit sets its burst in the tier's proportion (pro: 120 / 60).
    assert.equal(auth.principal.limits.restQpsBurst, 10);
    assert.deepEqual(await keys.authenticate(`${key}x`), { ok: false, reason: 'unknown' });
    assert.ok((await keys.list()).some((k) => k.id === info.id && k.qps_limit === 5 && k.builder));
    assert.equal(await keys.revoke(info.id), true);
    assert.equal(await keys.revoke(info.id), false);
    assert.deepEqual(await keys.authenticate(key), { ok: false, reason: 'revoked' });
  });

  it('a key revoked by another process is refused once its cache entry runs out, not before', async () => {
    let now = Date.UTC(2026, 4, 14, 12, 0, 0);
    const clock = () => new Date(now);
    const server = new ApiKeyService(new ApiKeysRepo(store().db), 1_000, clock);
    // The CLI revokes through its own service, so the server's cache does not hear of it.
    const cli = new ApiKeyService(new ApiKeysRepo(store().db), 0, clock);
    const { key, info } = await server.create({ name: 'k', tier: 'free' });
    assert.ok((await server.authenticate(key)).ok);
    assert.equal(await cli.revoke(info.id), true);
    now += 999;
    assert.ok((await server.authenticate(key)).ok, 'served from the cache for the rest of its TTL');
    now += 1;
    assert.deepEqual(await server.authenticate(key), { ok: false, reason: 'revoked' });
  });

  it('ensure() creates a key with exactly the given value, and restores it when revoked', async () => {
    const keys = new ApiKeyService(new ApiKeysRepo(store().db), 0);
    const value = `fixed-admin-key-${Date.now()}`;
    const first = await keys.ensure(value, { name: 'env', tier: 'admin' });
    const again = await keys.ensure(value, { name: 'env', tier: 'admin' });
    assert.equal(first.id, again.id);
    await keys.revoke(first.id);
    await keys.ensure(value, { name: 'env', tier: 'admin' });
    const auth = await keys.authenticate(value);
    assert.ok(auth.ok);
    assert.equal(auth.principal.tier, 'admin');
  });

  it('adds monthly usage deltas with upserts that several writers can interleave', async () => {
    const usage = new UsageRepo(store().db);
    assert.equal(await usage.get('key_a', '2026-11'), 0);
    await usage.add([{ keyId: 'key_a', period: '2026-11', requests: 3 }]);
    await Promise.all([
      usage.add([{ keyId: 'key_a', period: '2026-11', requests: 4 }]),
      usage.add([
        { keyId: 'key_a', period: '2026-11', requests: 5 },
        { keyId: 'key_b', period: '2026-11', requests: 1 },
      ]),
    ]);
    assert.equal(await usage.get('key_a', '2026-11'), 12);
    assert.equal(await usage.get('key_b', '2026-11'), 1);
    assert.equal(await usage.get('key_a', '2026-12'), 0);
  });
});
