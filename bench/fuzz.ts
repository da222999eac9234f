// `npm run bench:fuzz`: the HTTP fuzz of test/integration/http/fuzz.test.ts at volume — BENCH_FUZZ_CASES (100,000)
// requests per storage backend (SQLite + in-process limiter, then PostgreSQL + Redis at TEST_DATABASE_URL and
// TEST_REDIS_URL), against the real server over loopback with a populated catalogue (the five simulators, the local
// chain, a sync pass first). Every answer is held to the same oracle as the test: no 5xx but 503 retryable and 501
// not_supported, every error in {error, code, retryable}, the route's published response schema, and a refused
// request leaves the store as it was. Unlike the test it does not stop at the first violation: it counts them and
// prints the first few, with the seed that reproduces each batch.
// Baseline: the first BENCH_FUZZ_BASELINE_CASES (5,000) requests of the same stream sent, the same way, to a bare
// node:http server that reads each request and answers a fixed JSON error — cases/s is printed as a ratio to it.
// Settings: BENCH_FUZZ_BACKENDS (sqlite,postgres), BENCH_FUZZ_SEED (time-based when unset), BENCH_SIM_SIZE (40).
// Figures are printed (and written to bench/results/fuzz-<backends>.json), never asserted.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
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
import { machineFacts } from './machine.js';
import { REPO_ROOT } from './servers.js';
import { envInt, progress } from './support.js';

const CASES = envInt('BENCH_FUZZ_CASES', 100_000);
const BASELINE_CASES = Math.min(CASES, envInt('BENCH_FUZZ_BASELINE_CASES', 5_000));
const SIM_SIZE = envInt('BENCH_SIM_SIZE', 40);
const SEED = process.env.BENCH_FUZZ_SEED ? Number(process.env.BENCH_FUZZ_SEED) : Date.now() % 2 ** 31;
const BATCH = 500;
const BACKENDS: Record<string, FuzzBackend> = { sqlite: 'sqlite + memory', postgres: 'postgres + redis' };
const CHOSEN = (process.env.BENCH_FUZZ_BACKENDS ?? 'sqlite,postgres').split(',').map((b) => b.trim());

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
  cases: number;
  seconds: number;
  casesPerS: number;
  baselineCasesPerS: number;
  serverErrors: number;
  shapeErrors: number;
  schemaErrors: number;
  stateChanges: number;
  statuses: Record<string, number>;
  /** Routes (method + template) no request got a 2xx from: where the fuzz does not reach the handler's success. */
  routesNeverOk: string[];
  examples: string[];
}

/** The request stream: batch i is fc.sample with seed SEED + i, so any batch can be regenerated alone. */
function* stream(arbitrary: fc.Arbitrary<RequestSpec>, count: number): Generator<[RequestSpec, number]> {
  for (let batch = 0; batch * BATCH < count; batch++) {
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

async function runBackend(name: string, backend: FuzzBackend): Promise<Figures> {
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

    progress(`${name}: baseline, ${BASELINE_CASES} requests to a bare node:http server`);
    const bare = await baselineServer();
    // Generated first: the baseline times the round trips alone.
    const baselineSpecs = [...stream(arbitrary, BASELINE_CASES)].map(([spec]) => spec);
    const b0 = performance.now();
    for (const spec of baselineSpecs) await sendRaw(bare.url, spec);
    const baselineCasesPerS = BASELINE_CASES / ((performance.now() - b0) / 1000);
    await bare.close();

    progress(`${name}: ${CASES} requests over ${stack.markets} stored markets (seed ${SEED})`);
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
    let state = await storeState(server.runtime.store);
    const t0 = performance.now();
    let done = 0;
    const spent = { generate: 0, send: 0, state: 0 };
    const requests = stream(arbitrary, CASES);
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
        state = await storeState(server.runtime.store);
        continue;
      }
      statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
      const route = routeOf(spec.method, spec.path, templates);
      if (answer.status < 300 && route) ok.add(route);
      const st0 = performance.now();
      const now = await storeState(server.runtime.store);
      const changed = answer.status >= 400 ? await forbiddenChanges(server.runtime.store, state, now) : [];
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
      if (done % 2_000 === 0) {
        const s = (performance.now() - t0) / 1000;
        progress(`${name}: ${done} requests, ${(done / s).toFixed(0)}/s, ${serverErrors} × 5xx so far`);
      }
    }
    const seconds = (performance.now() - t0) / 1000;
    progress(
      `${name}: time spent generating ${(spent.generate / 1000).toFixed(1)} s, sending ${(spent.send / 1000).toFixed(1)} s, reading the store ${(spent.state / 1000).toFixed(1)} s`,
    );
    return {
      backend,
      markets: stack.markets,
      cases: done,
      seconds,
      casesPerS: done / seconds,
      baselineCasesPerS,
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

async function main(): Promise<void> {
  const results: Figures[] = [];
  for (const name of CHOSEN) {
    const backend = BACKENDS[name];
    if (!backend) throw new Error(`BENCH_FUZZ_BACKENDS: unknown backend '${name}' (sqlite, postgres)`);
    if (!stopRequested) results.push(await runBackend(name, backend));
  }
  const machine = machineFacts();
  const lines = [
    `HTTP fuzz over a populated catalogue — seed ${SEED}, ${CASES} requests per backend asked${stopRequested ? ' (stopped early by a signal: see the requests column)' : ''}`,
    `machine: ${machine.cpuModel}, ${machine.cores} cores, node ${machine.node} (shared machine: rates are noisy)`,
    '',
    'backend            markets  requests  seconds  cases/s  bare node:http  ratio   5xx  shape  schema  state',
  ];
  for (const f of results) {
    lines.push(
      `${f.backend.padEnd(18)} ${String(f.markets).padStart(7)} ${String(f.cases).padStart(9)} ${f.seconds.toFixed(0).padStart(8)} ` +
        `${f.casesPerS.toFixed(0).padStart(8)} ${f.baselineCasesPerS.toFixed(0).padStart(15)} ${(f.casesPerS / f.baselineCasesPerS).toFixed(2).padStart(6)} ` +
        `${String(f.serverErrors).padStart(5)} ${String(f.shapeErrors).padStart(6)} ${String(f.schemaErrors).padStart(7)} ${String(f.stateChanges).padStart(6)}`,
    );
  }
  for (const f of results) {
    const tally = Object.entries(f.statuses)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([s, n]) => `${s}×${n}`)
      .join(' ');
    lines.push('', `${f.backend}: statuses ${tally}`);
    lines.push(`${f.backend}: routes never answered 2xx: ${f.routesNeverOk.join(', ') || 'none'}`);
    for (const e of f.examples) lines.push(`  violation: ${e}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  const dir = join(REPO_ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, `fuzz-${CHOSEN.join('-')}.json`),
    `${JSON.stringify({ seed: SEED, at: new Date().toISOString(), machine, results }, null, 2)}\n`,
  );
  const violations = results.reduce(
    (n, f) => n + f.serverErrors + f.shapeErrors + f.schemaErrors + f.stateChanges,
    0,
  );
  if (violations > 0) process.exitCode = 1;
}

main().catch((error) => {
  process.stderr.write(`bench:fuzz: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
