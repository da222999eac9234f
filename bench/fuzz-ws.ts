// The WebSocket section of `npm run bench:fuzz`: `omnibook sandbox --no-chain` in a process of its own (so its RSS
// is its own), on 127.0.0.1, against clients that try to break or exhaust it, every phase bounded in count and time:
//  1. hostile frames: BENCH_FUZZ_WS_SOCKETS (300) sockets, half authenticated first, each sending 3 frames drawn
//     (seeded) from invalid JSON, binary, oversized (past the 256 KiB frame limit), deeply nested arrays and
//     objects, invalid UTF-8, wrong field types, huge keys and market lists. Each frame must be answered (an
//     error, auth_error) or the socket closed with a code the contract explains, within SOCKET_BOUND_MS;
//  2. floods: BENCH_FUZZ_WS_FLOODERS (20) sockets that never read, half authenticated, each sending 20,000 tiny
//     frames: each must be closed by the server (websocket.floodCloseAfter);
//  3. slow readers: BENCH_FUZZ_WS_SLOW (20) authenticated sockets subscribed to books that stop reading and keep
//     asking for snapshots (resync) at the allowed rate for a few seconds;
//  4. many connections: websocket.maxUnauthenticated (1,000) sockets at once, then 50 more (each must be a 429,
//     never a 5xx), and one more than a free key's 10 (refused after auth, 4008).
// After each phase the server's open connections (GET /ws/usage?scope=global) must return to what they were, and
// GET /api/v1/exchanges must answer 200. Violations: the server exited, a 5xx, a frame neither answered nor closed,
// a socket still open past its bound, connections not returning, RSS after the run more than RSS_SLACK_MIB over the
// baseline (read after a warm-up). Printed and returned; the caller counts them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import WebSocket from 'ws';
import { processMemory } from './machine.js';
import { cleanEnv, REPO_ROOT, randomAdminKey } from './servers.js';
import { type ServerProcess, spawnServer } from './spawn-server.js';
import { envInt, progress } from './support.js';

const SOCKETS = envInt('BENCH_FUZZ_WS_SOCKETS', 300);
const FLOODERS = envInt('BENCH_FUZZ_WS_FLOODERS', 20);
const FLOOD_FRAMES = 20_000;
const SLOW = envInt('BENCH_FUZZ_WS_SLOW', 20);
const SLOW_SECONDS = 5;
const MAX_UNAUTHENTICATED = 1_000;
const FREE_CONNECTIONS = 10;
/** How long the server has to answer a frame or close a socket it gives up on. */
const SOCKET_BOUND_MS = 10_000;
/** How long its open connections have to return to their count before a phase. */
const SETTLE_BOUND_MS = 30_000;
const RSS_SLACK_MIB = 150;

export interface WsFuzzFigures {
  seconds: number;
  frames: number;
  sockets: number;
  closes: Record<string, number>;
  upgradeStatuses: Record<string, number>;
  rssBeforeMiB: number;
  rssPeakMiB: number;
  rssAfterMiB: number;
  violations: string[];
}

type Frame = { data: string | Buffer; binary: boolean; what: string };

/** Hostile frames, as a fast-check arbitrary so a seed reproduces a run. */
function hostileFrame(): fc.Arbitrary<Frame> {
  const text = (what: string, data: string): Frame => ({ data, binary: false, what });
  return fc.oneof(
    fc.constantFrom(
      text('not json', 'not json'),
      text('empty', ''),
      text('open brace', '{'),
      text('null', 'null'),
      text('array', '[]'),
      text('string', '"auth"'),
      text('number overflow', '1e999'),
      text('auth without key', '{"type":"auth"}'),
      text('auth key number', '{"type":"auth","api_key":123}'),
      text('proto type', '{"type":"__proto__"}'),
      text('proto key', '{"__proto__":{"type":"auth","api_key":"x"}}'),
      text('constructor', '{"type":"constructor","markets":[]}'),
      text('subscribe string', '{"type":"subscribe","markets":"x"}'),
      text('resync bare', '{"type":"resync"}'),
      text('lone surrogate', '{"type":"subscribe","markets":[{"svc_id":"\\ud800"}]}'),
      text('nul', '{"type":"subscribe","markets":[{"svc_id":"a\\u0000b"}]}'),
      text('deep arrays', `${'['.repeat(120_000)}${']'.repeat(120_000)}`),
      text('deep objects', `${'{"a":'.repeat(40_000)}1${'}'.repeat(40_000)}`),
      text('huge key', JSON.stringify({ type: 'auth', api_key: 'k'.repeat(200_000) })),
      text(
        'many markets',
        JSON.stringify({ type: 'subscribe', markets: Array(8_000).fill({ svc_id: 'x:y' }) }),
      ),
      text(
        'many addresses',
        JSON.stringify({
          type: 'subscribe',
          markets: [],
          addresses: Array(5_000).fill({ exchange: 'polymarket', address: '0x0' }),
        }),
      ),
      text('oversized', `"${'x'.repeat(300 * 1024)}"`),
      { data: Buffer.from([0xff, 0xfe, 0x7b, 0x22]), binary: false, what: 'invalid utf-8' },
      { data: Buffer.alloc(0), binary: true, what: 'empty binary' },
    ),
    fc.uint8Array({ minLength: 1, maxLength: 2_048 }).map((b) => ({
      data: Buffer.from(b),
      binary: true,
      what: 'random binary',
    })),
    fc.string({ maxLength: 300 }).map((s) => text('random text', s)),
    fc.json({ maxDepth: 6 }).map((s) => text('random json', s)),
  );
}

/** Close codes a hostile client may be given: each one the README's WebSocket section explains. */
const EXPLAINED_CLOSES = new Set([1007, 1008, 1009, 4001, 4008]);

function open(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
    // Listening to it means the request is ours to end: left alone it would hold the socket (and this process).
    ws.once('unexpected-response', (req, res) => {
      req.destroy();
      reject(new Error(`upgrade answered ${res.statusCode}`));
    });
  });
}

/** Resolves with the socket's close code, or null when it is still open after `ms`. */
function closedWithin(ws: WebSocket, ms: number): Promise<number | null> {
  if (ws.readyState === WebSocket.CLOSED) return Promise.resolve(-1);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), ms);
    ws.once('close', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

export async function wsFuzz(seed: number): Promise<WsFuzzFigures> {
  const dataDir = mkdtempSync(join(tmpdir(), 'omnibook-fuzz-ws-'));
  const adminKey = randomAdminKey();
  const violations: string[] = [];
  const closes: Record<string, number> = {};
  const upgradeStatuses: Record<string, number> = {};
  let frames = 0;
  let sockets = 0;
  const started = performance.now();
  let server: ServerProcess | undefined;
  try {
    server = await spawnServer({
      name: 'omnibook sandbox',
      command: process.execPath,
      args: ['bin/omnibook.js', 'sandbox', '--no-chain', '--port', '0', '--data-dir', dataDir],
      env: cleanEnv({ OMNIBOOK_ADMIN_KEY: adminKey, LOG_LEVEL: 'error', OMNIBOOK_RECORDER: '0' }),
      cwd: REPO_ROOT,
      startTimeoutMs: 120_000,
    });
    const live = server;
    const base = live.url;
    const wsUrl = `${base.replace(/^http/, 'ws')}/ws`;
    const api = async (path: string, init: RequestInit = {}) => {
      const res = await fetch(`${base}${path}`, {
        ...init,
        headers: { 'x-api-key': adminKey, 'content-type': 'application/json', ...init.headers },
      });
      if (res.status >= 500) violations.push(`${init.method ?? 'GET'} ${path} answered ${res.status}`);
      return res;
    };
    const activeConnections = async () =>
      (
        (await (await api('/api/v1/ws/usage?scope=global')).json()) as {
          totals: { active_connections: number };
        }
      ).totals.active_connections;
    const rss = () => (processMemory(live.pid)?.rssKiB ?? Number.NaN) / 1024;
    let peak = 0;
    const sampleRss = () => {
      peak = Math.max(peak, rss());
    };
    const sampler = setInterval(sampleRss, 250);
    /** After a phase: the server lives, answers, and holds no more sockets than before it. */
    const settled = async (phase: string, before: number) => {
      if (!live.alive()) {
        violations.push(`${phase}: the server exited\n${live.stderrTail()}`);
        throw new Error('server exited');
      }
      const deadline = Date.now() + SETTLE_BOUND_MS;
      let now = await activeConnections();
      while (now > before && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        now = await activeConnections();
      }
      if (now > before)
        violations.push(`${phase}: ${now - before} connections still open after ${SETTLE_BOUND_MS} ms`);
      if ((await api('/api/v1/exchanges')).status !== 200)
        violations.push(`${phase}: GET /api/v1/exchanges failed`);
      progress(`ws fuzz: ${phase} done, server RSS ${rss().toFixed(0)} MiB`);
    };
    const close = (code: number) => {
      closes[code] = (closes[code] ?? 0) + 1;
    };
    const authed = async () => {
      const ws = await open(wsUrl);
      sockets += 1;
      await new Promise<void>((resolve, reject) => {
        ws.once('message', (d) =>
          JSON.parse(String(d)).type === 'auth_ok' ? resolve() : reject(new Error(String(d))),
        );
        ws.send(JSON.stringify({ type: 'auth', api_key: adminKey }));
      });
      return ws;
    };

    // Warm-up: one connection of each kind, then the baseline.
    (await authed()).close();
    const waiting = await open(wsUrl);
    waiting.close();
    await settled('warm-up', 0);
    const rssBefore = rss();
    const baseline = await activeConnections();

    // 1. Hostile frames.
    progress(`ws fuzz: ${SOCKETS} sockets × 3 hostile frames (seed ${seed})`);
    const cases = fc.sample(
      fc.tuple(fc.boolean(), fc.array(hostileFrame(), { minLength: 3, maxLength: 3 })),
      {
        seed,
        numRuns: SOCKETS,
      },
    );
    const batch = 20;
    for (let i = 0; i < cases.length; i += batch) {
      await Promise.all(
        cases.slice(i, i + batch).map(async ([withKey, list]) => {
          const ws = withKey ? await authed() : await open(wsUrl);
          if (!withKey) sockets += 1;
          let answers = 0;
          ws.on('message', () => {
            answers += 1;
          });
          const closed = closedWithin(ws, SOCKET_BOUND_MS);
          for (const f of list) ws.send(f.data, { binary: f.binary });
          frames += list.length;
          // Answered in full, or closed: whichever comes first within the bound.
          const code = await Promise.race([
            closed,
            new Promise<'answered'>((resolve) => {
              // Stops with the socket too: a poll left running would keep this process alive.
              const check = () => {
                if (answers >= list.length) resolve('answered');
                else if (ws.readyState !== WebSocket.CLOSED) setTimeout(check, 10);
              };
              check();
            }),
          ]);
          if (code === null) {
            violations.push(
              `hostile: ${list.map((f) => f.what).join(', ')}: ${answers} of 3 answered, socket still open`,
            );
          } else if (code !== 'answered') {
            close(code);
            if (!EXPLAINED_CLOSES.has(code))
              violations.push(`hostile: ${list.map((f) => f.what).join(', ')}: closed ${code}`);
          }
          ws.terminate();
        }),
      );
    }
    await settled('hostile frames', baseline);

    // 2. Floods from clients that never read.
    progress(`ws fuzz: ${FLOODERS} non-reading sockets × ${FLOOD_FRAMES} frames`);
    await Promise.all(
      Array.from({ length: FLOODERS }, async (_, i) => {
        const ws = i % 2 === 0 ? await authed() : await open(wsUrl);
        if (i % 2 === 1) sockets += 1;
        ws.pause();
        // Watched from the start: the server usually cuts the socket while the flood is still going.
        const closed = closedWithin(ws, SOCKET_BOUND_MS * 3);
        for (let n = 0; n < FLOOD_FRAMES && ws.readyState === WebSocket.OPEN; n++) {
          ws.send(n % 2 ? 'x' : Buffer.from([n & 0xff]), { binary: n % 2 === 0 });
          frames += 1;
          if (n % 500 === 0) await new Promise((r) => setImmediate(r));
        }
        ws.resume();
        const code = await closed;
        if (code === null)
          violations.push(`flood ${i}: socket still open ${SOCKET_BOUND_MS * 3} ms after it began`);
        else close(code);
        ws.terminate();
      }),
    );
    await settled('floods', baseline);

    // 3. Slow readers on live books.
    const listed = (await (await api('/api/v1/markets?limit=50')).json()) as {
      markets?: Array<{ svc_id: string; outcomes: Array<{ token_id?: string }> }>;
    };
    const books = (listed.markets ?? []).filter((m) => m.outcomes.every((o) => o.token_id)).slice(0, 5);
    progress(`ws fuzz: ${SLOW} slow readers on ${books.length} books for ${SLOW_SECONDS} s`);
    const slow = await Promise.all(Array.from({ length: SLOW }, () => authed()));
    for (const ws of slow) {
      ws.send(
        JSON.stringify({ type: 'subscribe', markets: books.map((b) => ({ svc_id: b.svc_id, depth: 100 })) }),
      );
      ws.pause();
    }
    const until = Date.now() + SLOW_SECONDS * 1_000;
    while (Date.now() < until) {
      for (const ws of slow) {
        const book = books[Math.floor(Math.random() * books.length)];
        if (book && ws.readyState === WebSocket.OPEN)
          ws.send(JSON.stringify({ type: 'resync', svc_id: book.svc_id }));
        frames += 1;
      }
      await new Promise((r) => setTimeout(r, 340));
    }
    for (const ws of slow) ws.terminate();
    await settled('slow readers', baseline);

    // 4. Many connections: the unauthenticated cap, then a free key's.
    progress(`ws fuzz: ${MAX_UNAUTHENTICATED} unauthenticated sockets at once, then 50 more`);
    const many: WebSocket[] = [];
    for (let i = 0; i < MAX_UNAUTHENTICATED - baseline; i += 100) {
      const opened = await Promise.allSettled(
        Array.from({ length: Math.min(100, MAX_UNAUTHENTICATED - baseline - i) }, () => open(wsUrl)),
      );
      for (const o of opened) {
        if (o.status === 'fulfilled') many.push(o.value);
        else violations.push(`many: an upgrade under the cap failed: ${o.reason}`);
      }
    }
    sockets += many.length;
    const extra = await Promise.allSettled(Array.from({ length: 50 }, () => open(wsUrl)));
    for (const o of extra) {
      const status =
        o.status === 'fulfilled' ? 101 : Number(/answered (\d+)/.exec(String(o.reason))?.[1] ?? 0);
      upgradeStatuses[status] = (upgradeStatuses[status] ?? 0) + 1;
      if (status >= 500 || status === 0)
        violations.push(`many: an upgrade past the cap answered ${status || o}`);
      if (o.status === 'fulfilled') o.value.terminate();
    }
    for (const ws of many) ws.terminate();
    await settled('many unauthenticated', baseline);
    const created = (await (
      await api('/api/v1/keys', { method: 'POST', body: '{"tier":"free"}' })
    ).json()) as {
      key: string;
    };
    const free: WebSocket[] = [];
    for (let i = 0; i <= FREE_CONNECTIONS; i++) {
      const ws = await open(wsUrl);
      sockets += 1;
      free.push(ws);
      const reply = new Promise<string>((resolve) =>
        ws.once('message', (d) => resolve(JSON.parse(String(d)).type)),
      );
      ws.send(JSON.stringify({ type: 'auth', api_key: created.key }));
      const type = await reply;
      if (i < FREE_CONNECTIONS && type !== 'auth_ok')
        violations.push(`free key: connection ${i + 1} got ${type}`);
      if (i === FREE_CONNECTIONS) {
        const code = await closedWithin(ws, SOCKET_BOUND_MS);
        if (code !== 4008) violations.push(`free key: connection ${i + 1} closed with ${code}, not 4008`);
        if (code !== null) close(code);
      }
    }
    for (const ws of free) ws.terminate();
    await settled('many per customer', baseline);

    clearInterval(sampler);
    sampleRss();
    const rssAfter = rss();
    if (rssAfter > rssBefore + RSS_SLACK_MIB) {
      violations.push(`RSS ${rssBefore.toFixed(0)} MiB before, ${rssAfter.toFixed(0)} MiB after`);
    }
    return {
      seconds: (performance.now() - started) / 1000,
      frames,
      sockets,
      closes,
      upgradeStatuses,
      rssBeforeMiB: rssBefore,
      rssPeakMiB: peak,
      rssAfterMiB: rssAfter,
      violations,
    };
  } finally {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
