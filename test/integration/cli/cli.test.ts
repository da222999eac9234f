// The `omnibook` command as a user runs it: real child processes, real SQLite files, real PostgreSQL.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { hashApiKey } from '../../../src/tenancy/key-material.js';
import { runCli, type ServerProcess, startServerProcess } from '../../support/cli.js';
import { assertError } from '../../support/error-shape.js';
import { send, waitFor } from '../../support/server.js';
import { createPgSchema, TEST_DATABASE_URL, uniqueName } from '../../support/services.js';

/** Blanks every variable the CLI reads, so the caller's environment cannot change what a test exercises. */
const BASE_ENV: Record<string, string> = {
  DATABASE_URL: '',
  REDIS_URL: '',
  OMNIBOOK_ADMIN_KEY: '',
  OMNIBOOK_CONFIG: '',
  OMNIBOOK_DATA_DIR: '',
  PORT: '',
  HOST: '',
  LOG_LEVEL: 'warn',
};

const tempDirs: string[] = [];
const servers: ServerProcess[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'omnibook-cli-'));
  tempDirs.push(dir);
  return dir;
}

async function startSandbox(dataDir: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const server = await startServerProcess(['sandbox', '--port', '0', '--data-dir', dataDir], {
    ...BASE_ENV,
    ...env,
  });
  servers.push(server);
  return server;
}

/** Stops a server and returns its exit code (SIGTERM; the process must exit by itself). */
async function stopServer(server: ServerProcess): Promise<number | null> {
  return server.stop();
}

after(async () => {
  // Anything a failed test left running: SIGKILL, so cleanup never waits for a broken shutdown.
  for (const s of servers)
    if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

interface CreatedKey {
  id: string;
  key: string;
  name: string;
  tier: string;
  prefix: string;
  revoked_at: string | null;
  mcp_trading: boolean;
}

async function createKey(dataDir: string, ...extra: string[]): Promise<CreatedKey> {
  const res = await runCli(['keys', 'create', ...extra, '--json', '--data-dir', dataDir], BASE_ENV);
  assert.equal(res.code, 0, `keys create failed: ${res.stderr}`);
  return JSON.parse(res.stdout) as CreatedKey;
}

async function listKeys(dataDir: string): Promise<{ list: CreatedKey[]; raw: string }> {
  const res = await runCli(['keys', 'list', '--json', '--data-dir', dataDir], BASE_ENV);
  assert.equal(res.code, 0, `keys list failed: ${res.stderr}`);
  return { list: JSON.parse(res.stdout) as CreatedKey[], raw: res.stdout + res.stderr };
}

describe('keys create / list / revoke', () => {
  const dataDir = tempDir();

  test('--mcp-trading stores the flag that enables the MCP order tools for the key', async () => {
    const created = await createKey(dataDir, '--tier', 'pro', '--mcp-trading');
    assert.equal(created.mcp_trading, true);
  });

  test('a created pro key is listed with its tier and without any clear key or hash', async () => {
    const created = await createKey(dataDir, '--tier', 'pro', '--name', 'cli test');
    assert.equal(created.tier, 'pro');
    assert.equal(created.mcp_trading, false, 'the MCP order tools are off unless asked for');
    assert.match(created.key, /^ob_/);
    assert.match(created.id, /^key_/);

    const { list, raw } = await listKeys(dataDir);
    const listed = list.find((k) => k.id === created.id);
    assert.ok(listed, `key ${created.id} missing from ${raw}`);
    assert.equal(listed.tier, 'pro');
    assert.equal(listed.revoked_at, null);
    assert.ok(!('key' in listed), 'list shows a clear key field');
    assert.ok(!raw.includes(created.key), 'clear key printed by keys list --json');
    assert.ok(!raw.includes(hashApiKey(created.key)), 'key hash printed by keys list --json');
    assert.ok(!raw.includes('key_hash'));

    const text = await runCli(['keys', 'list', '--data-dir', dataDir], BASE_ENV);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`^${created.id}\\t.*\\tpro\\tactive\\tcli test$`, 'm'));
    assert.ok(!(text.stdout + text.stderr).includes(created.key), 'clear key printed by keys list');
    assert.ok(
      !(text.stdout + text.stderr).includes(hashApiKey(created.key)),
      'key hash printed by keys list',
    );
  });

  test('revoke marks the key revoked; revoking again exits 1', async () => {
    const created = await createKey(dataDir, '--tier', 'pro');
    const revoked = await runCli(['keys', 'revoke', created.id, '--data-dir', dataDir], BASE_ENV);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.match(revoked.stdout, new RegExp(`revoked ${created.id}`));

    const listed = (await listKeys(dataDir)).list.find((k) => k.id === created.id);
    assert.ok(listed);
    assert.equal(typeof listed.revoked_at, 'string');
    assert.ok(!Number.isNaN(Date.parse(listed.revoked_at ?? '')), `revoked_at ${listed.revoked_at}`);

    const again = await runCli(['keys', 'revoke', created.id, '--data-dir', dataDir], BASE_ENV);
    assert.equal(again.code, 1, `second revoke: ${again.stdout}${again.stderr}`);
    assert.match(again.stderr, /no active key/);
  });

  test('an unknown tier exits 2 and names the valid ones', async () => {
    const res = await runCli(['keys', 'create', '--tier', 'platinum', '--data-dir', dataDir], BASE_ENV);
    assert.equal(res.code, 2, res.stdout + res.stderr);
    assert.match(res.stderr, /--tier must be one of free, pro, scale, admin/);
    assert.equal(res.stdout, '', 'no key may be printed for a refused creation');
  });
});

describe('sandbox', () => {
  test('without OMNIBOOK_ADMIN_KEY it prints a banner with a working key and one listening line', async () => {
    const server = await startSandbox(tempDir());
    const out = server.stdout();
    assert.match(out, /^Omnibook sandbox: /m);
    const listening = out.split('\n').filter((l) => l.startsWith('listening on'));
    assert.equal(listening.length, 1, out);
    assert.match(listening[0] ?? '', /^listening on http:\/\/127\.0\.0\.1:[1-9]\d*$/);
    assert.equal(`listening on ${server.url}`, listening[0]);

    const key = /^API key \(admin tier[^)]*\): (ob_\S+)$/m.exec(out)?.[1];
    assert.ok(key, `no API key in the banner:\n${out}`);
    const res = await send(server.url, key, '/api/v1/exchanges');
    assert.equal(res.status, 200, res.text);
    assert.ok(Array.isArray(res.body));
    assert.ok(!server.stderr().includes(key), 'the banner key leaked into the logs');
    assert.equal(await stopServer(server), 0, server.stderr());
  });

  describe('with OMNIBOOK_ADMIN_KEY', () => {
    const dataDir = tempDir();
    const adminKey = uniqueName('admin_key_for_cli_tests');
    let server: ServerProcess;
    before(async () => {
      server = await startSandbox(dataDir, { OMNIBOOK_ADMIN_KEY: adminKey });
    });

    test('the banner points at the admin key without printing it, and that key works', async () => {
      const out = server.stdout();
      assert.match(out, /^API key: the value of OMNIBOOK_ADMIN_KEY/m);
      assert.equal(out.split('\n').filter((l) => l.startsWith('listening on')).length, 1, out);
      assert.ok(!out.includes(adminKey), 'the admin key was printed');
      const res = await send(server.url, adminKey, '/api/v1/exchanges');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers.get('x-svc-tier'), 'admin');
    });

    test('a second server on the same data directory exits 2 and says why; the first keeps serving', async () => {
      const accounts = readFileSync(join(dataDir, 'sandbox-accounts.json'), 'utf8');
      const second = await runCli(['sandbox', '--port', '0', '--data-dir', dataDir], {
        ...BASE_ENV,
        OMNIBOOK_ADMIN_KEY: adminKey,
      });
      assert.equal(second.code, 2, second.stdout + second.stderr);
      assert.match(second.stderr, /another omnibook server is using the data directory .*set DATABASE_URL/);
      assert.ok(!second.stdout.includes('listening on'), second.stdout);
      // It stopped before writing anything there: the first sandbox's accounts are untouched.
      assert.equal(readFileSync(join(dataDir, 'sandbox-accounts.json'), 'utf8'), accounts);
      assert.equal((await send(server.url, adminKey, '/api/v1/exchanges')).status, 200);
      // The CLI's own commands still open the database beside the running server.
      assert.equal((await createKey(dataDir, '--tier', 'free')).tier, 'free');
    });

    test('a key revoked with the CLI is refused by the running server once its cached entry expires', async () => {
      // How long the cache may keep a revoked key is proven on an injected clock (foundation-store.test.ts); here
      // the two real processes show that the revocation reaches the server at all.
      const created = await createKey(dataDir, '--tier', 'free');
      // Used once first, so the server holds it in its key cache as valid.
      assert.equal((await send(server.url, created.key, '/api/v1/exchanges')).status, 200);
      const revoked = await runCli(['keys', 'revoke', created.id, '--data-dir', dataDir], BASE_ENV);
      assert.equal(revoked.code, 0, revoked.stderr);
      const refused = await waitFor(
        async () => {
          const res = await send(server.url, created.key, '/api/v1/exchanges');
          return res.status === 401 ? res : undefined;
        },
        30_000,
        'the revoked key to be refused',
      );
      assertError(refused, 401, 'unauthorized');
      assert.match((refused.body as { error: string }).error, /revoked/);
    });

    let drained503: RawResponse | undefined;

    test('SIGTERM: requests already received complete, later ones get 503, then the process exits 0', async () => {
      // Each request sends its headers with `Expect: 100-continue`; the server's `100 Continue` proves it has
      // parsed them, so the request is in flight on the server. The bodies are sent only after the server has
      // begun closing (it refuses new connections), and every one of these requests must still be answered.
      const agent = new http.Agent({ keepAlive: false });
      const inFlight = Array.from({ length: 4 }, (_, i) =>
        slowPost(server.url, adminKey, agent, `in flight ${i}`),
      );
      // One more on a raw socket, which then pipelines a second request that arrives after close began.
      const raw = await RawConnection.open(server.url);
      const rawBody = JSON.stringify({ tier: 'free', name: 'raw in flight' });
      raw.write(
        `POST /api/v1/keys HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${Buffer.byteLength(rawBody)}\r\nExpect: 100-continue\r\nX-API-Key: ${adminKey}\r\n\r\n`,
      );
      await Promise.all([...inFlight.map((r) => r.continued), raw.waitFor('HTTP/1.1 100 Continue\r\n\r\n')]);

      const exited = server.stop();
      await waitUntilRefusing(server.url);
      for (const r of inFlight) r.finish();
      raw.write(`${rawBody}GET /api/v1/exchanges HTTP/1.1\r\nHost: x\r\nX-API-Key: ${adminKey}\r\n\r\n`);

      const responses = await Promise.all(inFlight.map((r) => r.response));
      for (const res of responses) {
        assert.equal(res.status, 201, res.text);
        const body = JSON.parse(res.text) as { key?: string };
        assert.match(body.key ?? '', /^ob_/);
      }
      const [created, late, ...rest] = parseResponses(await raw.untilClosed());
      assert.equal(rest.length, 0);
      assert.equal(created?.status, 201, created?.body);
      assert.match((JSON.parse(created?.body ?? '{}') as { key?: string }).key ?? '', /^ob_/);
      // The pipelined request arrived after close began: 503, as well-formed JSON, closing the connection.
      assert.equal(late?.status, 503, late?.body);
      assert.equal(late?.headers.connection, 'close');
      assert.doesNotThrow(() => JSON.parse(late?.body ?? ''), `503 body is not JSON: ${late?.body}`);
      drained503 = late;

      assert.equal(await exited, 0, `exit code; stderr:\n${server.stderr()}`);
      agent.destroy();
    });

    test('the 503 answered while draining has the error shape of the wire contract', () => {
      assert.ok(drained503, 'the previous test did not get a 503');
      assertError(
        {
          status: drained503.status,
          headers: new Headers(),
          body: JSON.parse(drained503.body),
          text: drained503.body,
        },
        503,
        'service_unavailable',
      );
    });
  });

  test('SIGTERM with keep-alive clients: in-flight requests complete and the process exits 0 by itself', async (t) => {
    const adminKey = uniqueName('admin_key_for_cli_tests');
    const server = await startSandbox(tempDir(), { OMNIBOOK_ADMIN_KEY: adminKey });
    const agent = new http.Agent({ keepAlive: true });
    try {
      const inFlight = Array.from({ length: 3 }, (_, i) =>
        slowPost(server.url, adminKey, agent, `keep-alive ${i}`),
      );
      await Promise.all(inFlight.map((r) => r.continued));
      const started = Date.now();
      const exited = server.stop();
      await waitUntilRefusing(server.url);
      for (const r of inFlight) r.finish();
      for (const res of await Promise.all(inFlight.map((r) => r.response)))
        assert.equal(res.status, 201, res.text);
      // The answered connections stay open and idle in the agent's pool. The server must close them itself: were
      // it to wait for their keep-alive timeout (72 s), the exit would miss this bound, which is there so that a
      // hang fails with a message; the time taken is reported, never asserted.
      const code = await boundedWait(exited, 30_000, 'the process to exit after SIGTERM');
      t.diagnostic(`shutdown took ${Date.now() - started} ms`);
      assert.equal(code, 0, server.stderr());
    } finally {
      agent.destroy();
    }
  });

  test('SIGTERM right after firing concurrent requests: each is answered in JSON, or was never processed', async () => {
    const adminKey = uniqueName('admin_key_for_cli_tests');
    const dataDir = tempDir();
    const server = await startSandbox(dataDir, { OMNIBOOK_ADMIN_KEY: adminKey });
    // Each request creates a key under its own name, so the database tells afterwards which ones were processed.
    const names = Array.from({ length: 8 }, (_, i) => uniqueName(`sigterm_${i}`));
    const outcomes = names.map((name) =>
      fetch(`${server.url}/api/v1/keys`, {
        method: 'POST',
        headers: { 'x-api-key': adminKey, 'content-type': 'application/json' },
        body: JSON.stringify({ tier: 'free', name }),
      }).then(
        async (res) => ({ name, status: res.status, text: await res.text(), error: null as string | null }),
        (error: Error & { cause?: { code?: string } }) => ({
          name,
          status: 0,
          text: '',
          error: error.cause?.code ?? error.message,
        }),
      ),
    );
    server.child.kill('SIGTERM');
    const results = await Promise.all(outcomes);
    assert.equal(await server.stop(), 0, server.stderr());
    const stored = new Set((await listKeys(dataDir)).list.map((k) => k.name));
    for (const r of results) {
      if (r.error !== null) {
        // Refused after the listener closed, or cut before the server read it (a connection the kernel queued
        // while a starved process could not accept it): either way never processed, so nothing was lost.
        assert.ok(
          ['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET'].includes(r.error),
          `a request failed with ${r.error}`,
        );
        assert.ok(!stored.has(r.name), `${r.name} was processed but its answer was lost (${r.error})`);
        continue;
      }
      assert.ok(r.status === 201 || r.status === 503, `status ${r.status}: ${r.text}`);
      assert.doesNotThrow(() => JSON.parse(r.text), `not JSON: ${r.text}`);
      assert.equal(stored.has(r.name), r.status === 201, `${r.name}: answered ${r.status}`);
    }
  });
});

describe('migrate and command dispatch', () => {
  test('migrate applies the migrations, then reports the database up to date', async () => {
    const dataDir = tempDir();
    const first = await runCli(['migrate', '--data-dir', dataDir], BASE_ENV);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^applied 0001-foundation(, [\w-]+)* on .*omnibook\.sqlite$/m);
    const second = await runCli(['migrate', '--data-dir', dataDir], BASE_ENV);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /omnibook\.sqlite is up to date$/m);
  });

  test('an unknown command exits 2 with the help text', async () => {
    const res = await runCli(['frobnicate'], BASE_ENV);
    assert.equal(res.code, 2);
    assert.match(res.stderr, /unknown command 'frobnicate'/);
    assert.match(res.stderr, /usage: omnibook <command>/);
  });
});

describe('serve on PostgreSQL', () => {
  let schema: Awaited<ReturnType<typeof createPgSchema>>;
  before(async () => {
    schema = await createPgSchema();
  });
  after(() => schema?.drop());

  test('serve with DATABASE_URL migrates into the search_path schema and reports dialect postgres', async () => {
    const databaseUrl = schema.url;
    const adminKey = uniqueName('admin_key_for_cli_tests');
    const server = await startServerProcess(['serve', '--port', '0', '--data-dir', tempDir()], {
      ...BASE_ENV,
      // Tests stay off the internet: serve would otherwise start syncing the live exchanges' catalogues.
      OMNIBOOK_CATALOGUE_SYNC: '0',
      DATABASE_URL: databaseUrl,
      OMNIBOOK_ADMIN_KEY: adminKey,
    });
    servers.push(server);

    const health = await send(server.url, adminKey, '/healthz', { key: null });
    assert.equal(health.status, 200, health.text);
    const report = health.body as { mode: string; database: { ok: boolean; dialect: string } };
    assert.equal(report.mode, 'serve');
    assert.deepEqual(report.database, { ok: true, dialect: 'postgres' });
    assert.equal((await send(server.url, adminKey, '/api/v1/exchanges')).status, 200);

    // The schema in the URL was honoured: the tables and the admin key row are in it.
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    try {
      const tables = await client.query<{ table_name: string }>(
        'select table_name from information_schema.tables where table_schema = $1',
        [schema.schema],
      );
      const names = tables.rows.map((r) => r.table_name);
      assert.ok(names.includes('api_keys'), `tables in ${schema.schema}: ${names.join(', ')}`);
      const admin = await client.query(`select tier from ${schema.schema}.api_keys where key_hash = $1`, [
        hashApiKey(adminKey),
      ]);
      assert.equal(admin.rows[0]?.tier, 'admin');
    } finally {
      await client.end();
    }
    assert.equal(await stopServer(server), 0, server.stderr());
  });
});

// ---------------------------------------------------------------------------------------------------------------

interface SlowPost {
  /** Resolves when the server has answered `100 Continue`, i.e. it has received and parsed the headers. */
  continued: Promise<void>;
  /** Sends the body. */
  finish(): void;
  response: Promise<{ status: number; text: string }>;
}

/** POST /api/v1/keys whose body is held back until `finish()`. */
function slowPost(baseUrl: string, key: string, agent: http.Agent, name: string): SlowPost {
  const body = JSON.stringify({ tier: 'free', name });
  const req = http.request(`${baseUrl}/api/v1/keys`, {
    method: 'POST',
    agent,
    headers: {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      expect: '100-continue',
      'x-api-key': key,
    },
  });
  const continued = new Promise<void>((resolve, reject) => {
    req.once('continue', () => resolve());
    req.once('error', reject);
  });
  const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req.once('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  continued.catch(() => undefined);
  response.catch(() => undefined);
  req.flushHeaders();
  return { continued, response, finish: () => req.end(body) };
}

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A plain TCP connection speaking HTTP/1.1 by hand, for pipelining and exact control over timing. */
class RawConnection {
  private received = '';
  private readonly closed: Promise<string>;
  private readonly listeners = new Set<() => void>();

  private constructor(private readonly socket: net.Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.received += chunk;
      for (const l of this.listeners) l();
    });
    this.closed = new Promise((resolve, reject) => {
      socket.once('close', () => resolve(this.received));
      socket.once('error', reject);
    });
    this.closed.catch(() => undefined);
  }

  static open(baseUrl: string): Promise<RawConnection> {
    const { hostname, port } = new URL(baseUrl);
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(port), hostname, () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  write(text: string): void {
    this.socket.write(text);
  }

  /** Resolves once `text` has been received. */
  waitFor(text: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (this.received.includes(text)) {
          this.listeners.delete(check);
          resolve();
        }
      };
      this.listeners.add(check);
      this.closed.then(() => reject(new Error(`connection closed before ${JSON.stringify(text)}`)), reject);
      check();
    });
  }

  /** Everything received, once the server has closed the connection. */
  untilClosed(): Promise<string> {
    return this.closed;
  }
}

/** Splits a stream of HTTP/1.1 responses with Content-Length bodies; interim 1xx responses are skipped. */
function parseResponses(stream: string): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = stream;
  while (rest.length > 0) {
    const headEnd = rest.indexOf('\r\n\r\n');
    assert.ok(headEnd > 0, `incomplete response: ${JSON.stringify(rest)}`);
    const [statusLine = '', ...headerLines] = rest.slice(0, headEnd).split('\r\n');
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1]);
    const headers: Record<string, string> = {};
    for (const line of headerLines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    const bodyStart = headEnd + 4;
    const bodyBytes = Buffer.from(rest.slice(bodyStart), 'utf8');
    assert.ok(bodyBytes.length >= length, `truncated body: ${JSON.stringify(rest)}`);
    const body = bodyBytes.subarray(0, length).toString('utf8');
    rest = bodyBytes.subarray(length).toString('utf8');
    if (status >= 100 && status < 200) continue;
    out.push({ status, headers, body });
  }
  return out;
}

/** Waits for `promise` with a bound: a hang fails with `what` instead of running into the test timeout. */
async function boundedWait<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, bound]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves once the server no longer accepts connections, i.e. its shutdown has begun. */
function waitUntilRefusing(baseUrl: string, timeoutMs = 5_000): Promise<void> {
  const { hostname, port } = new URL(baseUrl);
  return waitFor(
    () =>
      new Promise<boolean>((resolve) => {
        const socket = net.connect(Number(port), hostname);
        socket.once('connect', () => {
          socket.destroy();
          resolve(false);
        });
        socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
      }),
    timeoutMs,
    'the server to stop accepting connections',
  ).then(() => undefined);
}
