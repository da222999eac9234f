// `npm run bench:replay`: replay throughput against the rate the recorder wrote the same window, in one run.
//  1. Record: the five simulators in a process of their own (bench/sim-host.ts) and `omnibook serve` with the
//     recorder on (top BENCH_TOP_N markets of every exchange, one state per book per BENCH_INTERVAL_MS at most),
//     the books moved by `POST /__sim/advance` on every simulator each BENCH_ADVANCE_MS. After a warm-up (catalogue
//     synced, top N picked, every recorded book written once), a window of BENCH_SECONDS is measured: book states
//     the recorder wrote inside it (rows of book_snapshots stamped in it) per second of wall time, and the serve
//     process's CPU time (user + system, /proc) per written state: the whole ingestion path, venue streams, book
//     hub and recorder, not the recorder alone. The server is stopped (its recorder drains) before the replay.
//  2. Replay: `omnibook replay --from W0 --to W1 --fast` on that data dir, as its own process, and one WebSocket
//     client (this process) that subscribes to every book recorded in the window at depth 50, paces the replay
//     (`replay_pace`) and acknowledges each `replay_clock` as soon as it reads it. Figures: book messages received
//     after the first replay_clock per second of wall time (first replay_clock to the last), and the replay
//     process's CPU per book message.
// Printed: both rates, replay/recorded, CPU per event of each and their ratio (book events per CPU second); BENCH_RUNS (default 3) recordings and replays
// give the spread (the CPU figures are the ones to read on a shared machine). Never asserted. Run it under
// `nice -n 19` on a shared machine.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import WebSocket from 'ws';
import { processCpuMs } from './machine.js';
import { cleanEnv, REPO_ROOT, randomAdminKey, startOmnibook, startSimHost } from './servers.js';
import type { SimHostConfig } from './sim-host.js';
import { spawnServer } from './spawn-server.js';
import { envInt, progress } from './support.js';

const RUNS = envInt('BENCH_RUNS', 3);
const SECONDS = envInt('BENCH_SECONDS', 30);
const TOP_N = envInt('BENCH_TOP_N', 4);
const INTERVAL_MS = envInt('BENCH_INTERVAL_MS', 100);
const ADVANCE_MS = envInt('BENCH_ADVANCE_MS', 50);
const SIM_SIZE = envInt('BENCH_SIM_SIZE', 40);

interface Recorded {
  fromMs: number;
  toMs: number;
  states: number;
  perS: number;
  cpuUsPerState: number;
  books: Array<{ svc_id: string; outcome: string }>;
}

interface Replayed {
  events: number;
  perS: number;
  cpuUsPerEvent: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function readDb<T>(dataDir: string, read: (db: Database.Database) => T): T {
  const db = new Database(join(dataDir, 'omnibook.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

function statesBetween(dataDir: string, fromMs: number, toMs: number): number {
  try {
    return readDb(
      dataDir,
      (db) =>
        (
          db
            .prepare('select count(*) as n from book_snapshots where ts_ms >= ? and ts_ms <= ?')
            .get(fromMs, toMs) as { n: number }
        ).n,
    );
  } catch {
    return 0; // the store is not created yet
  }
}

async function advanceAll(controls: readonly string[], stop: AbortSignal): Promise<void> {
  while (!stop.aborted) {
    await Promise.all(
      controls.map((c) =>
        fetch(`${c}/__sim/advance`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"steps":1}',
        }).then(
          (r) => r.arrayBuffer(),
          () => undefined,
        ),
      ),
    );
    await sleep(ADVANCE_MS);
  }
}

async function record(dataDir: string): Promise<Recorded> {
  const hostFile = join(dataDir, 'sim-host.json');
  const sims = await startSimHost(hostFile, SIM_SIZE);
  try {
    const host = JSON.parse(readFileSync(hostFile, 'utf8')) as SimHostConfig;
    const configFile = join(dataDir, 'omnibook.json');
    writeFileSync(
      configFile,
      JSON.stringify({
        ...host.config,
        recorder: { enabled: true, topN: TOP_N, intervalMs: INTERVAL_MS, refreshIntervalMs: 1_000 },
      }),
      { mode: 0o600 },
    );
    const server = await startOmnibook({
      dataDir,
      adminKey: randomAdminKey(),
      nodeArgs: [],
      configFile,
      env: host.env,
    });
    const stopMoving = new AbortController();
    const moving = advanceAll(Object.values(host.controls), stopMoving.signal);
    try {
      // Warm-up: until the set of recorded books stops growing for 3 s (the catalogue synced, the top N chosen).
      let books = 0;
      let steadySince = Date.now();
      const deadline = Date.now() + 180_000;
      while (Date.now() - steadySince < 3_000 || books === 0) {
        if (Date.now() > deadline) throw new Error(`the recorder recorded ${books} books in 180 s`);
        await sleep(500);
        let now = 0;
        try {
          now = readDb(
            dataDir,
            (db) =>
              (db.prepare('select count(distinct book_id) as n from book_snapshots').get() as { n: number })
                .n,
          );
        } catch {}
        if (now !== books) {
          books = now;
          steadySince = Date.now();
        }
      }
      progress(`recording: ${books} books recorded; measuring ${SECONDS} s`);
      const cpu0 = processCpuMs(server.pid) ?? Number.NaN;
      const fromMs = Date.now();
      await sleep(SECONDS * 1_000);
      const toMs = Date.now();
      const cpu1 = processCpuMs(server.pid) ?? Number.NaN;
      stopMoving.abort();
      await moving;
      await server.stop();
      const states = statesBetween(dataDir, fromMs, toMs);
      const recordedBooks = readDb(
        dataDir,
        (db) =>
          db
            .prepare(
              `select distinct b.svc_id, b.outcome from recorded_books b join book_snapshots s on s.book_id = b.id
               where s.ts_ms >= ? and s.ts_ms <= ? order by b.id`,
            )
            .all(fromMs, toMs) as Array<{ svc_id: string; outcome: string }>,
      );
      return {
        fromMs,
        toMs,
        states,
        perS: states / ((toMs - fromMs) / 1_000),
        cpuUsPerState: ((cpu1 - cpu0) * 1_000) / Math.max(1, states),
        books: recordedBooks,
      };
    } finally {
      stopMoving.abort();
      await moving;
      await server.stop();
    }
  } finally {
    await sims.stop();
  }
}

async function replay(dataDir: string, rec: Recorded): Promise<Replayed> {
  const adminKey = randomAdminKey();
  const server = await spawnServer({
    name: 'omnibook replay',
    command: process.execPath,
    args: [
      'bin/omnibook.js',
      'replay',
      '--from',
      String(rec.fromMs),
      '--to',
      String(rec.toMs),
      '--fast',
      '--data-dir',
      dataDir,
      '--port',
      '0',
      '--log-level',
      'warn',
    ],
    env: cleanEnv({ OMNIBOOK_ADMIN_KEY: adminKey }),
    cwd: REPO_ROOT,
    startTimeoutMs: 120_000,
  });
  try {
    const ws = new WebSocket(`${server.url.replace('http', 'ws')}/ws`);
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    let events = 0;
    let started = 0;
    let cpuStart = 0;
    let errors = 0;
    const done = new Promise<{ ended: number; cpuEnd: number }>((resolve) => {
      ws.on('message', (data: Buffer) => {
        const text = data.toString();
        if (text.startsWith('{"type":"orderbook')) {
          // Before the first replay_clock: the subscription's snapshots, not replayed events.
          if (started !== 0) events += 1;
          return;
        }
        if (text.startsWith('{"type":"replay_clock"')) {
          const m = JSON.parse(text) as { step: number; done: boolean };
          if (m.done) {
            resolve({ ended: performance.now(), cpuEnd: processCpuMs(server.pid) ?? Number.NaN });
            return;
          }
          if (started === 0) {
            started = performance.now();
            cpuStart = processCpuMs(server.pid) ?? Number.NaN;
          }
          ws.send(JSON.stringify({ type: 'replay_ack', step: m.step }));
          return;
        }
        if (text.startsWith('{"type":"error"') && errors++ < 3) progress(`replay said: ${text}`);
      });
    });
    ws.send(JSON.stringify({ type: 'auth', api_key: adminKey }));
    ws.send(
      JSON.stringify({
        type: 'subscribe',
        markets: rec.books.map((b) => ({ svc_id: b.svc_id, outcome: b.outcome, depth: 50 })),
      }),
    );
    // Handled after the subscribe (a connection's messages are handled in order): pacing starts with the books held.
    ws.send(JSON.stringify({ type: 'replay_pace' }));
    const { ended, cpuEnd } = await done;
    ws.close();
    return {
      events,
      perS: events / ((ended - started) / 1_000),
      cpuUsPerEvent: ((cpuEnd - cpuStart) * 1_000) / Math.max(1, events),
    };
  } finally {
    await server.stop();
  }
}

const rows: Array<{ rec: Recorded; rep: Replayed }> = [];
for (let i = 0; i < RUNS; i++) {
  const dataDir = mkdtempSync(join(tmpdir(), 'omnibook-bench-replay-'));
  try {
    const rec = await record(dataDir);
    const rep = await replay(dataDir, rec);
    rows.push({ rec, rep });
    console.log(
      `run ${i + 1}: recorder wrote ${rec.states} book states of ${rec.books.length} books in ${((rec.toMs - rec.fromMs) / 1000).toFixed(1)} s: ` +
        `${rec.perS.toFixed(1)}/s, ${rec.cpuUsPerState.toFixed(0)} µs serve CPU per state | ` +
        `replay --fast served ${rep.events} book messages to one paced client: ${rep.perS.toFixed(0)}/s, ` +
        `${rep.cpuUsPerEvent.toFixed(0)} µs replay CPU per message | ratio ${(rep.perS / rec.perS).toFixed(1)}× the recorded rate`,
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
const spread = (label: string, values: number[], digits: number) => {
  const s = [...values].sort((a, b) => a - b);
  console.log(
    `${label}: median ${s[Math.floor(s.length / 2)]?.toFixed(digits)}, min ${s[0]?.toFixed(digits)}, max ${s.at(-1)?.toFixed(digits)}`,
  );
};
spread(
  'replay/recorded events per second (×)',
  rows.map((r) => r.rep.perS / r.rec.perS),
  1,
);
spread(
  'recorder: serve CPU µs per recorded book state',
  rows.map((r) => r.rec.cpuUsPerState),
  0,
);
spread(
  'replay: replay CPU µs per served book message',
  rows.map((r) => r.rep.cpuUsPerEvent),
  0,
);
spread(
  'book events per CPU second, replay/recorder (×)',
  rows.map((r) => r.rec.cpuUsPerState / r.rep.cpuUsPerEvent),
  1,
);
process.exit(0);
