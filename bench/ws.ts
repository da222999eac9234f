// `npm run bench:ws`: the WebSocket gateway of `omnibook serve` (embedded default, the five simulators in a process
// of their own), on 127.0.0.1.
//  1. Ours: BENCH_WS_CLIENTS (1,000) clients, each subscribed to one of BENCH_WS_BOOKS (100) books (streamed
//     exchanges first: polymarket, kalshi, limitless), while the driver advances those simulators in a loop
//     (POST /__sim/advance, BENCH_WS_STEPS (4) steps per call per simulator, back to back) so every book moves and
//     trades. Over BENCH_DURATION (10) seconds: book and activity messages delivered per second, the delay from our
//     upstream receive (`ingest_ts_ms` in each message) to the client's receive (p50/p99/max), the server's CPU
//     seconds and RSS.
//  2. Baseline: a bare `ws` server (bench/ws-baseline-server.ts, its own process) sends the same number of messages
//     per client, of the same mean size, to as many clients, as fast as its slowest reader allows; the same figures.
// Ours is paced by the simulators (which share the cores while they advance); the baseline by nothing but its
// clients, so messages per server CPU-second is printed beside the messages/s ratio. The clients run in this
// process (one event loop for all of them, for both servers). Figures are printed, never asserted.
// BENCH_PROFILE_DIR=dir runs our server under --cpu-prof.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { machineFacts, processCpuMs, processMemory } from './machine.js';
import { cleanEnv, REPO_ROOT, startBenchStack } from './servers.js';
import { type ServerProcess, spawnServer } from './spawn-server.js';
import { envInt, fetchJson, percentile, progress } from './support.js';

const SETTINGS = {
  clients: envInt('BENCH_WS_CLIENTS', 1_000),
  books: envInt('BENCH_WS_BOOKS', 100),
  durationS: envInt('BENCH_DURATION', 10),
  simSize: envInt('BENCH_SIM_SIZE', 300),
  /** Simulator steps per advance call: more moves per round trip, to push the offered load up. */
  steps: envInt('BENCH_WS_STEPS', 4),
};

/** Exchanges whose books stream (the others are polled every few seconds, so they move less often). */
const STREAMED = ['polymarket', 'kalshi', 'limitless'];
const ALL = [...STREAMED, 'opinion', 'predictfun'];

const INGEST = '"ingest_ts_ms":';

/** What every client of one run received: only messages that carry `ingest_ts_ms` (books, activity) count. */
class Tally {
  counting = false;
  messages = 0;
  bytes = 0;
  private delays = new Float64Array(1 << 20);
  private n = 0;

  onMessage(data: Buffer): void {
    if (!this.counting) return;
    const received = Date.now();
    const text = data.toString('latin1');
    const at = text.indexOf(INGEST);
    if (at < 0) return;
    const ingest = Number.parseInt(text.slice(at + INGEST.length, at + INGEST.length + 16), 10);
    if (!Number.isFinite(ingest)) return;
    this.messages += 1;
    this.bytes += data.length;
    if (this.n === this.delays.length) {
      const grown = new Float64Array(this.delays.length * 2);
      grown.set(this.delays);
      this.delays = grown;
    }
    this.delays[this.n++] = received - ingest;
  }

  sortedDelays(): Float64Array {
    return this.delays.slice(0, this.n).sort();
  }
}

function open(url: string, tally: Tally): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    ws.on('message', (data: Buffer) => tally.onMessage(data));
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

/** Opens `count` sockets, `batch` at a time, running `ready` on each before it counts as open. */
async function openMany(
  count: number,
  batch: number,
  make: (i: number) => Promise<WebSocket>,
): Promise<WebSocket[]> {
  const out: WebSocket[] = [];
  for (let i = 0; i < count; i += batch) {
    const slice = Array.from({ length: Math.min(batch, count - i) }, (_, k) => make(i + k));
    out.push(...(await Promise.all(slice)));
  }
  return out;
}

/** Resolves with the first message `match` accepts (the socket's own stream, before any tally counts it). */
function nextMessage(
  ws: WebSocket,
  match: (m: { type: string; [k: string]: unknown }) => boolean,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no answer within 60 s')), 60_000);
    const onMessage = (data: Buffer) => {
      const m = JSON.parse(data.toString()) as { type: string };
      if (m.type === 'error' || m.type === 'auth_error') {
        clearTimeout(timer);
        ws.off('message', onMessage);
        reject(new Error(`server said ${data.toString()}`));
      } else if (match(m)) {
        clearTimeout(timer);
        ws.off('message', onMessage);
        resolve();
      }
    };
    ws.on('message', onMessage);
  });
}

interface RunFigures {
  messages: number;
  bytes: number;
  seconds: number;
  delays: Float64Array;
  rss?: { rssKiB: number; peakKiB: number } | undefined;
  /** CPU seconds the server process used over the run (user + system). */
  cpuS: number;
}

/** User + system CPU seconds of a process so far (NaN where /proc has none). */
function cpuSeconds(pid: number): number {
  return (processCpuMs(pid) ?? Number.NaN) / 1000;
}

function row(name: string, f: RunFigures): string {
  const perS = f.messages / f.seconds;
  const ms = (p: number) => percentile(f.delays, p).toFixed(1).padStart(8);
  const rss = f.rss ? `${(f.rss.rssKiB / 1024).toFixed(0)} / ${(f.rss.peakKiB / 1024).toFixed(0)}` : 'n/a';
  return (
    `${name.padEnd(9)} ${String(f.messages).padStart(10)} ${f.seconds.toFixed(2).padStart(8)} ${perS.toFixed(0).padStart(12)} ` +
    `${(f.bytes / Math.max(1, f.messages)).toFixed(0).padStart(9)} ${ms(50)} ${ms(99)} ${ms(100)} ${f.cpuS.toFixed(2).padStart(7)} ` +
    `${(f.messages / f.cpuS).toFixed(0).padStart(10)}   ${rss}`
  );
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'omnibook-bench-ws-'));
  const servers: ServerProcess[] = [];
  const sockets: WebSocket[] = [];
  try {
    const { ours, apiKey, sims } = await startBenchStack(tmp, servers, {
      simSize: SETTINGS.simSize,
      profileDir: process.env.BENCH_PROFILE_DIR,
    });

    const books: Array<{ svc_id: string; exchange: string }> = [];
    for (const exchange of ALL) {
      const listed = await fetchJson<{
        markets: Array<{ svc_id: string; exchange: string; outcomes: Array<{ token_id?: string }> }>;
      }>(`${ours.url}/api/v1/markets?exchanges=${exchange}&limit=100`, { headers: { 'x-api-key': apiKey } });
      for (const m of listed.markets) {
        if (m.outcomes.every((o) => o.token_id)) books.push({ svc_id: m.svc_id, exchange: m.exchange });
      }
    }
    // Round-robin over the streamed exchanges so each simulator moves a share of the books.
    const byExchange = ALL.map((e) => books.filter((b) => b.exchange === e));
    const chosen: typeof books = [];
    for (let i = 0; chosen.length < SETTINGS.books && byExchange.some((l) => l.length > i); i++) {
      for (const list of byExchange.slice(0, STREAMED.length)) {
        const b = list[i];
        if (b && chosen.length < SETTINGS.books) chosen.push(b);
      }
    }
    for (const list of byExchange.slice(STREAMED.length)) {
      for (const b of list) if (chosen.length < SETTINGS.books) chosen.push(b);
    }
    if (chosen.length < SETTINGS.books) throw new Error(`only ${chosen.length} books listed`);
    const perExchange = ALL.map((e) => `${e} ${chosen.filter((b) => b.exchange === e).length}`).join(', ');
    const moving = ALL.filter((e) => chosen.some((b) => b.exchange === e));

    // 1. Ours.
    progress(`opening ${SETTINGS.clients} WebSocket clients on ${chosen.length} books (${perExchange})`);
    const oursTally = new Tally();
    const wsUrl = `${ours.url.replace(/^http/, 'ws')}/ws`;
    const oursSockets = await openMany(SETTINGS.clients, 50, async (i) => {
      const ws = await open(wsUrl, oursTally);
      const authed = nextMessage(ws, (m) => m.type === 'auth_ok');
      ws.send(JSON.stringify({ type: 'auth', api_key: apiKey }));
      await authed;
      const book = chosen[i % chosen.length];
      const snapshot = nextMessage(ws, (m) => m.type === 'orderbook');
      ws.send(JSON.stringify({ type: 'subscribe', markets: [{ svc_id: book?.svc_id, depth: 10 }] }));
      await snapshot;
      return ws;
    });
    sockets.push(...oursSockets);
    progress(`advancing ${moving.join(', ')} in a loop for ${SETTINGS.durationS} s (after 2 s of warm-up)`);
    let advancing = true;
    let steps = 0;
    const loops = moving.map(async (exchange) => {
      const control = sims.controls[exchange];
      while (advancing) {
        await fetchJson(`${control}/__sim/advance`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ steps: SETTINGS.steps }),
        });
        steps += SETTINGS.steps;
      }
    });
    await new Promise((r) => setTimeout(r, 2_000));
    oursTally.counting = true;
    const oursCpu = cpuSeconds(ours.pid);
    const started = performance.now();
    const stepsBefore = steps;
    await new Promise((r) => setTimeout(r, SETTINGS.durationS * 1_000));
    oursTally.counting = false;
    const seconds = (performance.now() - started) / 1_000;
    const oursRss = processMemory(ours.pid);
    const oursCpuS = cpuSeconds(ours.pid) - oursCpu;
    const stepsDone = steps - stepsBefore;
    advancing = false;
    await Promise.all(loops);
    const oursFigures: RunFigures = {
      messages: oursTally.messages,
      bytes: oursTally.bytes,
      seconds,
      delays: oursTally.sortedDelays(),
      rss: oursRss,
      cpuS: oursCpuS,
    };
    const usage = await fetchJson<{ totals: Record<string, number> }>(
      `${ours.url}/api/v1/ws/usage?scope=self`,
      {
        headers: { 'x-api-key': apiKey },
      },
    );
    for (const ws of oursSockets) ws.terminate();
    sockets.length = 0;

    // 2. Baseline.
    const perClient = Math.max(1, Math.round(oursFigures.messages / SETTINGS.clients));
    const size = Math.round(oursFigures.bytes / Math.max(1, oursFigures.messages));
    progress(`baseline: ${perClient} messages of ${size} bytes to each of ${SETTINGS.clients} clients`);
    const baseline = await spawnServer({
      name: 'ws-baseline',
      command: process.execPath,
      args: ['--import', 'tsx', 'bench/ws-baseline-server.ts'],
      env: cleanEnv(),
      cwd: REPO_ROOT,
      startTimeoutMs: 30_000,
    });
    servers.push(baseline);
    const baseTally = new Tally();
    const baseUrl = baseline.url.replace(/^http/, 'ws');
    const baseSockets = await openMany(SETTINGS.clients, 50, (_i) => open(baseUrl, baseTally));
    sockets.push(...baseSockets);
    const want = perClient * SETTINGS.clients;
    baseTally.counting = true;
    const baseCpu = cpuSeconds(baseline.pid);
    const baseStarted = performance.now();
    await fetchJson(`${baseline.url}/run`, {
      method: 'POST',
      body: JSON.stringify({ messages: perClient, bytes: size }),
    });
    const deadline = Date.now() + 300_000;
    while (baseTally.messages < want && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    const baseSeconds = (performance.now() - baseStarted) / 1_000;
    baseTally.counting = false;
    const baseFigures: RunFigures = {
      messages: baseTally.messages,
      bytes: baseTally.bytes,
      seconds: baseSeconds,
      delays: baseTally.sortedDelays(),
      rss: processMemory(baseline.pid),
      cpuS: cpuSeconds(baseline.pid) - baseCpu,
    };

    const ratio = oursFigures.messages / oursFigures.seconds / (baseFigures.messages / baseFigures.seconds);
    const m = machineFacts();
    process.stdout.write(
      [
        'Omnibook WebSocket benchmark: GET /ws, live books',
        '',
        `machine   node ${m.node} | ${m.cpuModel} | ${m.cores} cores | ${m.platform} | ${m.totalMemMiB} MiB RAM`,
        'ours      node bin/omnibook.js serve (embedded default), venues = the five simulators in another process',
        `setup     ${SETTINGS.clients} clients, each subscribed to one of ${chosen.length} books at depth 10 (${perExchange}); world size ${SETTINGS.simSize}`,
        `load      ${stepsDone} simulator advance steps in ${seconds.toFixed(1)} s (${moving.join(', ')}, back to back)`,
        `baseline  bare ws broadcast: ${perClient} messages of ${size} bytes to each of ${SETTINGS.clients} clients, paced by its slowest reader (1 MiB unsent)`,
        '',
        'delay = client receive - ingest_ts_ms (ours: when the server got the venue frame; baseline: when it made the message)',
        'server     delivered  seconds   messages/s  mean size   p50 ms   p99 ms   max ms   CPU s  msgs/CPU-s   RSS / peak MiB',
        row('ours', oursFigures),
        row('baseline', baseFigures),
        '',
        `ratio ours/bare messages/s: ${ratio.toFixed(3)} (goal ≥ 0.7); messages per server CPU-second: ${(oursFigures.messages / oursFigures.cpuS / (baseFigures.messages / baseFigures.cpuS)).toFixed(3)}`,
        "(ours shares the 2 cores with the simulators advancing and the clients; the baseline's run has the simulators idle)",
        `GET /ws/usage (this key): messages_sent_total ${usage.totals.messages_sent_total}, bytes_sent_total ${usage.totals.bytes_sent_total}, connections_opened_total ${usage.totals.connections_opened_total}`,
        '',
      ].join('\n'),
    );
  } finally {
    for (const ws of sockets) ws.terminate();
    await Promise.all(servers.map((s) => s.stop()));
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
