// Launches the two servers under test (our real `omnibook sandbox` and the bare baseline) and mints the
// benchmark API key through our own CLI, all on 127.0.0.1 with an environment free of outside config.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { SimHostConfig } from './sim-host.js';
import { type ServerProcess, spawnServer } from './spawn-server.js';
import { progress } from './support.js';

const execFileAsync = promisify(execFile);

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = 'bin/omnibook.js';

/** Settings a developer's shell might carry that would point our server elsewhere than a fresh SQLite dir. */
const INHERITED_CONFIG = ['HOST', 'PORT', 'DATABASE_URL', 'REDIS_URL', 'LOG_LEVEL'];

export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    const inherited =
      name.startsWith('OMNIBOOK_') || name.startsWith('BENCH_') || INHERITED_CONFIG.includes(name);
    if (!inherited) env[name] = value;
  }
  return { ...env, ...extra };
}

export function randomAdminKey(): string {
  return `bench_${randomBytes(24).toString('base64url')}`;
}

export interface OmnibookLaunch {
  dataDir: string;
  adminKey: string;
  /** Extra node flags (e.g. --cpu-prof); empty for a plain run. */
  nodeArgs: readonly string[];
  /** `omnibook serve` reads this config file (the venues' URLs); its environment adds `env`. */
  configFile: string;
  env: Record<string, string>;
}

/** `omnibook serve` on the embedded default (SQLite in dataDir, in-process limiter), as a user starts it. */
export function omnibookArgs(launch: OmnibookLaunch): string[] {
  return [
    ...launch.nodeArgs,
    BIN,
    'serve',
    '--port',
    '0',
    '--data-dir',
    launch.dataDir,
    '--config',
    launch.configFile,
    '--log-level',
    'warn',
  ];
}

export function startOmnibook(launch: OmnibookLaunch): Promise<ServerProcess> {
  return spawnServer({
    name: 'omnibook',
    command: process.execPath,
    args: omnibookArgs(launch),
    env: cleanEnv({ ...launch.env, OMNIBOOK_ADMIN_KEY: launch.adminKey }),
    cwd: REPO_ROOT,
    startTimeoutMs: 60_000,
  });
}

/**
 * The five simulators in their own process (bench/sim-host.ts); it writes the venues' config to `configFile`.
 * `size`: propositions in the simulated world (the simulators' default when left out).
 */
export function startSimHost(configFile: string, size?: number): Promise<ServerProcess> {
  return spawnServer({
    name: 'simulators',
    command: process.execPath,
    args: ['--import', 'tsx', 'bench/sim-host.ts'],
    env: cleanEnv({
      BENCH_SIM_CONFIG_FILE: configFile,
      ...(size !== undefined ? { BENCH_SIM_SIZE: String(size) } : {}),
    }),
    cwd: REPO_ROOT,
    startTimeoutMs: 60_000,
  });
}

export function keyCreateArgs(dataDir: string): string[] {
  return [
    BIN,
    'keys',
    'create',
    '--tier',
    'scale',
    '--qps',
    '10000000',
    '--burst',
    '10000000',
    '--json',
    '--data-dir',
    dataDir,
  ];
}

/** Creates a scale key whose limits are far above anything we can send, so the limiter runs but never says no. */
export async function createBenchKey(dataDir: string, env: NodeJS.ProcessEnv = cleanEnv()): Promise<string> {
  const { stdout } = await execFileAsync(process.execPath, keyCreateArgs(dataDir), {
    cwd: REPO_ROOT,
    env,
    // The CLI compiles its TypeScript on start: on a 2-core machine at load 30 that alone took 1 min 51 s.
    timeout: 300_000,
    killSignal: 'SIGKILL',
  });
  const line = stdout.trim().split('\n').at(-1) ?? '';
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    throw new Error(`keys create printed no JSON line:\n${stdout}`);
  }
  const key = typeof parsed === 'object' && parsed !== null && 'key' in parsed ? parsed.key : undefined;
  if (typeof key !== 'string' || key.length === 0) {
    throw new Error(`keys create printed no 'key' field: ${line}`);
  }
  return key;
}

export interface BaselineLaunch {
  bodyFile: string;
  contentType: string;
  /** Answer every GET path with the body, not only /api/v1/exchanges. */
  anyPath?: boolean;
}

export function startBaseline(launch: BaselineLaunch): Promise<ServerProcess> {
  return spawnServer({
    name: 'baseline',
    command: process.execPath,
    args: ['--import', 'tsx', 'bench/baseline-server.ts'],
    env: cleanEnv({
      BENCH_BASELINE_BODY_FILE: launch.bodyFile,
      BENCH_BASELINE_CONTENT_TYPE: launch.contentType,
      ...(launch.anyPath ? { BENCH_BASELINE_ANY_PATH: '1' } : {}),
    }),

    cwd: REPO_ROOT,
    startTimeoutMs: 30_000,
  });
}

/** Waits (bounded) until every exchange's catalogue has been walked once, as /healthz reports it. */
export async function firstSyncPass(url: string): Promise<{ markets: number }> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(10_000) });
    const health = (await res.json()) as {
      catalogue?: { exchanges: Record<string, { markets_seen: number; last_full_at: string | null }> };
    };
    const exchanges = Object.values(health.catalogue?.exchanges ?? {});
    if (exchanges.length === 5 && exchanges.every((e) => e.last_full_at !== null)) {
      return { markets: exchanges.reduce((n, e) => n + e.markets_seen, 0) };
    }
    if (Date.now() > deadline) {
      throw new Error(`the first catalogue sync pass did not end within 120 s: ${JSON.stringify(health)}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** What startBenchStack started: the simulators' config, `omnibook serve` on them, and a key for it. */
export interface BenchStack {
  dataDir: string;
  sims: SimHostConfig;
  ours: ServerProcess;
  launch: OmnibookLaunch;
  apiKey: string;
  synced: { markets: number };
}

/**
 * The five simulators in their own process and `omnibook serve` on them (SQLite under `tmp`), with a bench key,
 * once its first catalogue sync pass is done. Each process goes into `servers` as soon as it runs, so the caller's
 * cleanup stops it even when a later step fails.
 */
export async function startBenchStack(
  tmp: string,
  servers: ServerProcess[],
  options: { simSize?: number; profileDir?: string } = {},
): Promise<BenchStack> {
  const dataDir = join(tmp, 'data');
  mkdirSync(dataDir);
  const size = options.simSize === undefined ? '' : ` (size ${options.simSize})`;
  progress(`starting the five simulators${size} in their own process`);
  const simConfigFile = join(tmp, 'simulators.json');
  servers.push(await startSimHost(simConfigFile, options.simSize));
  const sims = JSON.parse(readFileSync(simConfigFile, 'utf8')) as SimHostConfig;
  const configFile = join(tmp, 'omnibook.json');
  writeFileSync(configFile, JSON.stringify(sims.config));
  progress(`starting omnibook serve (data dir ${dataDir})`);
  const launch: OmnibookLaunch = {
    dataDir,
    adminKey: randomAdminKey(),
    nodeArgs: options.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`] : [],
    configFile,
    env: sims.env,
  };
  const ours = await startOmnibook(launch);
  servers.push(ours);
  const apiKey = await createBenchKey(dataDir);
  progress('waiting for the first catalogue sync pass (the measurement starts once the server is steady)');
  const synced = await firstSyncPass(ours.url);
  return { dataDir, sims, ours, launch, apiKey, synced };
}
