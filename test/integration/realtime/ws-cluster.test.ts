// Scale-out of the WebSocket gateway: two `omnibook serve` processes on one PostgreSQL (a schema of this run's own:
// several nodes share a database only there; on SQLite one server owns a data directory), one Redis (a key prefix of this
// run's own) and one set of simulators. A client on each node watches the same book: both replay it to the REST book,
// the simulator sees one upstream subscription for it (the node holding the book's lease feeds the other through
// Redis), and GET /ws/usage on either node counts both nodes' sockets to the message and the byte. When the feeding
// node is killed, the other one's client sees the book go stale, then resync_required and a fresh snapshot from the
// node that took the feed over, and the dead node's live counts expire from the cluster's.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import type { Redis } from 'ioredis';
import type { BookLevel } from '../../../src/domain/book.js';
import { applyBookChanges } from '../../../src/domain/book-diff.js';
import type { BookChange } from '../../../src/domain/stream.js';
import type { WsUsageReport } from '../../../src/services/ws-usage.js';
import { runCli, type ServerProcess, startServerProcess } from '../../support/cli.js';
import { send, waitFor } from '../../support/server.js';
import {
  connectRedis,
  createPgSchema,
  scanRedisKeys,
  TEST_REDIS_URL,
  uniqueName,
} from '../../support/services.js';
import { type SimSet, startSimSet } from '../../support/sim-set.js';
import { type WsMessage, WsTestClient } from '../../support/ws-client.js';

const ADMIN_KEY = uniqueName('admin_key_for_ws_cluster');
const PREFIX = uniqueName('obtest_ws');
const DEPTH = 5;
/** Waits for what crosses processes (a flush, a lease expiry) are bounded by this, never asserted on. */
const CROSS_NODE_WAIT_MS = 20_000;

let redis: Redis;
let schema: Awaited<ReturnType<typeof createPgSchema>> | undefined;
let sims: SimSet;
let dataDir: string;
let env: Record<string, string>;
let configFile: string;
const nodes: ServerProcess[] = [];
const clients: WsTestClient[] = [];
let market: { svc_id: string; token: string };
let customerId: string;

before(async () => {
  // First, so a missing Redis or PostgreSQL fails here with a message saying how to provide one.
  redis = await connectRedis();
  schema = await createPgSchema();
  sims = await startSimSet();
  dataDir = mkdtempSync(join(tmpdir(), 'omnibook-ws-cluster-'));
  configFile = join(dataDir, 'config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      ...sims.host.config,
      // Quick flushes and a short lease keep the waits below short; nothing asserts how long they take.
      websocket: { heartbeatMs: 500, usageFlushMs: 100, feedLeaseMs: 3_000 },
      recorder: { enabled: false },
    }),
  );
  env = {
    ...sims.host.env,
    DATABASE_URL: schema.url,
    OMNIBOOK_CONFIG: '',
    OMNIBOOK_DATA_DIR: '',
    PORT: '',
    HOST: '',
    LOG_LEVEL: 'warn',
    REDIS_URL: TEST_REDIS_URL,
    OMNIBOOK_REDIS_PREFIX: PREFIX,
    OMNIBOOK_ADMIN_KEY: ADMIN_KEY,
  };
  // Migrate once up front, as a deployment does, so the two nodes do not race on a fresh schema.
  const migrated = await runCli(['migrate', '--data-dir', dataDir], env);
  assert.equal(migrated.code, 0, migrated.stderr);
  const args = ['serve', '--port', '0', '--data-dir', dataDir, '--config', configFile];
  for (const started of await Promise.allSettled([
    startServerProcess(args, env, 60_000),
    startServerProcess(args, env, 60_000),
  ])) {
    if (started.status === 'fulfilled') nodes.push(started.value);
    else throw started.reason;
  }
  // The catalogue sync (one leader among the two) fills the shared database.
  market = await waitFor(
    async () => {
      const res = await send(
        nodeA().url,
        ADMIN_KEY,
        '/api/v1/markets?exchanges=polymarket&status=active&limit=20',
      );
      if (res.status !== 200) return undefined;
      const listed = (
        res.body as { markets: Array<{ svc_id: string; outcomes: Array<{ token_id?: string }> }> }
      ).markets;
      const m = listed.find((x) => x.outcomes.every((o) => o.token_id));
      const token = m?.outcomes[0]?.token_id;
      return m && token ? { svc_id: m.svc_id, token } : undefined;
    },
    60_000,
    'the first catalogue pass',
  );
});

after(async () => {
  for (const c of clients) c.close();
  for (const n of nodes)
    if (n.child.exitCode === null && n.child.signalCode === null) n.child.kill('SIGKILL');
  await sims?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  await schema?.drop();
  if (redis) {
    const keys = await scanKeys(`${PREFIX}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  }
});

const nodeA = () => nodes[0] as ServerProcess;
const nodeB = () => nodes[1] as ServerProcess;

function scanKeys(pattern: string): Promise<string[]> {
  return scanRedisKeys(redis, pattern);
}

/** An authenticated client on a node, subscribed to the market, once its snapshot came. */
async function watcher(node: ServerProcess): Promise<{ client: WsTestClient; snapshot: WsMessage }> {
  const client = await WsTestClient.open(`${node.url.replace(/^http/, 'ws')}/ws`);
  clients.push(client);
  client.send({ type: 'auth', api_key: ADMIN_KEY });
  const ok = await client.next((m) => m.type === 'auth_ok');
  customerId = ok.customer_id as string;
  const from = client.mark;
  client.send({ type: 'subscribe', markets: [{ svc_id: market.svc_id, depth: DEPTH }] });
  const snapshot = await client.next((m) => m.type === 'orderbook' && m.svc_id === market.svc_id, from);
  assert.equal(snapshot.book_state, 'fresh');
  return { client, snapshot };
}

/** The book a client holds after replaying its book messages, and their server_seq values. */
function replay(messages: readonly WsMessage[]) {
  let bids: BookLevel[] = [];
  let asks: BookLevel[] = [];
  const seqs: number[] = [];
  for (const m of messages) {
    if (m.svc_id !== market.svc_id || m.type === 'error') continue;
    seqs.push(m.server_seq as number);
    if (m.type === 'orderbook') {
      bids = m.bids as BookLevel[];
      asks = m.asks as BookLevel[];
    } else if (m.type === 'orderbook_delta') {
      bids = applyBookChanges(bids, m.changes as BookChange[], 'bid');
      asks = applyBookChanges(asks, m.changes as BookChange[], 'ask');
    }
  }
  return { book: [bids, asks], seqs };
}

function assertGapFree(client: WsTestClient, what: string): void {
  const { seqs } = replay(client.messages);
  assert.deepEqual(
    seqs,
    seqs.map((_, i) => i + 1),
    `${what}: server_seq counts 1, 2, 3…`,
  );
}

async function restBook(node: ServerProcess): Promise<unknown[]> {
  const res = await send(
    node.url,
    ADMIN_KEY,
    `/api/v1/orderbook?svc_id=${encodeURIComponent(market.svc_id)}&limit=${DEPTH}`,
  );
  assert.equal(res.status, 200, res.text);
  const body = res.body as { bids: BookLevel[]; asks: BookLevel[] };
  return [body.bids, body.asks];
}

async function sim(method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${sims.host.controls.polymarket}/__sim/${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  assert.ok(res.ok, `${method} /__sim/${path}: ${res.status}`);
  return res.json();
}

/** Market-stream connections the simulator has subscribed to the market's book (one per feeding node). */
async function upstreamSubscriptions(): Promise<number> {
  const { subscriptions } = (await sim('GET', 'ws/subscriptions')) as {
    subscriptions: Record<string, number>;
  };
  return Object.hasOwn(subscriptions, market.token) ? (subscriptions[market.token] ?? 0) : 0;
}

/** Moves the simulator until the market's venue book differs from `from` (a bounded number of steps). */
async function moveBook(node: ServerProcess, from: unknown[]): Promise<void> {
  for (let i = 0; i < 50; i++) {
    await sim('POST', 'advance', { steps: 3 });
    const moved = await waitFor(async () => {
      const now = await restBook(node);
      return isDeepStrictEqual(now, from) ? undefined : now;
    }, 1_000).catch(() => null);
    if (moved) return;
  }
  assert.fail('the simulator did not move the book in 150 steps');
}

async function globalUsage(node: ServerProcess): Promise<WsUsageReport> {
  const res = await send(node.url, ADMIN_KEY, '/api/v1/ws/usage?scope=global');
  assert.equal(res.status, 200, res.text);
  return res.body as WsUsageReport;
}

async function usage(
  node: ServerProcess,
): Promise<{ ws_active_connections: number; ws_active_subscriptions: number }> {
  const res = await send(node.url, ADMIN_KEY, '/api/v1/usage');
  assert.equal(res.status, 200, res.text);
  const { ws_active_connections, ws_active_subscriptions } = (
    res.body as { usage: { ws_active_connections: number; ws_active_subscriptions: number } }
  ).usage;
  return { ws_active_connections, ws_active_subscriptions };
}

describe('two server processes on one Redis', () => {
  test('a client on each node: the same book from one upstream subscription, replayed to the REST book', async () => {
    const a = await watcher(nodeA());
    const b = await watcher(nodeB());
    assert.deepEqual([b.snapshot.bids, b.snapshot.asks], [a.snapshot.bids, a.snapshot.asks]);
    assert.equal(await upstreamSubscriptions(), 1, 'node A feeds the book; node B follows it through Redis');

    await moveBook(nodeB(), [a.snapshot.bids, a.snapshot.asks]);
    await waitFor(
      async () => {
        const want = await restBook(nodeB());
        const sameOnA = isDeepStrictEqual(await restBook(nodeA()), want);
        const ra = replay(a.client.messages).book;
        const rb = replay(b.client.messages).book;
        return sameOnA && isDeepStrictEqual(ra, want) && isDeepStrictEqual(rb, want) ? true : undefined;
      },
      CROSS_NODE_WAIT_MS,
      'both clients to replay to the REST book of both nodes',
    );
    for (const [name, w] of [
      ['node A', a],
      ['node B', b],
    ] as const) {
      assert.ok(
        w.client.messages.some((m) => m.type === 'orderbook_delta' && m.svc_id === market.svc_id),
        `${name}'s client got deltas`,
      );
      assertGapFree(w.client, name);
    }
    assert.equal(await upstreamSubscriptions(), 1, 'still one upstream subscription');

    // Usage: both nodes report the cluster's totals, to the message and the byte, once both have flushed.
    a.client.close();
    b.client.close();
    await Promise.all([a.client.waitClosed(), b.client.waitClosed()]);
    const sent = a.client.messages.length + b.client.messages.length;
    const bytes = a.client.bytes + b.client.bytes;
    for (const node of [nodeA(), nodeB()]) {
      const report = await waitFor(
        async () => {
          const r = await globalUsage(node);
          return r.totals.connections_closed_total === 2 ? r : undefined;
        },
        CROSS_NODE_WAIT_MS,
        'both nodes to flush their closed connections',
      );
      assert.deepEqual(report.totals, {
        active_connections: 0,
        active_subscriptions: 0,
        connections_opened_total: 2,
        connections_closed_total: 2,
        auth_failures_total: 0,
        subscribe_requests_total: 2,
        unsubscribe_requests_total: 0,
        messages_sent_total: sent,
        bytes_sent_total: bytes,
      });
      assert.deepEqual(report.customers, [
        {
          customer_id: customerId,
          active_connections: 0,
          active_subscriptions: 0,
          messages_sent_total: sent,
          bytes_sent_total: bytes,
        },
      ]);
      assert.deepEqual(report.top_markets, [{ svc_id: market.svc_id, subscriptions_total: 2 }]);
    }
    // GET /orderbook keeps following the book it was asked for (HotBooks), through the same shared feed.
    assert.equal(await upstreamSubscriptions(), 1, 'REST reads on both nodes added no upstream subscription');
  });

  test('the feeding node dies: the other goes stale, then resync_required and fresh from its own feed; live counts expire', async () => {
    // Node A still feeds the book (GET /orderbook keeps it held there); it gets a client again, then node B.
    await watcher(nodeA());
    const b = await watcher(nodeB());
    assert.equal(await upstreamSubscriptions(), 1);
    await waitFor(
      async () => {
        const u = await usage(nodeB());
        return u.ws_active_connections === 2 && u.ws_active_subscriptions === 2 ? true : undefined;
      },
      CROSS_NODE_WAIT_MS,
      'node B to count node A’s socket',
    );
    assert.equal((await globalUsage(nodeB())).totals.active_connections, 2);

    const killedAt = b.client.mark;
    nodeA().child.kill('SIGKILL');
    const stale = await b.client.next(
      (m) => m.svc_id === market.svc_id && m.book_state === 'stale',
      killedAt,
      CROSS_NODE_WAIT_MS,
    );
    assert.equal(stale.feed_state, 'disconnected');
    const resync = await b.client.next(
      (m) => m.type === 'resync_required' && m.svc_id === market.svc_id,
      killedAt,
      CROSS_NODE_WAIT_MS,
    );
    const fresh = await b.client.next(
      (m) => m.type === 'orderbook' && m.svc_id === market.svc_id,
      b.client.messages.indexOf(resync),
      CROSS_NODE_WAIT_MS,
    );
    assert.equal(fresh.book_state, 'fresh');
    assert.equal(fresh.feed_state, 'healthy');
    assert.ok(b.client.messages.indexOf(stale) < b.client.messages.indexOf(resync), 'stale before resync');
    assertGapFree(b.client, 'node B');
    await waitFor(async () => ((await upstreamSubscriptions()) === 1 ? true : undefined), CROSS_NODE_WAIT_MS);

    // Node B now feeds the book itself: it still moves for its client.
    await moveBook(nodeB(), [fresh.bids, fresh.asks]);
    await waitFor(
      async () => isDeepStrictEqual(replay(b.client.messages).book, await restBook(nodeB())) || undefined,
      CROSS_NODE_WAIT_MS,
      'node B’s client to replay the moved book',
    );
    assertGapFree(b.client, 'node B');

    // Node A's live counts stop being refreshed and expire; what it counted before stays in the totals.
    const report = await waitFor(
      async () => {
        const r = await globalUsage(nodeB());
        return r.totals.active_connections === 1 ? r : undefined;
      },
      CROSS_NODE_WAIT_MS,
      'node A’s live counts to expire',
    );
    assert.equal(report.totals.active_subscriptions, 1);
    assert.ok(report.totals.connections_opened_total >= 4);
    assert.deepEqual(await usage(nodeB()), { ws_active_connections: 1, ws_active_subscriptions: 1 });

    b.client.close();
    await b.client.waitClosed();
    assert.equal(await nodeB().stop(), 0, nodeB().stderr());
    assert.deepEqual(await scanKeys(`${PREFIX}:book:*:lease`), [], 'a stopped node leaves no lease behind');
    assert.deepEqual(await scanKeys(`${PREFIX}:ws:live:*`), [], 'nor live counts');
  });
});
