// The builder program across two `omnibook sandbox` processes on one PostgreSQL (a schema of this run's own: several
// nodes share a database only there) and one Redis (a key prefix of this run's own): a builder's QPS pool is one bucket for the whole cluster, and an end-user deactivated through one node
// is refused by the other at once, although that node's key cache (ten minutes here) still held the key.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Redis } from 'ioredis';
import { runCli, type ServerProcess, startServerProcess } from '../../support/cli.js';
import { assertError } from '../../support/error-shape.js';
import { send, type TestResponse, waitFor } from '../../support/server.js';
import {
  connectRedis,
  createPgSchema,
  dropRedisPrefix,
  TEST_REDIS_URL,
  uniqueName,
} from '../../support/services.js';

const PREFIX = uniqueName('obtest_builder');
const POOL = 20;

let redis: Redis;
let schema: Awaited<ReturnType<typeof createPgSchema>> | undefined;
let dataDir: string;
let env: Record<string, string>;
const nodes: ServerProcess[] = [];
let builderKey: string;

before(async () => {
  redis = await connectRedis();
  schema = await createPgSchema();
  dataDir = mkdtempSync(join(tmpdir(), 'omnibook-builder-cluster-'));
  const configFile = join(dataDir, 'config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      auth: { keyCacheTtlMs: 600_000 },
      builder: { qpsPool: POOL },
      catalogue: { sync: false },
      recorder: { enabled: false },
    }),
  );
  env = {
    DATABASE_URL: schema.url,
    OMNIBOOK_CONFIG: '',
    OMNIBOOK_DATA_DIR: '',
    PORT: '',
    HOST: '',
    LOG_LEVEL: 'warn',
    REDIS_URL: TEST_REDIS_URL,
    OMNIBOOK_REDIS_PREFIX: PREFIX,
  };
  const migrated = await runCli(['migrate', '--data-dir', dataDir], env);
  assert.equal(migrated.code, 0, migrated.stderr);
  const created = await runCli(
    ['keys', 'create', '--tier', 'pro', '--builder', '--json', '--data-dir', dataDir],
    env,
  );
  assert.equal(created.code, 0, created.stderr);
  builderKey = (JSON.parse(created.stdout) as { key: string }).key;
  const args = ['sandbox', '--port', '0', '--data-dir', dataDir, '--config', configFile];
  for (const started of await Promise.allSettled([
    startServerProcess(args, env, 60_000),
    startServerProcess(args, env, 60_000),
  ])) {
    if (started.status === 'fulfilled') nodes.push(started.value);
    else throw started.reason;
  }
});

after(async () => {
  for (const n of nodes)
    if (n.child.exitCode === null && n.child.signalCode === null) n.child.kill('SIGKILL');
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  await schema?.drop();
  if (redis) await dropRedisPrefix(redis, PREFIX);
});

const node = (i: number) => nodes[i % nodes.length] as ServerProcess;

async function createUser(externalId: string): Promise<{ customer_id: string; api_key: string }> {
  const res = await send(node(0).url, builderKey, '/api/v1/builder/users', {
    method: 'POST',
    body: { external_id: externalId, qps_limit: 3 },
  });
  assert.equal(res.status, 201, res.text);
  return res.body as { customer_id: string; api_key: string };
}

/** Redis's own clock, in seconds: the clock the shared buckets refill by. */
async function redisSeconds(): Promise<number> {
  const [s, us] = await redis.time();
  return Number(s) + Number(us) / 1e6;
}

test("one builder's pool is one bucket across the two nodes", async () => {
  // Five end-users at qps_limit 3 (each bursts 6: a pro builder's burst is twice its rate): 30 tokens between them,
  // the pool has 20 (the six end-users of this file take 18 of its 20 QPS).
  const users = [];
  for (let i = 0; i < 5; i++) users.push(await createUser(`pool-${i}`));
  const started = await redisSeconds();
  let admitted = 0;
  const refusedBy = new Set<number>();
  let refusal: TestResponse | undefined;
  // Alternating between the nodes until each has refused once (bounded): with one bucket per node they would
  // admit about twice the pool.
  for (let i = 0; i < 4 * POOL && refusedBy.size < 2; i++) {
    const user = users[i % users.length] as { customer_id: string };
    const res = await send(node(i).url, builderKey, '/api/v1/orders?exchange=nowhere', {
      headers: { 'x-builder-customer-id': user.customer_id },
    });
    if (res.status === 429) {
      refusedBy.add(i % 2);
      refusal = res;
    } else {
      assertError(res, 404, 'exchange_not_found');
      admitted++;
    }
  }
  const elapsed = (await redisSeconds()) - started;
  assert.equal(refusedBy.size, 2);
  assert.ok(refusal);
  assert.equal((refusal.body as { limit_qps: number }).limit_qps, POOL);
  assert.match((refusal.body as { error: string }).error, /pool/);
  // A token bucket shared by both nodes admits at most its burst plus what it refilled meanwhile (on Redis's clock).
  assert.ok(
    admitted <= POOL + Math.floor(POOL * elapsed) + 1,
    `${admitted} admitted in ${elapsed.toFixed(3)} s of Redis time`,
  );
});

test('an end-user deactivated through one node is refused by the other, whose key cache held it', async () => {
  const user = await createUser('deactivate-me');
  // Warm both nodes' key caches with the end-user's key.
  for (let i = 0; i < 2; i++) {
    const res = await send(node(i).url, user.api_key, '/api/v1/exchanges');
    assert.equal(res.status, 200, res.text);
  }
  const deleted = await send(node(0).url, builderKey, `/api/v1/builder/users/${user.customer_id}`, {
    method: 'DELETE',
  });
  assert.equal(deleted.status, 204, deleted.text);
  assertError(await send(node(0).url, user.api_key, '/api/v1/exchanges'), 401, 'unauthorized');
  // Node B learns it over Redis (pub/sub): bounded wait on that signal; its cache alone would hold the key 10 min.
  await waitFor(
    async () => (await send(node(1).url, user.api_key, '/api/v1/exchanges')).status === 401,
    10_000,
    'node B to refuse the deactivated key',
  );
});
