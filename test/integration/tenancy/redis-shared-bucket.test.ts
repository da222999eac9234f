// Scale-out: two API processes over one database (PostgreSQL, a schema per cluster: several nodes share a database
// only there) share each key's token bucket through Redis, so a key's burst is spent once across the cluster.
// Without REDIS_URL each process keeps its own buckets (the control case).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Redis } from 'ioredis';
import { runCli, type ServerProcess, startServerProcess } from '../../support/cli.js';
import { assertError } from '../../support/error-shape.js';
import { send, type TestResponse } from '../../support/server.js';
import {
  connectRedis,
  createPgSchema,
  scanRedisKeys,
  TEST_REDIS_URL,
  uniqueName,
} from '../../support/services.js';

const BASE_ENV: Record<string, string> = {
  DATABASE_URL: '',
  REDIS_URL: '',
  OMNIBOOK_CONFIG: '',
  OMNIBOOK_DATA_DIR: '',
  PORT: '',
  HOST: '',
  LOG_LEVEL: 'warn',
};

// One token per 10 s after a burst of 4: a quick run of 8 requests can earn no extra token.
const QPS = '0.1';
const BURST = 4;

interface Cluster {
  dataDir: string;
  /** What every process of this cluster runs with (the CLI's too): its DATABASE_URL among it. */
  env: Record<string, string>;
  nodes: ServerProcess[];
  schema: Awaited<ReturnType<typeof createPgSchema>>;
}

async function startCluster(extra: Record<string, string>): Promise<Cluster> {
  const schema = await createPgSchema();
  const dataDir = mkdtempSync(join(tmpdir(), 'omnibook-cluster-'));
  const env = { ...BASE_ENV, ...extra, DATABASE_URL: schema.url };
  // Migrate once up front, as a deployment does, so the two nodes do not race on a fresh schema.
  const migrated = await runCli(['migrate', '--data-dir', dataDir], env);
  assert.equal(migrated.code, 0, migrated.stderr);
  const args = ['sandbox', '--port', '0', '--data-dir', dataDir];
  const nodes = await Promise.allSettled([startServerProcess(args, env), startServerProcess(args, env)]);
  const started = nodes.flatMap((n) => (n.status === 'fulfilled' ? [n.value] : []));
  const cluster = { dataDir, env, nodes: started, schema };
  const failed = nodes.find((n) => n.status === 'rejected');
  if (failed) {
    await killCluster(cluster);
    throw (failed as PromiseRejectedResult).reason;
  }
  return cluster;
}

async function killCluster(cluster: Cluster | undefined): Promise<void> {
  if (!cluster) return;
  for (const n of cluster.nodes)
    if (n.child.exitCode === null && n.child.signalCode === null) n.child.kill('SIGKILL');
  rmSync(cluster.dataDir, { recursive: true, force: true });
  await cluster.schema.drop();
}

async function createLimitedKey(cluster: Cluster): Promise<{ id: string; key: string }> {
  const res = await runCli(
    [
      'keys',
      'create',
      '--tier',
      'free',
      '--qps',
      QPS,
      '--burst',
      String(BURST),
      '--json',
      '--data-dir',
      cluster.dataDir,
    ],
    cluster.env,
  );
  assert.equal(res.code, 0, res.stderr);
  const created = JSON.parse(res.stdout) as { id: string; key: string; qps_limit: number; burst: number };
  assert.equal(created.qps_limit, Number(QPS));
  assert.equal(created.burst, BURST);
  return created;
}

/** Sends `count` requests one after another, alternating between the nodes; returns [node index, response]. */
async function alternate(
  cluster: Cluster,
  key: string,
  count: number,
): Promise<Array<[number, TestResponse]>> {
  const out: Array<[number, TestResponse]> = [];
  for (let i = 0; i < count; i++) {
    const node = i % cluster.nodes.length;
    out.push([node, await send(cluster.nodes[node]!.url, key, '/api/v1/exchanges')]);
  }
  return out;
}

async function rateLimiterBackend(node: ServerProcess): Promise<string> {
  const res = await send(node.url, '', '/healthz', { key: null });
  assert.equal(res.status, 200, res.text);
  return (res.body as { rate_limiter: { backend: string } }).rate_limiter.backend;
}

describe('with REDIS_URL, two processes share one bucket per key', () => {
  const env = { REDIS_URL: TEST_REDIS_URL, OMNIBOOK_ADMIN_KEY: uniqueName('admin_key_for_cluster_tests') };
  let redis: Redis;
  let cluster: Cluster | undefined;
  let keyId: string | undefined;

  before(async () => {
    // First, so a missing Redis fails here with a message saying how to provide one.
    redis = await connectRedis();
    cluster = await startCluster(env);
  });

  after(async () => {
    await killCluster(cluster);
    if (redis) {
      if (keyId) {
        const keys = await scanRedisKeys(redis, `omnibook:*{${keyId}}*`);
        if (keys.length > 0) await redis.del(...keys);
      }
      await redis.quit();
    }
  });

  test('both nodes report the redis rate limiter', async () => {
    assert.ok(cluster);
    for (const node of cluster.nodes) assert.equal(await rateLimiterBackend(node), 'redis');
  });

  test('a burst of 4 admits exactly 4 of 8 requests across the two nodes', async () => {
    assert.ok(cluster);
    const { id, key } = await createLimitedKey(cluster);
    keyId = id;
    const results = await alternate(cluster, key, 8);
    const summary = results.map(([node, res]) => `${node}:${res.status}`).join(' ');

    const admitted = results.filter(([, res]) => res.status === 200);
    const limited = results.filter(([, res]) => res.status !== 200);
    assert.equal(admitted.length, BURST, `separate buckets would admit 8: ${summary}`);
    for (const [, res] of limited) {
      const body = assertError(res, 429, 'rate_limit_exceeded');
      assert.equal(body.retryable, true);
      const retryAfter = Number(res.headers.get('retry-after'));
      assert.ok(
        Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 10,
        `Retry-After ${retryAfter}`,
      );
    }
    for (const node of [0, 1]) {
      assert.ok(
        limited.some(([n]) => n === node),
        `node ${node} answered no 429, so it did not see the other node's spending: ${summary}`,
      );
    }
    // The shared bucket lives in Redis under the key's id.
    assert.ok((await scanRedisKeys(redis, `omnibook:*{${id}}*`)).length > 0, 'no Redis keys for the key id');
  });

  test('SIGTERM stops both nodes with exit code 0', async () => {
    assert.ok(cluster);
    const codes = await Promise.all(cluster.nodes.map((n) => n.stop()));
    assert.deepEqual(codes, [0, 0], cluster.nodes.map((n) => n.stderr()).join('\n'));
  });
});

describe('without REDIS_URL, each process admits its own burst (control)', () => {
  let cluster: Cluster | undefined;
  before(async () => {
    cluster = await startCluster({});
  });
  after(() => killCluster(cluster));

  test('in-process buckets: 4 per node, then 429 on each', async () => {
    assert.ok(cluster);
    for (const node of cluster.nodes) assert.equal(await rateLimiterBackend(node), 'memory');
    const { key } = await createLimitedKey(cluster);
    const results = await alternate(cluster, key, 2 * BURST + 2);
    const statuses = results.map(([, res]) => res.status);
    assert.deepEqual(statuses, [...Array(2 * BURST).fill(200), 429, 429], statuses.join(','));
    const codes = await Promise.all(cluster.nodes.map((n) => n.stop()));
    assert.deepEqual(codes, [0, 0]);
  });
});
