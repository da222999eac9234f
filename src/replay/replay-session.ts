// One replay: the recorded window read from the recording's store, a replay venue per recorded exchange, the clock
// and the driver, and the same server (createRuntime) on a fresh working store of its own in a temporary directory.
// The recording is only read, and every run starts from nothing (no journal rows, keys or paper accounts of an
// earlier run), so the same window, seed and orders give the same answers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DestinationStream } from 'pino';
import type { Config } from '../config/schema.js';
import type { ExchangeId } from '../domain/exchanges.js';
import { ReplayClock } from '../domain/replay/replay-clock.js';
import { createRuntime, type Runtime } from '../main.js';
import { openStore, type Store } from '../store/database.js';
import { MarketsRepo } from '../store/markets-repo.js';
import { loadWindow, type ReplayWindow } from './recorded-window.js';
import { ReplayDriver } from './replay-driver.js';
import { ReplayVenue } from './replay-venue.js';
import { WsPacer } from './ws-pacer.js';

export type ReplayPace = { kind: 'fast' } | { kind: 'speed'; speed: number } | { kind: 'backtest' };

export interface ReplayOptions {
  /** The configuration the recording was made under: its store (databaseUrl or dataDir) is read. */
  config: Config;
  fromMs: number;
  toMs: number;
  pace: ReplayPace;
  seed: number;
  exchanges?: readonly ExchangeId[];
  /** Paper cash of each account, USD (default 10000). */
  startingCash?: string;
  logDestination?: DestinationStream;
  /** Tests read a PostgreSQL recording from their own schema. */
  pgSchema?: string;
}

export interface ReplaySession {
  runtime: Runtime;
  window: ReplayWindow;
  clock: ReplayClock;
  driver: ReplayDriver;
  venues: ReadonlyMap<ExchangeId, ReplayVenue>;
  pacer: WsPacer | null;
  /** Stops the server and removes the working directory. */
  stop(): Promise<void>;
}

export class EmptyWindowError extends Error {
  override readonly name = 'EmptyWindowError';
}

export async function startReplay(options: ReplayOptions): Promise<ReplaySession> {
  if (!(options.toMs > options.fromMs)) throw new EmptyWindowError('--to must be after --from');
  const source: Store = openStore({
    databaseUrl: options.config.databaseUrl,
    dataDir: options.config.dataDir,
    ...(options.pgSchema ? { pgSchema: options.pgSchema } : {}),
  });
  let window: ReplayWindow;
  try {
    window = await loadWindow(source, {
      fromMs: options.fromMs,
      toMs: options.toMs,
      ...(options.exchanges ? { exchanges: options.exchanges } : {}),
    });
  } finally {
    await source.close();
  }
  if (window.books.length === 0) {
    throw new EmptyWindowError(
      `no recorded book of a catalogued market between ${new Date(options.fromMs).toISOString()} and ${new Date(options.toMs).toISOString()}`,
    );
  }
  const clock = new ReplayClock(options.fromMs);
  const venues = new Map<ExchangeId, ReplayVenue>();
  for (const id of [...new Set(window.books.map((b) => b.instrument.exchange))].sort()) {
    venues.set(
      id,
      new ReplayVenue({
        exchange: id,
        books: window.books.filter((b) => b.instrument.exchange === id),
        clock: clock.now,
        seed: options.seed,
        startingCash: options.startingCash ?? '10000',
      }),
    );
  }
  const pacer = options.pace.kind === 'fast' ? new WsPacer(options.fromMs) : null;
  const driver = new ReplayDriver(window, clock, venues, pacer);
  const workDir = mkdtempSync(join(tmpdir(), 'omnibook-replay-'));
  const base = options.config;
  const { databaseUrl: _db, redisUrl: _redis, ...rest } = base;
  const config: Config = {
    ...rest,
    mode: 'replay',
    dataDir: workDir,
    // The replay's own books must not be recorded, nor its catalogue synced over the recording's.
    recorder: { ...base.recorder, enabled: false },
    catalogue: { ...base.catalogue, sync: false },
    venues: { ...base.venues, circuitBreaker: { ...base.venues.circuitBreaker, enabled: false } },
  };
  const pace =
    options.pace.kind === 'speed'
      ? `speed ${options.pace.speed}`
      : options.pace.kind === 'fast'
        ? 'fast'
        : 'backtest';
  let runtime: Runtime;
  try {
    runtime = await createRuntime(config, {
      venues: [...venues.values()],
      ...(options.logDestination ? { logDestination: options.logDestination } : {}),
      replay: {
        clock: clock.now,
        pacer,
        describe: () => {
          const p = driver.position;
          return {
            clock: new Date(p.clockMs).toISOString(),
            clock_ms: p.clockMs,
            from: new Date(options.fromMs).toISOString(),
            to: new Date(options.toMs).toISOString(),
            pace,
            step: p.step,
            steps: p.steps,
            done: p.done,
          };
        },
      },
    });
  } catch (error) {
    rmSync(workDir, { recursive: true, force: true });
    throw error;
  }
  // The recorded markets are the catalogue: GET /markets, and every market lookup, find them in the working store.
  await new MarketsRepo(runtime.store.db, runtime.store.dialect).upsertMany(
    window.markets,
    new Date(options.fromMs).toISOString(),
  );
  if (window.links.length > 0)
    await runtime.store.db.insertInto('market_links').values(window.links).execute();
  let stopped: Promise<void> | null = null;
  return {
    runtime,
    window,
    clock,
    driver,
    venues,
    pacer,
    stop() {
      stopped ??= runtime.stop().finally(() => rmSync(workDir, { recursive: true, force: true }));
      return stopped;
    },
  };
}

/** `--from`/`--to`: ISO 8601, or Unix milliseconds. */
export function parseInstant(flag: string, raw: string | undefined): number {
  if (raw === undefined) throw new EmptyWindowError(`${flag} is required (ISO 8601 or Unix ms)`);
  const ms = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw);
  if (!Number.isFinite(ms))
    throw new EmptyWindowError(`${flag}: '${raw}' is not a time (ISO 8601 or Unix ms)`);
  return ms;
}
