// The set-up the SIGKILL tests share (test/integration/cli/*-crash.test.ts): the exchange simulators live in the
// test process (so they outlive every server), each with an adapter and a paper account to count what the exchange
// holds, a fault that holds an order there (the answer held back, or the request held before processing), and the
// real `omnibook serve` as a child process on one data directory, killed with SIGKILL and started again.
//
// A restart is mostly module loading (about 4 s of CPU through tsx, 12-15 s of wall time on the shared 2-core
// machine; opening the store and listening is the rest, about 3 s there). So the harness keeps the next server
// process warm: spawned ahead with test/support/warm-start.mjs, it loads the server's modules and waits; `start()`
// hands it its arguments and it runs `omnibook serve` as `bin/omnibook.js` does. Until then it has opened nothing in
// the data directory (no lock, no store), so what a restart finds after a kill is exactly what a cold start finds.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startKalshiSim } from '../../sim/kalshi/index.js';
import { startLimitlessSim } from '../../sim/limitless/index.js';
import { startOpinionSim } from '../../sim/opinion/index.js';
import { startPolymarketSim } from '../../sim/polymarket/index.js';
import { startPredictfunSim } from '../../sim/predictfun/index.js';
import type { ExchangeId } from '../../src/domain/exchanges.js';
import { createKalshiAdapter } from '../../src/venues/kalshi/index.js';
import { createLimitlessAdapter } from '../../src/venues/limitless/index.js';
import { createOpinionAdapter } from '../../src/venues/opinion/index.js';
import { createPolymarketAdapter } from '../../src/venues/polymarket/index.js';
import type { VenueAdapter, VenueSession } from '../../src/venues/port.js';
import { createPredictfunAdapter } from '../../src/venues/predictfun/index.js';
import { venueContext } from './catalogue.js';
import { BIN, type ServerProcess } from './cli.js';
import { waitFor } from './server.js';

const WARM_START = fileURLToPath(new URL('./warm-start.mjs', import.meta.url));

export interface CrashVenue {
  exchange: ExchangeId;
  control: string;
  adapter: VenueAdapter;
  session: VenueSession;
  /** Another funded paper account of the simulator (to trade against the server's, e.g. to thin a book). */
  newSession(): Promise<VenueSession>;
  /** The simulator fault that holds an order on its order route (as the fault filter names the route). */
  fault: Record<string, unknown>;
  /** The `venues.<exchange>` entry of the server's config. */
  config: Record<string, unknown>;
  close(): Promise<void>;
}

export interface CrashWorld {
  seed: number;
  size: number;
}

const ADAPTER = { timeoutMs: 5_000, unpaced: true } as const;

/** One exchange's simulator, adapter and funded paper account. */
export async function startCrashVenue(exchange: ExchangeId, world: CrashWorld): Promise<CrashVenue> {
  const session = (credentials: Record<string, string>): VenueSession => ({
    exchange,
    credentials,
    source: 'per_request',
  });
  switch (exchange) {
    case 'polymarket': {
      const sim = await startPolymarketSim({ ...world, newWalletBalance: '1000000000' });
      const config = {
        gammaUrl: sim.urls.gamma,
        clobUrl: sim.urls.clob,
        dataUrl: sim.urls.data,
        wsMarketUrl: sim.urls.wsMarket,
        wsUserUrl: sim.urls.wsUser,
      };
      const adapter = createPolymarketAdapter({ ...config, ...ADAPTER });
      return {
        exchange,
        control: sim.control,
        adapter,
        session: session((await sim.createAccount()).credentials),
        newSession: async () => session((await sim.createAccount()).credentials),
        fault: { hold_response_ms: 120_000, only: ['POST /order'] },
        config,
        close: async () => {
          await adapter.close?.();
          await sim.close();
        },
      };
    }
    case 'kalshi': {
      const sim = await startKalshiSim(world);
      const config = { restUrl: sim.url, wsUrl: sim.wsUrl };
      const adapter = createKalshiAdapter({ ...config, ...ADAPTER, streamCredentials: null });
      return {
        exchange,
        control: sim.control,
        adapter,
        session: session((await sim.createAccount()).credentials),
        newSession: async () => session((await sim.createAccount()).credentials),
        // Kalshi's request is held before it is processed (it is processed once released).
        fault: { latency_ms: 120_000, only: ['POST /trade-api/v2/portfolio/events/orders'] },
        config,
        close: async () => {
          await adapter.close?.();
          await sim.close();
        },
      };
    }
    case 'limitless': {
      const sim = await startLimitlessSim(world);
      const config = { restUrl: sim.url, wsUrl: sim.wsUrl };
      const adapter = createLimitlessAdapter({ ...config, ...ADAPTER });
      return {
        exchange,
        control: sim.control,
        adapter,
        session: session((await sim.createAccount({ fund: '1000000000' })).credentials),
        newSession: async () => session((await sim.createAccount({ fund: '1000000000' })).credentials),
        fault: { hold_response_ms: 120_000, only: ['POST /orders'] },
        config,
        close: async () => {
          await adapter.close();
          await sim.close();
        },
      };
    }
    case 'opinion': {
      const sim = await startOpinionSim(world);
      const config = { restUrl: sim.url, apiKey: sim.apiKey };
      const adapter = createOpinionAdapter({ ...config, ...ADAPTER, pollIntervalMs: 1_000 });
      return {
        exchange,
        control: sim.control,
        adapter,
        session: session((await sim.createAccount()).credentials),
        newSession: async () => session((await sim.createAccount()).credentials),
        fault: { hold_response_ms: 120_000, only: ['POST /openapi/order'] },
        config,
        close: async () => {
          await adapter.close?.();
          await sim.close();
        },
      };
    }
    case 'predictfun': {
      const sim = await startPredictfunSim(world);
      const config = {
        restUrl: sim.url,
        rpcUrl: sim.rpcUrl,
        collateralToken: sim.collateralToken,
        apiKey: sim.apiKey,
      };
      const adapter = createPredictfunAdapter({ ...config, ...ADAPTER, pollIntervalMs: 2_000 });
      return {
        exchange,
        control: sim.control,
        adapter,
        session: session((await sim.createAccount()).credentials),
        newSession: async () => session((await sim.createAccount()).credentials),
        fault: { hold_response_ms: 120_000, only: ['POST /v1/orders'] },
        config,
        close: async () => {
          await adapter.close?.();
          await sim.close();
        },
      };
    }
  }
}

export interface CrashHarnessOptions {
  exchanges: readonly ExchangeId[];
  world: CrashWorld;
  adminKey: string;
  /** Whether the first server runs the catalogue sync (and the matcher with it); the restarts never do. */
  syncFirst?: boolean;
  /** Per-call deadline of the server's venue requests (`venues.timeoutMs`); the config's default when absent. */
  venueTimeoutMs?: number;
}

/** A server process spawned ahead, its modules loading or loaded, waiting for its arguments. */
interface WarmProcess {
  child: ChildProcess;
  out: string[];
  err: string[];
  exited: Promise<number | null>;
}

export class CrashHarness {
  readonly venues = new Map<ExchangeId, CrashVenue>();
  /** The server running now (null before the first start and after a kill). */
  server: ServerProcess | null = null;
  private warm: WarmProcess | null = null;
  private started = 0;

  private constructor(
    readonly dataDir: string,
    private readonly options: CrashHarnessOptions,
  ) {}

  static async create(options: CrashHarnessOptions): Promise<CrashHarness> {
    const harness = new CrashHarness(mkdtempSync(join(tmpdir(), 'omnibook-crash-')), options);
    for (const exchange of options.exchanges) {
      harness.venues.set(exchange, await startCrashVenue(exchange, options.world));
    }
    const venues: Record<string, unknown> = Object.fromEntries(
      [...harness.venues].map(([id, v]) => [id, v.config]),
    );
    if (options.venueTimeoutMs !== undefined) venues.timeoutMs = options.venueTimeoutMs;
    const config = (sync: boolean) =>
      JSON.stringify({ catalogue: { sync }, recorder: { enabled: false }, venues });
    writeFileSync(harness.configFile(false), config(false));
    writeFileSync(harness.configFile(true), config(true));
    harness.warm = harness.spawnWarm();
    return harness;
  }

  venue(exchange: ExchangeId): CrashVenue {
    const v = this.venues.get(exchange);
    assert.ok(v, `no ${exchange} venue in this harness`);
    return v;
  }

  /** Per-request credentials for every venue, as POST /route/orders and /arbitrage/execute take them. */
  credentials(): Record<string, Record<string, string>> {
    return Object.fromEntries([...this.venues].map(([id, v]) => [id, v.session.credentials]));
  }

  /**
   * Starts `omnibook serve` on the data directory (the first start syncs the catalogue when `syncFirst`) from the
   * warm process, and spawns the next one. Resolves once it prints `listening on URL`.
   */
  async start(): Promise<ServerProcess> {
    assert.equal(this.server, null, 'a server is running already');
    const sync = this.options.syncFirst === true && this.started === 0;
    this.started += 1;
    const warm = this.warm ?? this.spawnWarm();
    this.warm = null;
    const args = ['serve', '--port', '0', '--data-dir', this.dataDir, '--config', this.configFile(sync)];
    warm.child.stdin?.end(`${JSON.stringify(args)}\n`);
    const server = await listening(warm, 90_000);
    this.server = server;
    this.warm = this.spawnWarm();
    return server;
  }

  /** SIGKILLs the running server and waits until it is gone. */
  async kill(): Promise<void> {
    const server = this.server;
    assert.ok(server, 'no server is running');
    const exited = new Promise((resolve) => server.child.once('exit', resolve));
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
    await exited;
    this.server = null;
  }

  /** Stops the running server with SIGTERM (its clean shutdown). */
  async stop(): Promise<void> {
    await this.server?.stop();
    this.server = null;
  }

  async control(venue: CrashVenue, method: string, path: string, body?: unknown): Promise<unknown> {
    const res = await fetch(`${venue.control}/__sim/${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    assert.ok(res.ok, `${method} /__sim/${path}: ${res.status}`);
    return res.json();
  }

  /** How many requests the venue's simulator holds now. */
  async held(venue: CrashVenue): Promise<number> {
    return ((await this.control(venue, 'GET', 'held')) as { held: number }).held;
  }

  /** Sets the venue's holding fault: its next order is held there. */
  async hold(venue: CrashVenue): Promise<void> {
    await this.control(venue, 'POST', 'faults', venue.fault);
  }

  async waitHeld(venue: CrashVenue, what: string): Promise<void> {
    await waitFor(async () => (await this.held(venue)) >= 1, 20_000, `${venue.exchange} holding ${what}`);
  }

  /** Clears the venue's faults and waits until it holds nothing (a held order completes on the exchange). */
  async release(venue: CrashVenue, what: string): Promise<void> {
    await this.control(venue, 'DELETE', 'faults');
    await waitFor(async () => (await this.held(venue)) === 0, 20_000, `${venue.exchange} releasing ${what}`);
  }

  /** The ids of the account's orders the exchange holds (its history: filled immediate orders are closed). */
  async ordersAt(exchange: ExchangeId): Promise<Set<string>> {
    const v = this.venue(exchange);
    const history = await v.adapter.trading.fetchOrderHistory?.(venueContext(), v.session, null);
    return new Set((history ?? []).map((o) => o.id));
  }

  async close(): Promise<void> {
    const children = [this.server?.child, this.warm?.child].filter((c): c is ChildProcess => c !== undefined);
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    this.server = null;
    this.warm = null;
    await Promise.allSettled([...this.venues.values()].map((v) => v.close()));
    rmSync(this.dataDir, { recursive: true, force: true });
  }

  private configFile(sync: boolean): string {
    return join(this.dataDir, sync ? 'config-sync.json' : 'config.json');
  }

  private spawnWarm(): WarmProcess {
    const env = {
      ...process.env,
      DATABASE_URL: '',
      REDIS_URL: '',
      OMNIBOOK_CONFIG: '',
      OMNIBOOK_DATA_DIR: '',
      OMNIBOOK_ADMIN_KEY: this.options.adminKey,
      PORT: '',
      HOST: '',
      LOG_LEVEL: 'warn',
    };
    const child = spawn(process.execPath, ['--import', 'tsx', WARM_START, BIN], { env, stdio: 'pipe' });
    const out: string[] = [];
    const err: string[] = [];
    child.stdout?.on('data', (d) => out.push(String(d)));
    child.stderr?.on('data', (d) => err.push(String(d)));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    return { child, out, err, exited };
  }
}

/** Resolves once the released process prints `listening on URL`; rejects when it exits first or times out. */
function listening(warm: WarmProcess, timeoutMs: number): Promise<ServerProcess> {
  const { child } = warm;
  return new Promise((resolve, reject) => {
    const text = () => warm.out.join('');
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `server did not start within ${timeoutMs} ms\nstdout: ${text()}\nstderr: ${warm.err.join('')}`,
        ),
      );
    }, timeoutMs);
    const check = () => {
      const match = /^listening on (http:\/\/\S+)$/m.exec(text());
      if (!match?.[1]) return;
      clearTimeout(timer);
      child.stdout?.off('data', check);
      child.off('exit', early);
      resolve({
        url: match[1],
        child,
        stdout: text,
        stderr: () => warm.err.join(''),
        async stop() {
          if (child.exitCode === null) child.kill('SIGTERM');
          return warm.exited;
        },
      });
    };
    const early = (code: number | null) => {
      clearTimeout(timer);
      reject(
        new Error(
          `server exited with ${code} before listening\nstdout: ${text()}\nstderr: ${warm.err.join('')}`,
        ),
      );
    };
    child.stdout?.on('data', check);
    child.once('exit', early);
    check();
  });
}
