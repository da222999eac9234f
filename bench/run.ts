// `npm run bench`: starts `omnibook serve` as a user runs it (embedded default, the five exchanges being our
// simulators in another process so their work is not counted as ours) and a bare node:http baseline serving the
// same bytes, drives both with autocannon on 127.0.0.1 (baseline, then ours, per round), prints the comparison,
// and always cleans up.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { type BenchConfig, ENV_NAMES, readBenchConfig } from './config.js';
import { failuresOf, type LoadSummary, runLoad } from './load.js';
import { machineFacts, processMemory } from './machine.js';
import {
  describeFailures,
  failureLines,
  type Memory,
  memoryLines,
  type RoundResult,
  setupLines,
  tableLines,
  verdictLines,
} from './report.js';
import { keyCreateArgs, omnibookArgs, REPO_ROOT, startBaseline, startBenchStack } from './servers.js';
import type { ServerProcess } from './spawn-server.js';
import { progress } from './support.js';

const PATH = '/api/v1/exchanges';

class HarnessError extends Error {
  override readonly name = 'HarnessError';
}

async function main(): Promise<number> {
  const config = readBenchConfig();
  const tmp = mkdtempSync(join(tmpdir(), 'omnibook-bench-'));
  const servers: ServerProcess[] = [];
  let cleaning: Promise<void> | null = null;
  const cleanup = () => {
    cleaning ??= (async () => {
      const exits = await Promise.all(servers.map(async (s) => ({ name: s.name, exit: await s.stop() })));
      for (const { name, exit } of exits) {
        if (exit.killed || (exit.code !== 0 && exit.signal !== 'SIGTERM')) {
          progress(
            `warning: ${name} did not stop cleanly (code ${exit.code}, signal ${exit.signal}, killed ${exit.killed})`,
          );
        }
      }
      rmSync(tmp, { recursive: true, force: true });
    })();
    return cleaning;
  };
  const abort = (why: string, code: number) => {
    process.stderr.write(`bench: ${why}; cleaning up\n`);
    cleanup().finally(() => process.exit(code));
  };
  const watchdog = setTimeout(
    () => abort(`exceeded the time budget of ${budgetS(config)} s`, 1),
    budgetS(config) * 1000,
  );
  const onSignal = (signal: NodeJS.Signals) => abort(`received ${signal}`, 130);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    return await bench(config, tmp, servers);
  } finally {
    clearTimeout(watchdog);
    await cleanup();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

async function bench(config: BenchConfig, tmp: string, servers: ServerProcess[]): Promise<number> {
  const {
    ours,
    launch,
    apiKey: key,
    synced,
  } = await startBenchStack(tmp, servers, { profileDir: config.profileDir });
  const { dataDir, adminKey } = launch;
  const headers = { 'x-api-key': key };

  const reference = await fetchOnce(`${ours.url}${PATH}`, headers, 'omnibook');
  const bodyFile = join(tmp, 'baseline-body.json');
  writeFileSync(bodyFile, reference.body);
  progress(`starting baseline (${reference.body.length} bytes, ${reference.contentType})`);
  const baseline = await startBaseline({ bodyFile, contentType: reference.contentType });
  servers.push(baseline);
  const check = await fetchOnce(`${baseline.url}${PATH}`, headers, 'baseline');
  if (!check.body.equals(reference.body) || check.contentType !== reference.contentType) {
    throw new HarnessError('baseline does not answer with the same body and content-type as our server');
  }

  const memory: Memory = {
    oursIdle: processMemory(ours.pid),
    oursAfter: undefined,
    baselineAfter: undefined,
  };
  const rounds: RoundResult[] = [];
  for (let round = 1; round <= config.rounds; round++) {
    const b = await warmAndMeasure(config, `baseline#${round}`, baseline, headers);
    const o = await warmAndMeasure(config, `omnibook#${round}`, ours, headers);
    rounds.push({ round, baseline: b, ours: o });
  }
  memory.oursAfter = processMemory(ours.pid);
  memory.baselineAfter = processMemory(baseline.pid);

  const notes = [
    'the venues are the five simulators (node --import tsx bench/sim-host.ts), in a process of their own',
    `the catalogue sync stays on, as by default; its first pass (${synced.markets} markets) ended before measuring`,
    'autocannon runs inside this process, on the same cores as both servers',
    'latency percentiles: 2xx responses only, measured per response (sub-millisecond resolution)',
  ];
  if (config.profileDir) {
    notes.push(`omnibook runs under --cpu-prof (profile written to ${config.profileDir} at stop)`);
  }
  const out = [
    ...setupLines({
      machine: machineFacts(),
      command: commandLine(),
      oursCommand: `OMNIBOOK_ADMIN_KEY=<random, ${adminKey.length} chars> OPINION_API_KEY=… PREDICTFUN_API_KEY=… node ${omnibookArgs(launch).join(' ')}`,
      keyCommand: `node ${keyCreateArgs(dataDir).join(' ')}`,
      baselineCommand:
        'node --import tsx bench/baseline-server.ts (bare node:http, same body and content-type)',
      load:
        `autocannon GET ${PATH}, 127.0.0.1, ${config.connections} connections, ${config.warmupS} s warm-up + ` +
        `${config.durationS} s measured per server, ${config.rounds} round(s) of (baseline, omnibook), X-API-Key sent to both`,
      body: `${reference.body.length} bytes, ${reference.contentType}`,
      notes,
    }),
    '',
    ...tableLines(rounds),
    '',
    ...verdictLines(rounds).lines,
    ...memoryLines(memory),
  ];
  const failures = failureLines(rounds);
  if (failures.length > 0) {
    out.push('', 'FAIL: not every response was a clean 2xx, so the figures above are meaningless:');
    out.push(...failures.map((f) => `  ${f}`));
    const tail = stderrOf(ours);
    if (tail) out.push(tail.trimStart());
  }
  process.stdout.write(`${out.join('\n')}\n`);
  return failures.length > 0 ? 1 : 0;
}

async function warmAndMeasure(
  config: BenchConfig,
  title: string,
  server: ServerProcess,
  headers: Record<string, string>,
): Promise<LoadSummary> {
  const target = `${server.url}${PATH}`;
  progress(`${title}: warm-up ${config.warmupS} s`);
  const warm = await runLoad({
    title: `${title} warm-up`,
    url: target,
    headers,
    connections: config.connections,
    durationS: config.warmupS,
  });
  assertAlive(server, warm);
  if (failuresOf(warm) > 0) {
    throw new HarnessError(
      `${warm.title}: ${describeFailures(warm)}; refusing to measure${stderrOf(server)}`,
    );
  }
  progress(`${title}: measuring ${config.durationS} s`);
  const measured = await runLoad({
    title,
    url: target,
    headers,
    connections: config.connections,
    durationS: config.durationS,
  });
  assertAlive(server, measured);
  return measured;
}

function assertAlive(server: ServerProcess, run: LoadSummary): void {
  if (server.alive()) return;
  throw new HarnessError(`${run.title}: ${server.name} exited during the run${stderrOf(server)}`);
}

function stderrOf(server: ServerProcess): string {
  const tail = server.stderrTail().trimEnd();
  return tail ? `\n--- ${server.name} stderr (tail) ---\n${tail}` : '';
}

interface Fetched {
  body: Buffer;
  contentType: string;
}

async function fetchOnce(url: string, headers: Record<string, string>, name: string): Promise<Fetched> {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(10_000) });
  const body = Buffer.from(await response.arrayBuffer());
  if (response.status !== 200) {
    throw new HarnessError(
      `${name}: GET ${url} answered ${response.status}: ${body.toString('utf8').slice(0, 500)}`,
    );
  }
  const contentType = response.headers.get('content-type') ?? '';
  if (!contentType.startsWith('application/json')) {
    throw new HarnessError(`${name}: content-type is '${contentType}'`);
  }
  return { body, contentType };
}

function commandLine(): string {
  const env = ENV_NAMES.filter((n) => process.env[n]).map((n) => `${n}=${process.env[n]}`);
  if (process.env.BENCH_PROFILE_DIR) env.push(`BENCH_PROFILE_DIR=${process.env.BENCH_PROFILE_DIR}`);
  const script = relative(REPO_ROOT, process.argv[1] ?? 'bench/run.ts');
  const node = ['node', ...process.execArgv, script].join(' ');
  const viaNpm = process.env.npm_lifecycle_event === 'bench';
  return [...env, viaNpm ? `npm run bench   (runs: ${node})` : node].join(' ');
}

/** Generous upper bound on the whole run: both servers' load time plus start-up and shutdown allowances. */
function budgetS(config: BenchConfig): number {
  return config.rounds * 2 * (config.warmupS + config.durationS + 15) + 300;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const text =
      error instanceof HarnessError ? error.message : error instanceof Error ? error.stack : undefined;
    process.stderr.write(`bench: ${text ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
