// Several nodes behind a real load balancer: three `omnibook serve` processes on one PostgreSQL schema (this run's
// own), one Redis (a key prefix of this run's own) and one simulator set, behind HAProxy running deploy/haproxy.cfg
// (the file docs/operations.md shows). Through the balancer, round robin over the nodes: a key's rate limit and
// monthly quota hold for the cluster, and its monthly count is one number every node reports and the database ends
// up with. One node leads the catalogue sync; when it is SIGKILLed another takes the lease and syncs (a market the
// venue lists afterwards appears) while GETs through the balancer lose nothing. A node stopped with SIGTERM under
// load answers nothing but its drain's 503s and comes back on its port (a rolling restart). A WebSocket client on
// one node follows a book another node feeds; when the feeding node is SIGKILLed the client sees stale →
// resync_required → a fresh snapshot from the survivor, and a client that lost its node reconnects through the
// balancer.
// Every wait is on a condition with a deadline; the figures (failover, lost requests, resume) are diagnostics,
// never asserted on.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Redis } from 'ioredis';
import pg from 'pg';
import { billingPeriodOf } from '../../../src/domain/billing-period.js';
import type { BookLevel } from '../../../src/domain/book.js';
import { applyBookChanges } from '../../../src/domain/book-diff.js';
import type { BookChange } from '../../../src/domain/stream.js';
import type { WsUsageReport } from '../../../src/services/ws-usage.js';
import { runCli, type ServerProcess, startServerProcess } from '../../support/cli.js';
import { assertError } from '../../support/error-shape.js';
import { type Balancer, haproxySkipReason, startBalancer } from '../../support/haproxy.js';
import { send, type TestResponse, waitFor } from '../../support/server.js';
import {
  connectRedis,
  createPgSchema,
  scanRedisKeys,
  TEST_REDIS_URL,
  uniqueName,
} from '../../support/services.js';
import { type SimSet, startSimSet } from '../../support/sim-set.js';
import { WsTestClient } from '../../support/ws-client.js';

const skip = haproxySkipReason();
const ADMIN_KEY = uniqueName('admin_key_for_cluster');
const PREFIX = uniqueName('obtest_cluster');
// Short leases keep the failovers quick; nothing asserts how long they take.
const LEASE_TTL_MS = 3_000;
const FEED_LEASE_MS = 3_000;
/** A bound on anything that crosses processes (a lease expiry, a sync pass, a flush), never asserted on. */
const CROSS_NODE_WAIT_MS = 60_000;
/**
 * A node's start (or the first sync pass) is bounded by this: a hang catcher, not a speed limit. A node loading
 * through tsx on a shared 2-core machine kept busy by other work once took over a minute.
 */
const NODE_START_MS = 180_000;
// The shared bucket: a burst of 6, then one token per 10 s, so a quick run earns no extra token.
const RATE_QPS = 0.1;
const RATE_BURST = 6;
// The free tier's month is 50,000 requests; the quota key starts this close to it.
const MONTH_LEFT = 5;

let redis: Redis;
let sims: SimSet;
let schema: Awaited<ReturnType<typeof createPgSchema>>;
let databaseUrl: string;
const dirs: string[] = [];
const nodes: ServerProcess[] = [];
let lb: Balancer;
const clients: WsTestClient[] = [];
let env: Record<string, string>;

before(async () => {
  if (skip) return;
  // First, so a missing Redis or PostgreSQL fails here with a message saying how to provide one.
  redis = await connectRedis();
  schema = await createPgSchema();
  databaseUrl = schema.url;
  sims = await startSimSet();
  const configDir = mkdtempSync(join(tmpdir(), 'omnibook-cluster-'));
  dirs.push(configDir);
  const configFile = join(configDir, 'config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      ...sims.host.config,
      catalogue: { refreshIntervalMs: 1_000, leaseTtlMs: LEASE_TTL_MS },
      usage: { flushIntervalMs: 200 },
      websocket: { heartbeatMs: 500, usageFlushMs: 100, feedLeaseMs: FEED_LEASE_MS },
      recorder: { enabled: false },
    }),
  );
  env = {
    ...sims.host.env,
    DATABASE_URL: databaseUrl,
    OMNIBOOK_CONFIG: '',
    OMNIBOOK_DATA_DIR: '',
    PORT: '',
    HOST: '',
    LOG_LEVEL: 'warn',
    REDIS_URL: TEST_REDIS_URL,
    OMNIBOOK_REDIS_PREFIX: PREFIX,
    OMNIBOOK_ADMIN_KEY: ADMIN_KEY,
    // One master key for every node (each has a data dir of its own, so a key file would differ per node).
    OMNIBOOK_MASTER_KEY: randomBytes(32).toString('hex'),
  };
  // Migrate once up front, as a deployment does, rather than three nodes racing to.
  const migrated = await runCli(['migrate', '--data-dir', configDir], env);
  assert.equal(migrated.code, 0, migrated.stderr);
  const started = await Promise.allSettled(
    [0, 1, 2].map(() => {
      const dataDir = mkdtempSync(join(tmpdir(), 'omnibook-cluster-node-'));
      dirs.push(dataDir);
      return startServerProcess(
        ['serve', '--port', '0', '--data-dir', dataDir, '--config', configFile],
        env,
        NODE_START_MS,
      );
    }),
  );
  for (const s of started) if (s.status === 'fulfilled') nodes.push(s.value);
  for (const s of started) if (s.status === 'rejected') throw s.reason;
  lb = await startBalancer(nodes.map((n) => new URL(n.url).host) as [string, string, string]);
  // The catalogue sync (one leader among the three) fills the shared database.
  await waitFor(
    async () => (await polymarketMarkets()).length > 0 || undefined,
    NODE_START_MS,
    'the first catalogue pass',
  );
});

after(async () => {
  for (const c of clients) c.close();
  await lb?.close();
  for (const n of nodes)
    if (n.child.exitCode === null && n.child.signalCode === null) n.child.kill('SIGKILL');
  await sims?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  await schema?.drop();
  if (redis) {
    const keys = await scanKeys(`${PREFIX}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  }
});

function scanKeys(pattern: string): Promise<string[]> {
  return scanRedisKeys(redis, pattern);
}

async function sql<T>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

const alive = (n: ServerProcess) => n.child.exitCode === null && n.child.signalCode === null;

/** The node HAProxy sent a request to: its server lines are node1..node3, in the order of `nodes`. */
function nodeOf(headers: Headers | WsTestClient['upgradeHeaders']): number {
  const name = headers instanceof Headers ? headers.get('x-omnibook-node') : headers['x-omnibook-node'];
  const match = /^node([123])$/.exec(String(name));
  assert.ok(match, `the balancer names the node that answered (got ${String(name)})`);
  return Number(match[1]) - 1;
}

/** A key created through the balancer (by whichever node), usable on every node at once. */
async function createKey(body: { tier: string; qps_limit?: number; burst?: number }): Promise<{
  id: string;
  key: string;
}> {
  const res = await send(lb.url, ADMIN_KEY, '/api/v1/keys', { method: 'POST', body });
  assert.equal(res.status, 201, res.text);
  return res.body as { id: string; key: string };
}

type Listed = { svc_id: string; outcomes: Array<{ token_id?: string }> };

/** Active Polymarket markets of the catalogue, read through the balancer. */
async function polymarketMarkets(): Promise<Listed[]> {
  const found: Listed[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 20; page++) {
    const res = await send(
      lb.url,
      ADMIN_KEY,
      `/api/v1/markets?exchanges=polymarket&status=active&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    if (res.status !== 200) return found;
    const body = res.body as { markets: Listed[]; pagination: { next_cursor?: string } };
    found.push(...body.markets);
    cursor = body.pagination.next_cursor;
    if (!cursor) break;
  }
  return found;
}

async function health(node: ServerProcess): Promise<{
  catalogue?: { leader: boolean; exchanges: Record<string, { last_full_at: string | null }> };
}> {
  const res = await fetch(`${node.url}/healthz`);
  assert.equal(res.status, 200);
  return (await res.json()) as never;
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

/** Upstream market-stream subscriptions the simulator counts for a token (one per feeding node). */
async function upstreamSubscriptions(token: string): Promise<number> {
  const { subscriptions } = (await sim('GET', 'ws/subscriptions')) as {
    subscriptions: Record<string, number>;
  };
  return Object.hasOwn(subscriptions, token) ? (subscriptions[token] ?? 0) : 0;
}

/**
 * GETs through the balancer, two at a time, until stopped: what a client sees while a node dies. Every answer is
 * kept with the node that gave it; anything but a 200 (or a failed request) is a request the balancer lost.
 */
function backgroundLoad(key: string) {
  const results: Array<{ status: number; node: string | null; error?: string }> = [];
  let running = true;
  const worker = async () => {
    while (running) {
      try {
        const res = await fetch(`${lb.url}/api/v1/markets?exchanges=polymarket&limit=1`, {
          headers: { 'x-api-key': key },
        });
        await res.arrayBuffer();
        results.push({ status: res.status, node: res.headers.get('x-omnibook-node') });
      } catch (error) {
        results.push({ status: 0, node: null, error: (error as Error).message });
      }
      // Paced: the point is a steady stream of requests across the kill, not load on a shared 2-core machine.
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const workers = [worker(), worker()];
  return {
    results,
    async stop() {
      running = false;
      await Promise.all(workers);
      return results;
    },
  };
}

/** Each book state (bids and asks) a client's messages replay to, with when the client first had it. */
function bookStates(client: WsTestClient, svcId: string): Map<string, number> {
  const states = new Map<string, number>();
  let bids: BookLevel[] = [];
  let asks: BookLevel[] = [];
  client.messages.forEach((m, i) => {
    if (m.svc_id !== svcId) return;
    if (m.type === 'orderbook') {
      bids = m.bids as BookLevel[];
      asks = m.asks as BookLevel[];
    } else if (m.type === 'orderbook_delta') {
      bids = applyBookChanges(bids, m.changes as BookChange[], 'bid');
      asks = applyBookChanges(asks, m.changes as BookChange[], 'ask');
    } else return;
    const key = JSON.stringify([bids, asks]);
    if (!states.has(key)) states.set(key, client.arrivals[i] as number);
  });
  return states;
}

describe('three nodes behind HAProxy on one PostgreSQL and one Redis', { skip }, () => {
  test('round robin over the nodes: a key’s rate limit and monthly quota are the cluster’s, and so is its count', async () => {
    // Rate limit: one bucket across the nodes. With a bucket per node three times the burst would pass.
    const limited = await createKey({ tier: 'free', qps_limit: RATE_QPS, burst: RATE_BURST });
    const [s0, us0] = await redis.time();
    let admitted = 0;
    const servedBy = new Set<number>();
    const refusedBy = new Set<number>();
    let refusal: TestResponse | undefined;
    for (let i = 0; i < 6 * RATE_BURST && refusedBy.size < 3; i++) {
      const res = await send(lb.url, limited.key, '/api/v1/exchanges');
      const node = nodeOf(res.headers);
      servedBy.add(node);
      if (res.status === 429) {
        refusedBy.add(node);
        refusal = res;
      } else {
        assert.equal(res.status, 200, res.text);
        admitted++;
      }
    }
    const [s1, us1] = await redis.time();
    const elapsed = Number(s1) - Number(s0) + (Number(us1) - Number(us0)) / 1e6;
    assert.deepEqual(
      [...servedBy].sort(),
      [0, 1, 2],
      'the balancer spread the requests over the three nodes',
    );
    assert.deepEqual([...refusedBy].sort(), [0, 1, 2], 'every node refused once the shared bucket was empty');
    assert.ok(refusal);
    assertError(refusal, 429, 'rate_limit_exceeded');
    // At most the burst plus what the bucket refilled meanwhile (on Redis's clock).
    assert.ok(
      admitted <= RATE_BURST + Math.floor(RATE_QPS * elapsed),
      `${admitted} admitted in ${elapsed.toFixed(3)} s of Redis time`,
    );
    assert.ok(admitted >= RATE_BURST, `the burst (${RATE_BURST}) was admitted, got ${admitted}`);

    // Monthly quota: a key with MONTH_LEFT requests left this month (its count as the database holds it) gets
    // exactly that many across the nodes, then every node refuses it.
    const quota = await createKey({ tier: 'free' });
    const period = billingPeriodOf(new Date()).id;
    await sql('insert into usage_monthly (key_id, period, requests) values ($1, $2, $3)', [
      quota.id,
      period,
      50_000 - MONTH_LEFT,
    ]);
    const verdicts: Array<{ status: number; node: number }> = [];
    const refusing = new Set<number>();
    // Until each node has refused once (bounded): a refusal comes before the bucket, so the rate limit never shows.
    for (let i = 0; i < MONTH_LEFT + 12 && refusing.size < 3; i++) {
      const res = await send(lb.url, quota.key, '/api/v1/exchanges');
      if (res.status !== 200) {
        assertError(res, 429, 'monthly_limit_exceeded');
        refusing.add(nodeOf(res.headers));
      }
      verdicts.push({ status: res.status, node: nodeOf(res.headers) });
    }
    assert.deepEqual(
      verdicts.map((v) => v.status),
      [...Array(MONTH_LEFT).fill(200), ...Array(verdicts.length - MONTH_LEFT).fill(429)],
      'exactly the month’s remainder is admitted, whichever node serves',
    );
    assert.deepEqual([...refusing].sort(), [0, 1, 2], 'every node refuses the spent month');

    // The month's count is one number: each node, asked in turn, counts the others' requests (and its own).
    const counted = await createKey({ tier: 'pro' });
    const N = 12;
    for (let i = 0; i < N; i++)
      assert.equal((await send(lb.url, counted.key, '/api/v1/exchanges')).status, 200);
    const seen: number[] = [];
    for (const node of nodes) {
      const res = await send(node.url, counted.key, '/api/v1/usage');
      assert.equal(res.status, 200, res.text);
      seen.push((res.body as { usage: { monthly_requests: number } }).usage.monthly_requests);
    }
    assert.deepEqual(seen, [N + 1, N + 2, N + 3], 'every node reports the cluster’s count');
    // And each node's flush adds its own share to the database: the row ends up with the whole count.
    await waitFor(
      async () => {
        const rows = await sql<{ requests: string }>(
          'select requests from usage_monthly where key_id = $1 and period = $2',
          [counted.id, period],
        );
        return Number(rows[0]?.requests ?? 0) === N + 3 || undefined;
      },
      CROSS_NODE_WAIT_MS,
      'the nodes’ flushes to add up to the cluster’s count',
    );
  });

  test('one node leads the catalogue sync; SIGKILLed, another takes the lease and syncs, and GETs lose nothing', async (t) => {
    const leaders = async () => {
      const found: number[] = [];
      for (const [i, n] of nodes.entries())
        if (alive(n) && (await health(n)).catalogue?.leader) found.push(i);
      return found;
    };
    const leader = await waitFor(
      async () => {
        const l = await leaders();
        return l.length === 1 ? l[0] : undefined;
      },
      CROSS_NODE_WAIT_MS,
      'one leader',
    );
    assert.equal(leader === undefined, false);
    const leaderNode = nodes[leader as number] as ServerProcess;
    const [lease] = await sql<{ holder: string }>("select holder from leases where name = 'catalogue-sync'");
    assert.ok(lease, 'the lease row names the leader');

    const loadKey = await createKey({ tier: 'scale', qps_limit: 100_000, burst: 100_000 });
    const load = backgroundLoad(loadKey.key);
    await waitFor(async () => load.results.length >= 20 || undefined, CROSS_NODE_WAIT_MS, 'load to flow');

    const logMark = lb.log().length;
    const killedAt = Date.now();
    leaderNode.child.kill('SIGKILL');
    // HAProxy's health checks take the node out of rotation; GETs meanwhile are retried on the others.
    let downAt = 0;
    const down = lb
      .logLine(new RegExp(`node${(leader as number) + 1} is DOWN`), logMark, CROSS_NODE_WAIT_MS)
      .then(() => {
        downAt = Date.now();
      });
    // The venue lists a market after the leader died: only a new leader's pass can bring it in.
    const listed = (await sim('POST', 'markets')) as { condition_id: string };
    const svcId = `polymarket:${listed.condition_id.toLowerCase()}`;

    const survivors = nodes.filter((n) => n !== leaderNode);
    const newLeader = await waitFor(
      async () => {
        for (const n of survivors) if ((await health(n)).catalogue?.leader) return n;
        return undefined;
      },
      CROSS_NODE_WAIT_MS,
      'another node to take the catalogue lease',
    );
    const leaseAt = Date.now();
    const [taken] = await sql<{ holder: string }>("select holder from leases where name = 'catalogue-sync'");
    assert.notEqual(taken?.holder, lease.holder, 'the lease changed hands');
    await waitFor(
      async () => (await polymarketMarkets()).some((m) => m.svc_id === svcId) || undefined,
      CROSS_NODE_WAIT_MS,
      'the market listed after the kill to appear through the balancer',
    );
    const syncedAt = Date.now();
    assert.equal((await health(newLeader)).catalogue?.leader, true);
    assert.equal(
      (await Promise.all(survivors.map(async (n) => (await health(n)).catalogue?.leader))).filter(Boolean)
        .length,
      1,
      'still one leader',
    );
    await down;
    const afterDown = load.results.length;
    await waitFor(
      async () => load.results.length >= afterDown + 20 || undefined,
      CROSS_NODE_WAIT_MS,
      'load to flow after the node left the rotation',
    );
    const results = await load.stop();
    const lost = results.filter((r) => r.status !== 200);
    t.diagnostic(
      `catalogue failover: kill → lease taken ${leaseAt - killedAt} ms, kill → new market synced ${syncedAt - killedAt} ms ` +
        `(leaseTtlMs ${LEASE_TTL_MS}, refreshIntervalMs 1000); HAProxy marked it down after ${downAt - killedAt} ms`,
    );
    t.diagnostic(
      `balancer during the kill: ${results.length} GETs, ${lost.length} lost ` +
        `(${JSON.stringify(lost.slice(0, 5))})`,
    );
    assert.deepEqual(lost, [], 'no GET through the balancer failed while the node died');
    assert.equal(
      results.filter((r) => r.node === `node${(leader as number) + 1}`).length > 0,
      true,
      'the dead node was serving its share before the kill',
    );
  });

  test('rolling restart: a node stopped with SIGTERM drains, the others take its GETs, and it comes back on its port', async (t) => {
    const index = nodes.findIndex(alive);
    const node = nodes[index] as ServerProcess;
    const server = `node${index + 1}`;
    const port = new URL(node.url).port;
    const loadKey = await createKey({ tier: 'scale', qps_limit: 100_000, burst: 100_000 });
    const load = backgroundLoad(loadKey.key);
    await waitFor(
      async () => load.results.some((r) => r.node === server) || undefined,
      CROSS_NODE_WAIT_MS,
      `load to reach ${server}`,
    );
    const logMark = lb.log().length;
    const stoppedAt = Date.now();
    assert.equal(await node.stop(), 0, node.stderr());
    const exitedAt = Date.now();
    await lb.logLine(new RegExp(`${server} is DOWN`), logMark, CROSS_NODE_WAIT_MS);
    const downAt = Date.now();
    // The same node again, on the same address (a new data dir: nothing of a node's own survives but its config).
    const dataDir = mkdtempSync(join(tmpdir(), 'omnibook-cluster-node-'));
    dirs.push(dataDir);
    const configFile = join(dirs[0] as string, 'config.json');
    const restarted = await startServerProcess(
      ['serve', '--port', port, '--data-dir', dataDir, '--config', configFile],
      env,
      NODE_START_MS,
    );
    nodes[index] = restarted;
    await lb.logLine(new RegExp(`${server} is UP`), logMark, CROSS_NODE_WAIT_MS);
    const upAt = Date.now();
    const from = load.results.length;
    await waitFor(
      async () => load.results.slice(from).some((r) => r.node === server) || undefined,
      CROSS_NODE_WAIT_MS,
      `${server} to serve again`,
    );
    const results = await load.stop();
    const failed = results.filter((r) => r.status !== 200);
    t.diagnostic(
      `rolling restart: SIGTERM → exit ${exitedAt - stoppedAt} ms, → HAProxy down ${downAt - stoppedAt} ms, ` +
        `back up ${upAt - stoppedAt} ms after the SIGTERM; ${results.length} GETs, ${failed.length} answered 503 ` +
        `by the draining node (shutdownDrainMs 200), none lost otherwise`,
    );
    // A drain answers 503 service_unavailable (retryable) and closes; nothing else may reach a client: no reset, no
    // 502 from a connection the node dropped.
    for (const f of failed)
      assert.deepEqual({ status: f.status, node: f.node }, { status: 503, node: server });
  });

  test('WebSocket: a client on one node follows the book another node feeds; the feeder dies and the survivor takes over', async (t) => {
    const live = nodes.filter(alive);
    assert.equal(live.length, 2);
    const markets = (await polymarketMarkets()).filter((m) => m.outcomes.every((o) => o.token_id));
    // A book nobody has asked for yet, so the first subscriber's node takes its feed.
    const market = markets[markets.length - 1] as Listed;
    const token = market.outcomes[0]?.token_id as string;
    const wsUrl = `${lb.url.replace(/^http/, 'ws')}/ws`;

    const subscribe = async (client: WsTestClient) => {
      client.send({ type: 'auth', api_key: ADMIN_KEY });
      await client.next((m) => m.type === 'auth_ok', 0, CROSS_NODE_WAIT_MS);
      const from = client.mark;
      client.send({ type: 'subscribe', markets: [{ svc_id: market.svc_id, depth: 5 }] });
      return client.next(
        (m) => m.type === 'orderbook' && m.svc_id === market.svc_id,
        from,
        CROSS_NODE_WAIT_MS,
      );
    };
    const open = async () => {
      const c = await WsTestClient.open(wsUrl);
      clients.push(c);
      return c;
    };

    // The feeder: the first client's node takes the book's lease and subscribes upstream.
    const feederClient = await open();
    const feeder = nodeOf(feederClient.upgradeHeaders);
    assert.equal((await subscribe(feederClient)).book_state, 'fresh');
    // The follower: a connection the balancer gives to the other live node (round robin: the next one or so).
    let follower: WsTestClient | undefined;
    for (let i = 0; i < 6 && !follower; i++) {
      const c = await open();
      if (nodeOf(c.upgradeHeaders) !== feeder) follower = c;
      else c.close();
    }
    assert.ok(follower, 'the balancer gave a WebSocket to the other node');
    const followerNode = nodeOf(follower.upgradeHeaders);
    const snapshot = await subscribe(follower);
    assert.equal(snapshot.book_state, 'fresh');
    assert.equal(await upstreamSubscriptions(token), 1, 'one upstream subscription for the two nodes');
    const leases = await scanKeys(`${PREFIX}:book:*:lease`);
    assert.equal(leases.length > 0, true, 'the feeding node holds the book’s lease in Redis');

    // The follower gets the feeder's changes: move the book until its client has seen a few deltas.
    const deltaFrom = follower.mark;
    await waitFor(
      async () => {
        await sim('POST', 'advance', { steps: 3 });
        return (
          follower.messages
            .slice(deltaFrom)
            .filter((m) => m.type === 'orderbook_delta' && m.svc_id === market.svc_id).length >= 5 ||
          undefined
        );
      },
      CROSS_NODE_WAIT_MS,
      'deltas on the follower’s client',
    );
    assert.equal(await upstreamSubscriptions(token), 1);
    // What the hop through Redis costs: for each book state both clients reached, how much later the follower's
    // client had it than the feeder's (a measurement only).
    const fedAt = bookStates(feederClient, market.svc_id);
    const hops = [...bookStates(follower, market.svc_id)].flatMap(([state, at]) => {
      const fed = fedAt.get(state);
      return fed === undefined ? [] : [at - fed];
    });
    hops.sort((a, b) => a - b);

    // WebSocket usage is the cluster's: both live nodes count both sockets.
    for (const n of live) {
      await waitFor(
        async () => {
          const res = await send(n.url, ADMIN_KEY, '/api/v1/ws/usage?scope=global');
          assert.equal(res.status, 200, res.text);
          const { totals } = res.body as WsUsageReport;
          return (totals.active_connections === 2 && totals.active_subscriptions === 2) || undefined;
        },
        CROSS_NODE_WAIT_MS,
        'each node to count both nodes’ sockets',
      );
    }

    // The feeder dies: the follower's client sees the book stale, then resync_required and a fresh snapshot
    // from the node that took the feed over, the survivor.
    const killedFrom = follower.mark;
    const killedAt = Date.now();
    (nodes[feeder] as ServerProcess).child.kill('SIGKILL');
    const stale = await follower.next(
      (m) => m.svc_id === market.svc_id && m.book_state === 'stale',
      killedFrom,
      CROSS_NODE_WAIT_MS,
    );
    const staleAt = Date.now();
    const resync = await follower.next(
      (m) => m.type === 'resync_required' && m.svc_id === market.svc_id,
      killedFrom,
      CROSS_NODE_WAIT_MS,
    );
    const fresh = await follower.next(
      (m) => m.type === 'orderbook' && m.svc_id === market.svc_id,
      follower.messages.indexOf(resync),
      CROSS_NODE_WAIT_MS,
    );
    const resumedAt = Date.now();
    assert.equal(fresh.book_state, 'fresh');
    assert.ok(follower.messages.indexOf(stale) < follower.messages.indexOf(resync), 'stale before resync');
    await waitFor(
      async () => (await upstreamSubscriptions(token)) === 1 || undefined,
      CROSS_NODE_WAIT_MS,
      'the survivor’s own upstream subscription',
    );
    // The feed goes on from the survivor: the book moves again for its client.
    const movedFrom = follower.mark;
    await waitFor(
      async () => {
        await sim('POST', 'advance', { steps: 3 });
        return (
          follower.messages
            .slice(movedFrom)
            .some((m) => m.type === 'orderbook_delta' && m.svc_id === market.svc_id) || undefined
        );
      },
      CROSS_NODE_WAIT_MS,
      'a delta from the survivor’s feed',
    );

    // The client whose node died reconnects through the balancer: it lands on the survivor and gets the book.
    await feederClient.waitClosed();
    const reconnectAt = Date.now();
    const again = await open();
    assert.equal(nodeOf(again.upgradeHeaders), followerNode, 'the balancer sends it to the live node');
    assert.equal((await subscribe(again)).book_state, 'fresh');
    const reconnectedAt = Date.now();
    t.diagnostic(
      `WebSocket feed failover: kill → stale on the survivor's client ${staleAt - killedAt} ms, kill → fresh ` +
        `snapshot there ${resumedAt - killedAt} ms (feedLeaseMs ${FEED_LEASE_MS}); a client of the dead node ` +
        `reconnected and got the book in ${reconnectedAt - reconnectAt} ms; fan-out through Redis: the follower's ` +
        `client had each of ${hops.length} book states ${hops[Math.floor(hops.length / 2)]?.toFixed(1)} ms ` +
        `(median; max ${hops[hops.length - 1]?.toFixed(1)} ms) after the feeder's client`,
    );
  });
});
