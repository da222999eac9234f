// The tier's subscription cap across nodes (issue 31, item 5): two `omnibook sandbox` processes on one PostgreSQL
// (a schema of this run's own) and one Redis (a key prefix of this run's own). A free key (5 subscriptions) that
// watches 3 wallets on one node gets only 2 more on the other, once the first node's live counts reached Redis
// (websocket.usageFlushMs; the wait for it is bounded, never asserted on).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Redis } from 'ioredis';
import { TIERS } from '../../../src/domain/tiers.js';
import { runCli, type ServerProcess, startServerProcess } from '../../support/cli.js';
import { send, waitFor } from '../../support/server.js';
import {
  connectRedis,
  createPgSchema,
  dropRedisPrefix,
  TEST_REDIS_URL,
  uniqueName,
} from '../../support/services.js';
import { type WsMessage, WsTestClient } from '../../support/ws-client.js';

const PREFIX = uniqueName('obtest_ws_limits');
const CROSS_NODE_WAIT_MS = 20_000;

let redis: Redis;
let schema: Awaited<ReturnType<typeof createPgSchema>> | undefined;
let dataDir: string;
const nodes: ServerProcess[] = [];
const clients: WsTestClient[] = [];
let freeKey: string;

before(async () => {
  redis = await connectRedis();
  schema = await createPgSchema();
  dataDir = mkdtempSync(join(tmpdir(), 'omnibook-ws-limits-cluster-'));
  const configFile = join(dataDir, 'config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      websocket: { usageFlushMs: 50, walletPollMs: 500 },
      catalogue: { sync: false },
      recorder: { enabled: false },
    }),
  );
  const env = {
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
  const created = await runCli(['keys', 'create', '--tier', 'free', '--json', '--data-dir', dataDir], env);
  assert.equal(created.code, 0, created.stderr);
  freeKey = (JSON.parse(created.stdout) as { key: string }).key;
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
  for (const c of clients) c.close();
  for (const n of nodes)
    if (n.child.exitCode === null && n.child.signalCode === null) n.child.kill('SIGKILL');
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  await schema?.drop();
  if (redis) await dropRedisPrefix(redis, PREFIX);
});

async function authed(node: ServerProcess): Promise<WsTestClient> {
  const client = await WsTestClient.open(`${node.url.replace(/^http/, 'ws')}/ws`);
  clients.push(client);
  client.send({ type: 'auth', api_key: freeKey });
  await client.next((m) => m.type === 'auth_ok');
  return client;
}

function wallets(n: number, from: number): Array<{ exchange: string; address: string }> {
  return Array.from({ length: n }, (_, i) => ({
    exchange: 'polymarket',
    address: `0x${(from + i).toString(16).padStart(40, '0')}`,
  }));
}

const watched = (address: string) => (m: WsMessage) => m.type === 'wallet_activity' && m.address === address;

test("a free key's subscriptions on one node count against its cap on the other", async () => {
  const [a, b] = nodes as [ServerProcess, ServerProcess];
  const max = TIERS.free.wsMaxSubscriptions;
  const onA = wallets(3, 0x7000);
  const clientA = await authed(a);
  clientA.send({ type: 'subscribe', addresses: onA });
  for (const w of onA) await clientA.next(watched(w.address));
  // Node B sees A's sockets once A has flushed its live counts.
  await waitFor(
    async () => {
      const res = await send(b.url, freeKey, '/api/v1/ws/usage');
      const active = (res.body as { customer?: { active_subscriptions: number } }).customer;
      return active?.active_subscriptions === onA.length ? true : undefined;
    },
    CROSS_NODE_WAIT_MS,
    "node A's subscriptions in node B's view",
  );

  const onB = wallets(3, 0x8000);
  const clientB = await authed(b);
  clientB.send({ type: 'subscribe', addresses: onB });
  const refused = await clientB.next((m) => m.type === 'error' && m.code === 3002);
  assert.deepEqual(refused.addresses, onB.slice(max - onA.length));
  for (const w of onB.slice(0, max - onA.length)) await clientB.next(watched(w.address));
});
