// The WebSocket gateway against clients that try to exhaust it (issue 31, items 1, 3 and 11), through the real
// server in this process so its memory can be read: a client that stops reading and floods small frames, with and
// without a key, is closed and the server's heap returns to its baseline; a run of rate-limited frames gets one
// answer; messages waiting behind a slow one are bounded; a client that never authenticates (and never reads) is
// terminated at the deadline; unauthenticated
// connections and a customer's connections are capped; an `auth_error` closes the socket; concurrent auth frames;
// and a key revoked through the API or with the CLI (another process) closes its sockets with 4003.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import WebSocket from 'ws';
import { simControl, startCatalogueServer } from '../../support/catalogue.js';
import { runCli } from '../../support/cli.js';
import { startTestServer, type TestServer, waitFor } from '../../support/server.js';
import { type WsMessage, WsTestClient } from '../../support/ws-client.js';

// A full collection before each heap reading, so what is measured is what the server still holds.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const AUTH_TIMEOUT_MS = 2_000;
const MAX_UNAUTHENTICATED = 4;
const FREE_CONNECTIONS = 2;
/** A bound on waiting for the server to act; what the tests wait for is the event itself. */
const DEADLINE_MS = 15_000;

let server: TestServer;
let wsUrl: string;
const clients: WsTestClient[] = [];

before(async () => {
  server = await startTestServer({
    config: {
      websocket: {
        authTimeoutMs: AUTH_TIMEOUT_MS,
        maxUnauthenticated: MAX_UNAUTHENTICATED,
        maxConnectionsPerCustomer: { free: FREE_CONNECTIONS, pro: 0, scale: 0, admin: 0 },
      },
    },
  });
  wsUrl = `${server.url.replace(/^http/, 'ws')}/ws`;
});
after(async () => {
  for (const c of clients) c.socket.terminate();
  await server?.stop();
});

async function connect(): Promise<WsTestClient> {
  const client = await WsTestClient.open(wsUrl);
  clients.push(client);
  return client;
}

async function authed(key = server.adminKey): Promise<WsTestClient> {
  const client = await connect();
  client.send({ type: 'auth', api_key: key });
  await client.next((m) => m.type === 'auth_ok');
  return client;
}

async function newKey(tier: string): Promise<{ id: string; key: string }> {
  const res = await server.request('/api/v1/keys', { method: 'POST', body: { tier } });
  assert.equal(res.status, 201, res.text);
  return res.body as { id: string; key: string };
}

/** The server's open WebSockets (every one, authenticated or not), from its own usage counters. */
async function activeConnections(): Promise<number> {
  const res = await server.request('/api/v1/ws/usage?scope=global');
  assert.equal(res.status, 200, res.text);
  return (res.body as { totals: { active_connections: number } }).totals.active_connections;
}

/** Waits until the server holds exactly `n` WebSockets. */
async function serverHolds(n: number, what: string): Promise<void> {
  await waitFor(async () => (await activeConnections()) === n, DEADLINE_MS, what);
}

/** The close the server gave, with a deadline so a server that never closes fails the test instead of hanging it. */
async function closedWithin(client: WsTestClient): Promise<{ code: number; reason: string }> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`socket still open after ${DEADLINE_MS} ms`)), DEADLINE_MS);
  });
  try {
    return await Promise.race([client.waitClosed(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function heapMiB(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

/**
 * Floods from a client that does not read: `frames` small frames (text and binary), sent as fast as the socket
 * takes them. Resolves once they are all handed to the kernel or the server has cut the socket.
 */
function flood(client: WsTestClient, frames: number): Promise<void> {
  client.socket.pause();
  return new Promise((resolve) => {
    let sent = 0;
    const pump = () => {
      while (sent < frames && client.socket.readyState === WebSocket.OPEN) {
        client.socket.send(sent % 2 === 0 ? 'x' : Buffer.from([sent & 0xff]), { binary: sent % 2 === 1 });
        sent += 1;
        // Yields now and then, so the server side (same process) reads while the flood goes on.
        if (sent % 1_000 === 0) return void setImmediate(pump);
      }
      resolve();
    };
    pump();
  });
}

const isError = (code: number) => (m: WsMessage) => m.type === 'error' && m.code === code;

describe('a client that floods and does not read', () => {
  for (const withKey of [false, true]) {
    test(`${withKey ? 'authenticated' : 'without a key'}: 50,000 small frames close the socket and the server's heap returns to its baseline`, async () => {
      // Warm: the gateway, the usage route and one connection's code paths exist before the baseline is read.
      (await authed()).close();
      await serverHolds(0, 'the warm-up connection to end');
      const baseline = heapMiB();

      const client = withKey ? await authed() : await connect();
      await flood(client, 50_000);
      await serverHolds(0, 'the flooding connection to be closed');
      // The server cut it; resumed, the client sees the end (1008 when the close frame got through before the
      // socket was cut, 1006 when it did not: a client that does not read is not owed a handshake).
      client.socket.resume();
      const closed = await closedWithin(client);
      assert.ok([1008, 1006].includes(closed.code), `closed with ${closed.code}`);
      const answers = client.messages.filter(isError(3001)).length;
      assert.ok(answers <= 2, `one rate_limited answer per run of refusals, not one per frame: ${answers}`);

      const after = heapMiB();
      assert.ok(
        after < baseline + 16,
        `heap ${baseline.toFixed(1)} MiB before, ${after.toFixed(1)} MiB after`,
      );
    });
  }

  test('a client that reads and floods is answered 3001 once for the run of refused frames, then closed with 1008', async () => {
    const client = await authed();
    const from = client.mark;
    for (let i = 0; i < 1_000; i++) client.send({ type: 'unsubscribe', markets: [{ svc_id: 'nonsense' }] });
    const closed = await closedWithin(client);
    assert.equal(closed.code, 1008);
    const limited = client.messages.slice(from).filter(isError(3001));
    assert.ok(limited.length >= 1 && limited.length <= 2, `${limited.length} rate_limited answers`);
    assert.equal(typeof limited[0]?.retry_after_ms, 'number');
    await serverHolds(0, 'the flooding connection to be gone');
  });

  test('a client that neither authenticates nor reads is terminated at the auth deadline', async () => {
    const client = await connect();
    client.socket.pause();
    await serverHolds(0, 'the connection that never authenticated to be terminated');
    client.socket.resume();
    const closed = await closedWithin(client);
    assert.ok([4001, 1006].includes(closed.code), `closed with ${closed.code}`);
  });
});

test('messages waiting behind one that is slow to handle are bounded: past 16 the next is refused (3001)', async () => {
  // A venue lookup held by the simulator (an unknown polymarket market) keeps the first message in hand; the ones
  // after it are sent slower than 3 a second, so the bucket alone would take them all, and they wait behind it.
  const cat = await startCatalogueServer(5, { config: { venues: { timeoutMs: 60_000 } } });
  try {
    const client = await WsTestClient.open(`${cat.server.url.replace(/^http/, 'ws')}/ws`);
    client.send({ type: 'auth', api_key: cat.server.adminKey });
    await client.next((m) => m.type === 'auth_ok');
    await simControl(cat, 'polymarket', 'POST', 'faults', { latency_ms: 120_000 });
    const from = client.mark;
    client.send({ type: 'subscribe', markets: [{ svc_id: `polymarket:0x${'ab'.repeat(32)}` }] });
    const refused = client.next(isError(3001), from);
    for (let i = 0; i < 20 && client.mark === from; i++) {
      await new Promise((r) => setTimeout(r, 400));
      client.send({ type: 'unsubscribe', markets: [{ svc_id: 'nonsense' }] });
    }
    await refused;
    assert.equal(
      client.messages.slice(from).filter(isError(2001)).length,
      0,
      'none handled while one is held',
    );
    await simControl(cat, 'polymarket', 'DELETE', 'faults');
    client.socket.terminate();
  } finally {
    await cat.stop();
  }
});

describe('connection caps', () => {
  test(`at most ${MAX_UNAUTHENTICATED} unauthenticated connections: one more upgrade is a 429 in the API's error shape`, async () => {
    const waiting = await Promise.all(Array.from({ length: MAX_UNAUTHENTICATED }, () => connect()));
    const refused = await new Promise<{ status: number; body: unknown; headers: Record<string, unknown> }>(
      (resolve, reject) => {
        const ws = new WebSocket(wsUrl);
        ws.once('open', () => reject(new Error('the upgrade past the cap was accepted')));
        ws.once('unexpected-response', (_req, res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), headers: res.headers }),
          );
        });
        ws.once('error', () => {});
      },
    );
    assert.equal(refused.status, 429);
    assert.deepEqual(Object.keys(refused.body as object).sort(), ['code', 'error', 'retryable']);
    assert.equal((refused.body as { retryable: boolean }).retryable, true);
    assert.equal(refused.headers['retry-after'], '1');
    // An authenticated connection frees its unauthenticated seat: the next one is taken.
    const first = waiting[0];
    assert.ok(first);
    first.send({ type: 'auth', api_key: server.adminKey });
    await first.next((m) => m.type === 'auth_ok');
    (await connect()).close();
    for (const c of waiting) c.close();
    await serverHolds(0, 'the capped connections to end');
  });

  test(`a free key holds at most ${FREE_CONNECTIONS} connections: one more is refused after auth (3001, close 4008)`, async () => {
    const { key } = await newKey('free');
    const held = [];
    for (let i = 0; i < FREE_CONNECTIONS; i++) held.push(await authed(key));
    const extra = await connect();
    extra.send({ type: 'auth', api_key: key });
    const refusal = await extra.next(isError(3001));
    assert.match(String(refusal.message), /2 WebSocket connections/);
    assert.equal((await closedWithin(extra)).code, 4008);
    // A seat freed is a seat to take.
    held[0]?.close();
    await serverHolds(FREE_CONNECTIONS - 1, 'the released connection to end');
    held.push(await authed(key));
    for (const c of held) c.close();
    await serverHolds(0, 'the customer connections to end');
  });
});

describe('auth', () => {
  test('a refused key is auth_error 1002, then the socket is closed with 4001', async () => {
    const client = await connect();
    client.send({ type: 'auth', api_key: 'ob_not-a-key' });
    const refused = await client.next((m) => m.type === 'auth_error');
    assert.equal(refused.code, 1002);
    // At once, not at the auth deadline (which closes with 4001 'auth timeout').
    assert.deepEqual(await closedWithin(client), { code: 4001, reason: 'auth failed' });
  });

  test('two auth frames at once: the first is answered auth_ok, the second then "already authenticated"', async () => {
    // A new key: not in the server's key cache, so its check takes a database read while the second frame waits.
    const { key } = await newKey('pro');
    const client = await connect();
    client.send({ type: 'auth', api_key: key });
    client.send({ type: 'auth', api_key: key });
    const second = await client.next(isError(1002));
    assert.equal(client.messages[0]?.type, 'auth_ok', JSON.stringify(client.messages));
    assert.match(String(second.message), /already authenticated/);
    assert.equal(client.closed, null);
    client.close();
  });
});

describe('revocation reaches open sockets', () => {
  test('DELETE /api/v1/keys/:id closes the key’s sockets with 4003', async () => {
    const { id, key } = await newKey('pro');
    const a = await authed(key);
    const b = await authed(key);
    const other = await authed();
    const res = await server.request(`/api/v1/keys/${id}`, { method: 'DELETE' });
    assert.equal(res.status, 200, res.text);
    for (const c of [a, b])
      assert.deepEqual(await closedWithin(c), { code: 4003, reason: 'api key revoked' });
    assert.equal(other.closed, null, "another key's socket stays open");
    other.close();
  });

  test('`omnibook keys revoke` in another process closes the key’s sockets with 4003 (the sweep)', async () => {
    const { id, key } = await newKey('pro');
    const client = await authed(key);
    const revoked = await runCli(['keys', 'revoke', id, '--data-dir', server.dataDir], {
      DATABASE_URL: '',
      REDIS_URL: '',
      OMNIBOOK_CONFIG: '',
      OMNIBOOK_DATA_DIR: '',
      LOG_LEVEL: 'warn',
    });
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.deepEqual(await closedWithin(client), { code: 4003, reason: 'api key revoked' });
  });
});
