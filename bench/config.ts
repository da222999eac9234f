// Benchmark settings read from the environment (BENCH_DURATION, BENCH_CONNECTIONS, BENCH_WARMUP, BENCH_ROUNDS,
// BENCH_PROFILE_DIR), validated once so a typo fails fast instead of producing a misleading figure.
import { resolve } from 'node:path';

export interface BenchConfig {
  /** Measured seconds per server and round. */
  durationS: number;
  /** Unmeasured seconds run against a server right before each measured run. */
  warmupS: number;
  connections: number;
  /** How many times the (baseline, ours) pair is run. */
  rounds: number;
  /** When set, our server runs with --cpu-prof and writes its profile here at shutdown. */
  profileDir: string | undefined;
}

/** The ratio ours/bare of requests per second we aim for. */
export const TARGET_RATIO = 0.6;

export const ENV_NAMES = ['BENCH_DURATION', 'BENCH_CONNECTIONS', 'BENCH_WARMUP', 'BENCH_ROUNDS'] as const;

export function readBenchConfig(env: NodeJS.ProcessEnv = process.env): BenchConfig {
  const profile = env.BENCH_PROFILE_DIR;
  return {
    durationS: positiveInt(env, 'BENCH_DURATION', 10, 3600),
    warmupS: positiveInt(env, 'BENCH_WARMUP', 2, 600),
    connections: positiveInt(env, 'BENCH_CONNECTIONS', 50, 10_000),
    rounds: positiveInt(env, 'BENCH_ROUNDS', 3, 100),
    profileDir: profile ? resolve(profile) : undefined,
  };
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) {
    throw new Error(`${name} must be an integer between 1 and ${max}, got '${raw}'`);
  }
  return n;
}
