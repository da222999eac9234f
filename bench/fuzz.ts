// `npm run bench:fuzz`: the HTTP fuzz of test/integration/http/fuzz.test.ts at volume — BENCH_FUZZ_CASES (100,000)
// requests per storage backend (SQLite + in-process limiter, then PostgreSQL + Redis at TEST_DATABASE_URL and
// TEST_REDIS_URL), against the real server over loopback with a populated catalogue (the five simulators, the local
// chain, a sync pass first). Every answer is held to the same oracle as the test: no 5xx but 503 retryable and 501
// not_supported, every error in {error, code, retryable}, the route's published response schema, and a refused
// request leaves the store as it was. Unlike the test it does not stop at the first violation: it counts them and
// prints the first few, with the seed that reproduces each batch.
// Shards: BENCH_FUZZ_SHARDS (2) processes per backend, each with a stack of its own (simulators, chain, server,
// PostgreSQL schema, Redis namespace), each sending every n-th batch of the one request stream, one request at a
// time. Requests are never concurrent within a stack, so every request is judged exactly as in the test: the store
// is read after each one, and a refused request is compared with the store as the previous request left it. The
// shards only use more of the machine (a busy machine hands out CPU per process); all backends' shards run at once.
// Baseline: the first BENCH_FUZZ_BASELINE_CASES (2,000) requests of the same stream sent, the same way (one at a
// time, from shard 0), to a bare node:http server that reads each request and answers a fixed JSON error — one
// shard's cases/s is printed as a ratio to it.
// Then the WebSocket section (bench/fuzz-ws.ts: hostile frames, floods, slow readers, many connections against a
// sandbox process of its own, its RSS before and after); BENCH_FUZZ_WS=0 skips it, BENCH_FUZZ_BACKENDS=none runs it
// alone.
// Settings: BENCH_FUZZ_BACKENDS (sqlite,postgres), BENCH_FUZZ_SEED (time-based when unset), BENCH_SIM_SIZE (40).
// Figures (with the machine's load average, sampled every 10 s, and the CPU time each shard's process spent per
// request, server included as it runs in that process) are printed and written to
// bench/results/fuzz-<backends>.json, never asserted.
import { type ChildProcess, fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { requestSpecs } from '../test/support/http-fuzz/arbitraries.js';
import {
  type Answer,
  describeFailure,
  problemsWith,
  type RequestSpec,
  send,
} from '../test/support/http-fuzz/requests.js';
import { type FuzzBackend, startFuzzStack } from '../test/support/http-fuzz/stack.js';
import { forbiddenChanges, storeState } from '../test/support/http-fuzz/state.js';
import { type WsFuzzFigures, wsFuzz } from './fuzz-ws.js';
import { machineFacts } from './machine.js';
import { REPO_ROOT } from './servers.js';
import { envInt, progress } from './support.js';

const CASES = envInt('BENCH_FUZZ_CASES', 100_000);
const BASELINE_CASES = Math.min(CASES, envInt('BENCH_FUZZ_BASELINE_CASES', 2_000));
const SHARDS = envInt('BENCH_FUZZ_SHARDS', 2, 16);
const SIM_SIZE = envInt('BENCH_SIM_SIZE', 40);
const SEED = process.env.BENCH_FUZZ_SEED ? Number(process.env.BENCH_FUZZ_SEED) : Date.now() % 2 ** 31;
const BATCH = 500;
const BACKENDS: Record<string, FuzzBackend> = { sqlite: 'sqlite + memory', postgres: 'postgres + redis' };
const CHOSEN = (process.env.BENCH_FUZZ_BACKENDS ?? 'sqlite,postgres')
  .split(',')
  .map((b) => b.trim())
  .filter((b) => b !== '' && b !== 'none');
const WEBSOCKET = process.env.BENCH_FUZZ_WS !== '0';
/** Set in a shard's process only: `<backend>:<index>` (the parent forks one per backend and shard). */
const SHARD = process.env.BENCH_FUZZ_SHARD;

// SIGINT (Ctrl-C) or SIGTERM ends the current backend's run early: its figures cover the requests sent so far.
let stopRequested = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopRequested) process.exit(130);
    stopRequested = true;
    progress(`${signal}: stopping after the request in flight (again to quit at once)`);
  });
}

interface Figures {
  backend: string;
  markets: number;
  /** Shards (processes) the figures sum over. */
  shards: number;
  cases: number;
  seconds: number;
  casesPerS: number;
  /** One shard's requests per second, the mean over shards: what one request-at-a-time client got. */
  casesPerSPerShard: number;
  baselineCasesPerS: number;
  /** CPU time (user + system) of the shards' processes over their requests, per request: server, client, store. */
  cpuMsPerCase: number;
  /** Where the shards' wall time went, summed over shards (seconds). */
  spent: { generate: number; send: number; state: number };
  serverErrors: number;
  shapeErrors: number;
  schemaErrors: number;
  stateChanges: number;
  statuses: Record<string, number>;
  /** Routes (method + template) no request got a 2xx from: where the fuzz does not reach the handler's success. */
  routesNeverOk: string[];
  examples: string[];
}

/** What one shard sends back to the parent. */
interface ShardFigures extends Omit<Figures, 'shards' | 'casesPerS' | 'casesPerSPerShard' | 'cpuMsPerCase'> {
  /** Epoch ms of its first and last request. */
  startedAt: number;
  endedAt: number;
  cpuMs: number;
  baselineCasesPerS: number;
  routes: string[];
}

/**
 * The request stream: batch i is fc.sample with seed SEED + i, so any batch can be regenerated alone. Shard k of n
 * sends the batches i with i mod n = k.
 */
function* stream(
  arbitrary: fc.Arbitrary<RequestSpec>,
  count: number,
  shard = { index: 0, count: 1 },
): Generator<[RequestSpec, number]> {
  for (let batch = shard.index; batch * BATCH < count; batch += shard.count) {
    const n = Math.min(BATCH, count - batch * BATCH);
    for (const spec of fc.sample(arbitrary, { numRuns: n, seed: SEED + batch })) yield [spec, SEED + batch];
  }
}

/** A bare node:http server: reads the whole request, answers a fixed JSON error. */
async function baselineServer(): Promise<{ url: string; close(): Promise<void> }> {
  const body = JSON.stringify({ error: 'not found', code: 'not_found', retryable: false });
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function sendRaw(url: string, r: RequestSpec): Promise<void> {
  const headers: Record<string, string> = { ...r.headers };
  if (r.key.kind === 'raw') headers['x-api-key'] = r.key.value;
  if (r.body?.contentType != null) headers['content-type'] = r.body.contentType;
  try {
    const res = await fetch(`${url}${r.path}${r.query ? `?${r.query}` : ''}`, {
      method: r.method,
      headers,
      redirect: 'manual',
      ...(r.body ? { body: r.body.text } : {}),
    });
    await res.text();
  } catch {
    // The bare server may refuse what Node's parser refuses; the baseline only times the round trips.
  }
}

function routeOf(
  method: string,
  path: string,
  templates: Array<{ key: string; method: string; pattern: RegExp }>,
): string | undefined {
  return templates.find((t) => t.method === method && t.pattern.test(path))?.key;
}

async function runShard(name: string, backend: FuzzBackend, index: number): Promise<ShardFigures> {
  progress(`${name}: starting the sandbox stack (simulators, chain, server) and the first sync pass`);
  const stack = await startFuzzStack(backend, { size: SIM_SIZE });
  try {
    const { server, keys } = stack;
    const arbitrary = requestSpecs(stack.routes, stack.protectedIds, stack.corpus);
    const templates = stack.routes.map((r) => ({
      key: `${r.method} ${r.template}`,
      method: r.method,
      pattern: new RegExp(`^${r.template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }));

    let baselineCasesPerS = Number.NaN;
    if (index === 0) {
      progress(`${name}: baseline, ${BASELINE_CASES} requests to a bare node:http server`);
      const bare = await baselineServer();
      // Generated first: the baseline times the round trips alone.
      const baselineSpecs = [...stream(arbitrary, BASELINE_CASES)].map(([spec]) => spec);
      const b0 = performance.now();
      for (const spec of baselineSpecs) await sendRaw(bare.url, spec);
      baselineCasesPerS = BASELINE_CASES / ((performance.now() - b0) / 1000);
      await bare.close();
    }

    progress(
      `${name}: every ${SHARDS === 1 ? '' : `${SHARDS}th `}batch of ${BATCH} of ${CASES} requests over ${stack.markets} stored markets (seed ${SEED})`,
    );
    const statuses: Record<string, number> = {};
    const ok = new Set<string>();
    const examples: string[] = [];
    let serverErrors = 0;
    let shapeErrors = 0;
    let schemaErrors = 0;
    let stateChanges = 0;
    const note = (line: string) => {
      if (examples.length < 10) examples.push(line);
    };
    let state = await storeState(server.runtime);
    const t0 = performance.now();
    const startedAt = Date.now();
    const cpu0 = process.cpuUsage();
    let done = 0;
    const spent = { generate: 0, send: 0, state: 0 };
    const requests = stream(arbitrary, CASES, { index, count: SHARDS });
    for (;;) {
      const g0 = performance.now();
      const next = requests.next();
      spent.generate += performance.now() - g0;
      if (next.done || stopRequested) break;
      done += 1;
      const [spec, seed] = next.value;
      let answer: Answer;
      const s0 = performance.now();
      try {
        answer = await send(server.url, spec, keys);
        spent.send += performance.now() - s0;
      } catch (error) {
        // A response that drifts from its published schema, or a dropped connection.
        schemaErrors += 1;
        note(`[seed ${seed}] ${(error as Error).message.slice(0, 1500)}`);
        state = await storeState(server.runtime);
        continue;
      }
      statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
      const route = routeOf(spec.method, spec.path, templates);
      if (answer.status < 300 && route) ok.add(route);
      const st0 = performance.now();
      const now = await storeState(server.runtime);
      const changed = answer.status >= 400 ? await forbiddenChanges(server.runtime, state, now) : [];
      state = now;
      spent.state += performance.now() - st0;
      const problems = [...problemsWith(spec, answer), ...changed.map((c) => `refused, yet changed ${c}`)];
      if (problems.length > 0) {
        if (problems.some((p) => p.startsWith('server error'))) serverErrors += 1;
        if (problems.some((p) => p.startsWith('error body') || p.startsWith('429') || p.startsWith('2xx')))
          shapeErrors += 1;
        if (changed.length > 0) stateChanges += 1;
        note(`[seed ${seed}] ${describeFailure(backend, spec, answer, problems)}`);
      }
      if (done % 1_000 === 0) {
        const s = (performance.now() - t0) / 1000;
        progress(`${name}: ${done} requests, ${(done / s).toFixed(0)}/s, ${serverErrors} × 5xx so far`);
      }
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    progress(
      `${name}: time spent generating ${(spent.generate / 1000).toFixed(1)} s, sending ${(spent.send / 1000).toFixed(1)} s, reading the store ${(spent.state / 1000).toFixed(1)} s`,
    );
    return {
      backend,
      markets: stack.markets,
      cases: done,
      seconds,
      startedAt,
      endedAt: Date.now(),
      cpuMs: (cpu.user + cpu.system) / 1000,
      spent: { generate: spent.generate / 1000, send: spent.send / 1000, state: spent.state / 1000 },
      baselineCasesPerS,
      routes: templates.map((t) => t.key),
      serverErrors,
      shapeErrors,
      schemaErrors,
      stateChanges,
      statuses,
      routesNeverOk: templates.map((t) => t.key).filter((k) => !ok.has(k)),
      examples,
    };
  } finally {
    await stack.stop();
  }
}

/** A shard's process: runs its share of one backend's stream and sends its figures to the parent. */
async function shardMain(spec: string): Promise<void> {
  const [name = '', index = '0'] = spec.split(':');
  const backend = BACKENDS[name];
  if (!backend) throw new Error(`BENCH_FUZZ_SHARD: unknown backend '${name}'`);
  const figures = await runShard(`${name}[${index}/${SHARDS}]`, backend, Number(index));
  await new Promise<void>((resolve, reject) =>
    process.send?.(figures, (error: Error | null) => (error ? reject(error) : resolve())),
  );
}

/** Forks one process per shard of `name` and sums their figures. */
async function runBackend(name: string, backend: FuzzBackend, children: Set<ChildProcess>): Promise<Figures> {
  const shards = await Promise.all(
    Array.from({ length: SHARDS }, (_, index) => {
      const child = fork(fileURLToPath(import.meta.url), [], {
        env: { ...process.env, BENCH_FUZZ_SHARD: `${name}:${index}`, BENCH_FUZZ_SEED: String(SEED) },
      });
      children.add(child);
      return new Promise<ShardFigures>((resolve, reject) => {
        let figures: ShardFigures | undefined;
        child.on('message', (m) => {
          figures = m as ShardFigures;
        });
        child.on('exit', (code) => {
          children.delete(child);
          if (figures) resolve(figures);
          else reject(new Error(`${name} shard ${index} exited with ${code} and no figures`));
        });
      });
    }),
  );
  const cases = shards.reduce((n, f) => n + f.cases, 0);
  const seconds =
    (Math.max(...shards.map((f) => f.endedAt)) - Math.min(...shards.map((f) => f.startedAt))) / 1000;
  const sum = (pick: (f: ShardFigures) => number) => shards.reduce((n, f) => n + pick(f), 0);
  const statuses: Record<string, number> = {};
  for (const f of shards)
    for (const [s, n] of Object.entries(f.statuses)) statuses[s] = (statuses[s] ?? 0) + n;
  return {
    backend,
    markets: shards[0]?.markets ?? 0,
    shards: shards.length,
    cases,
    seconds,
    casesPerS: cases / seconds,
    casesPerSPerShard: sum((f) => f.cases / f.seconds) / shards.length,
    baselineCasesPerS: shards[0]?.baselineCasesPerS ?? Number.NaN,
    cpuMsPerCase: sum((f) => f.cpuMs) / Math.max(1, cases),
    spent: {
      generate: sum((f) => f.spent.generate),
      send: sum((f) => f.spent.send),
      state: sum((f) => f.spent.state),
    },
    serverErrors: sum((f) => f.serverErrors),
    shapeErrors: sum((f) => f.shapeErrors),
    schemaErrors: sum((f) => f.schemaErrors),
    stateChanges: sum((f) => f.stateChanges),
    statuses,
    // A route counts as reached when any shard got a 2xx from it.
    routesNeverOk: (shards[0]?.routes ?? []).filter((r) => shards.every((f) => f.routesNeverOk.includes(r))),
    examples: shards.flatMap((f) => f.examples).slice(0, 20),
  };
}

async function main(): Promise<void> {
  for (const name of CHOSEN) {
    if (!BACKENDS[name]) throw new Error(`BENCH_FUZZ_BACKENDS: unknown backend '${name}' (sqlite, postgres)`);
  }
  const children = new Set<ChildProcess>();
  // The shards stop on their own signal when the terminal sends it to the group; a SIGTERM to this process alone
  // is passed on.
  process.on('SIGTERM', () => {
    for (const child of children) child.kill('SIGTERM');
  });
  const loads: number[] = [];
  const sampler = setInterval(() => loads.push(loadavg()[0] ?? Number.NaN), 10_000);
  loads.push(loadavg()[0] ?? Number.NaN);
  const startedAt = new Date().toISOString();
  let results: Figures[];
  let ws: WsFuzzFigures | null;
  try {
    results = await Promise.all(
      CHOSEN.map((name) => runBackend(name, BACKENDS[name] as FuzzBackend, children)),
    );
    // Alone, after the HTTP shards: its figures (RSS above all) are the server's, not the neighbours'.
    ws = WEBSOCKET && !stopRequested ? await wsFuzz(SEED) : null;
  } finally {
    clearInterval(sampler);
  }
  loads.push(loadavg()[0] ?? Number.NaN);
  const load = {
    mean: loads.reduce((a, b) => a + b, 0) / loads.length,
    min: Math.min(...loads),
    max: Math.max(...loads),
  };
  const machine = machineFacts();
  const command = `BENCH_FUZZ_SEED=${SEED} BENCH_FUZZ_CASES=${CASES} BENCH_FUZZ_SHARDS=${SHARDS} BENCH_FUZZ_BACKENDS=${CHOSEN.join(',')}${
    CHOSEN.includes('postgres') ? ' TEST_DATABASE_URL=… TEST_REDIS_URL=…' : ''
  } npm run bench:fuzz`;
  const lines = [
    `HTTP fuzz over a populated catalogue — seed ${SEED}, ${CASES} requests per backend asked${stopRequested ? ' (stopped early by a signal: see the requests column)' : ''}`,
    `command: ${command}`,
    `machine: ${machine.cpuModel}, ${machine.cores} cores, node ${machine.node} (shared machine: rates are noisy)`,
    `load average (1 min) during the run, sampled every 10 s: mean ${load.mean.toFixed(2)}, min ${load.min.toFixed(2)}, max ${load.max.toFixed(2)}`,
    `${SHARDS} shard(s) per backend, all backends at once; a shard sends one request at a time and reads the store after each`,
    '',
    'backend            markets  requests  seconds  cases/s  per shard  bare node:http  ratio  CPU ms/case   5xx  shape  schema  state',
  ];
  for (const f of results) {
    lines.push(
      `${f.backend.padEnd(18)} ${String(f.markets).padStart(7)} ${String(f.cases).padStart(9)} ${f.seconds.toFixed(0).padStart(8)} ` +
        `${f.casesPerS.toFixed(0).padStart(8)} ${f.casesPerSPerShard.toFixed(1).padStart(10)} ${f.baselineCasesPerS.toFixed(0).padStart(15)} ` +
        `${(f.casesPerSPerShard / f.baselineCasesPerS).toFixed(2).padStart(6)} ${f.cpuMsPerCase.toFixed(1).padStart(12)} ` +
        `${String(f.serverErrors).padStart(5)} ${String(f.shapeErrors).padStart(6)} ${String(f.schemaErrors).padStart(7)} ${String(f.stateChanges).padStart(6)}`,
    );
  }
  for (const f of results) {
    const tally = Object.entries(f.statuses)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([s, n]) => `${s}×${n}`)
      .join(' ');
    lines.push('', `${f.backend}: statuses ${tally}`);
    lines.push(
      `${f.backend}: wall time over all shards: generating ${f.spent.generate.toFixed(0)} s, sending ${f.spent.send.toFixed(0)} s, reading the store ${f.spent.state.toFixed(0)} s`,
    );
    lines.push(`${f.backend}: routes never answered 2xx: ${f.routesNeverOk.join(', ') || 'none'}`);
    for (const e of f.examples) lines.push(`  violation: ${e}`);
  }
  if (ws) {
    const tally = (r: Record<string, number>) =>
      Object.entries(r)
        .map(([k, n]) => `${k}×${n}`)
        .join(' ') || 'none';
    lines.push(
      '',
      `WebSocket: ${ws.sockets} sockets, ${ws.frames} frames in ${ws.seconds.toFixed(0)} s (hostile frames, floods, slow readers, many connections)`,
      `WebSocket: server RSS ${ws.rssBeforeMiB.toFixed(0)} MiB before (after a warm-up), peak ${ws.rssPeakMiB.toFixed(0)} MiB, ${ws.rssAfterMiB.toFixed(0)} MiB after`,
      `WebSocket: closes by code ${tally(ws.closes)}; upgrades past the unauthenticated cap ${tally(ws.upgradeStatuses)}`,
      `WebSocket: ${ws.violations.length} violations`,
      ...ws.violations.slice(0, 20).map((v) => `  violation: ${v}`),
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  const dir = join(REPO_ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, `fuzz-${CHOSEN.join('-') || 'ws'}.json`),
    `${JSON.stringify({ seed: SEED, at: startedAt, command, machine, loadAverage1m: load, results, websocket: ws }, null, 2)}\n`,
  );
  const violations =
    results.reduce((n, f) => n + f.serverErrors + f.shapeErrors + f.schemaErrors + f.stateChanges, 0) +
    (ws?.violations.length ?? 0);
  if (violations > 0) process.exitCode = 1;
}

(SHARD ? shardMain(SHARD) : main()).catch((error) => {
  process.stderr.write(`bench:fuzz: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
