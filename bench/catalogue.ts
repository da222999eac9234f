// `npm run bench:catalogue`: the market catalogue at scale, per dialect (SQLite, PostgreSQL).
//  1. Sync time: `omnibook sync --sandbox` of ~BENCH_SYNC_MARKETS markets from the five simulators into an empty
//     store (target ≤ 60 s at 100,000).
//  2. Load ~BENCH_MARKETS markets the same way (cached between runs in BENCH_CATALOGUE_DIR / a PG schema, since a
//     million takes minutes), once per status mix (BENCH_MIXES): `realistic`, about a tenth active and the rest
//     closed or resolved as the venues' history is, and `today`, the simulators' default three quarters active.
//     BENCH_BUILD_ONLY=1 loads the missing stores and stops (build them unlocked, then bench under the lock).
//     Then run `omnibook serve` on each store with sync off and drive it with autocannon: scope=list throughput
//     against a bare node:http server answering the same bytes (ratio, target ≥ 0.4); the first request of each
//     default (status=active) search (target p99 ≤ 100 ms) and of each search with another status given (target
//     p99 ≤ 250 ms); warm search at 4 connections (target p99 ≤ 25 ms) and at 32 against a bare server answering a
//     search page's bytes (ratio, target ≥ 0.5); batch lookups of 100 ids p99, and the server's resident memory.
//     Each run also reports the CPU per request of the server process and of the PostgreSQL backends serving it
//     (search target ≤ 1.5 ms in total): on a shared machine wall-clock figures measure the neighbours too, CPU
//     per request much less.
// Everything runs on 127.0.0.1; the figures are printed, never asserted.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { type LoadSummary, runLoad } from './load.js';
import { machineFacts, processCpuMs, processMemory } from './machine.js';
import { cleanEnv, createBenchKey, REPO_ROOT, randomAdminKey, startBaseline } from './servers.js';
import { type ServerProcess, spawnServer } from './spawn-server.js';
import { progress } from './support.js';

const execFileAsync = promisify(execFile);

/** Markets the five simulators list per world proposition (measured: 7,058 markets at size 2,000). */
const MARKETS_PER_PROPOSITION = 3.53;
const SEARCH_CONNECTIONS = 32;
const WARM_SEARCH_CONNECTIONS = 4;
/** First requests named in the report, slowest first. */
const SLOWEST_SHOWN = 5;
/** Status mixes of the loaded store: the share of propositions the simulators list as active. */
const MIXES = { realistic: 0.1, today: 0.75 } as const;
type Mix = keyof typeof MIXES;
/** Statuses other than the default that the simulators list, searched with `status` given. */
const OTHER_STATUSES = ['closed', 'resolved'] as const;
const BATCH_CONNECTIONS = 8;
const BENCH_PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/** The served store's connections carry this name, so their backends' CPU can be found and counted. */
const SERVED_APP_NAME = 'omnibook-bench-served';

type Dialect = 'sqlite' | 'postgres';

interface Settings {
  markets: number;
  syncMarkets: number;
  durationS: number;
  rounds: number;
  dialects: Dialect[];
  mixes: Mix[];
  cacheDir: string;
  /** BENCH_BUILD_ONLY=1: load the cached stores that are missing, measure nothing (run it unlocked, then bench). */
  buildOnly: boolean;
}

interface Target {
  dialect: Dialect;
  dataDir: string;
  /** DATABASE_URL for PostgreSQL (schema chosen through the connection's search_path). */
  databaseUrl: string | null;
}

function settings(): Settings {
  const num = (name: string, fallback: number, zero = false) => {
    const raw = process.env[name];
    const n = raw ? Number(raw) : fallback;
    if (!Number.isFinite(n) || n < 0 || (n === 0 && !zero))
      throw new Error(`${name} must be a positive number`);
    return Math.round(n);
  };
  const mixes = (process.env.BENCH_MIXES ?? 'realistic,today').split(',').map((m) => m.trim());
  for (const m of mixes) if (!(m in MIXES)) throw new Error(`BENCH_MIXES: ${Object.keys(MIXES).join(', ')}`);
  const dialect = process.env.BENCH_DIALECT ?? 'both';
  if (!['sqlite', 'postgres', 'both'].includes(dialect))
    throw new Error('BENCH_DIALECT: sqlite, postgres or both');
  return {
    markets: num('BENCH_MARKETS', 1_000_000),
    // 0 skips the sync-time measurement (iterating on the served store's figures).
    syncMarkets: num('BENCH_SYNC_MARKETS', 100_000, true),
    durationS: num('BENCH_DURATION', 10),
    rounds: num('BENCH_ROUNDS', 3),
    dialects: dialect === 'both' ? ['sqlite', 'postgres'] : [dialect as Dialect],
    mixes: mixes as Mix[],
    cacheDir: resolve(process.env.BENCH_CATALOGUE_DIR ?? join(REPO_ROOT, '.bench-cache')),
    buildOnly: process.env.BENCH_BUILD_ONLY === '1',
  };
}

/**
 * The loaded store's PostgreSQL schema: named by size, mix and the cache directory it belongs to, so two benches
 * with different caches (another worktree, another helper) never load into or drop each other's schema, while
 * runs sharing one cache share its store, which its `.done` marker vouches for.
 */
function loadSchema(s: Settings, mix: Mix): string {
  const dir = createHash('sha256').update(s.cacheDir).digest('hex').slice(0, 8);
  return `omnibook_bench_${s.markets}_${mix}_${dir}`;
}

/** The sync-time store's schema: this run's own (the pid), dropped when the run ends. */
const SYNC_SCHEMA = `omnibook_bench_sync_${process.pid}`;

function sizeFor(markets: number): number {
  return Math.max(10, Math.round(markets / MARKETS_PER_PROPOSITION));
}

function pgUrl(schema: string, applicationName?: string): string {
  const url = new URL(BENCH_PG_URL);
  // BENCH_PG_OPTIONS adds settings to the served store's connections, e.g. auto_explain's to profile its statements.
  const extra = applicationName && process.env.BENCH_PG_OPTIONS ? ` ${process.env.BENCH_PG_OPTIONS}` : '';
  url.searchParams.set('options', `-c search_path=${schema}${extra}`);
  if (applicationName) url.searchParams.set('application_name', applicationName);
  return url.toString();
}

/** CPU ms per request: the server process, and (PostgreSQL) the database backends serving its pool. */
interface CpuPerRequest {
  serverMs: number;
  dbMs: number | null;
}

/** PostgreSQL backends of the served store (by application_name) and the CPU each has used so far. */
async function backendCpu(): Promise<Map<number, number>> {
  const client = new pg.Client({ connectionString: BENCH_PG_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      'select pid from pg_stat_activity where application_name = $1',
      [SERVED_APP_NAME],
    );
    const cpu = new Map<number, number>();
    for (const { pid } of rows) {
      const ms = processCpuMs(pid);
      if (ms !== undefined) cpu.set(pid, ms);
    }
    return cpu;
  } finally {
    await client.end();
  }
}

/**
 * Measures the CPU the server (and its PostgreSQL backends) spend on `run`'s requests. A backend that appears
 * during the run counts from zero; one that closes during it is lost (the pool keeps them while busy).
 */
async function withCpu<T extends { totalRequests: number }>(
  target: Target,
  serverPid: number,
  run: () => Promise<T>,
): Promise<T & { cpu: CpuPerRequest }> {
  const db = target.databaseUrl !== null;
  const serverBefore = processCpuMs(serverPid) ?? 0;
  const dbBefore = db ? await backendCpu() : new Map<number, number>();
  const result = await run();
  const serverAfter = processCpuMs(serverPid) ?? 0;
  let dbMs: number | null = null;
  if (db) {
    dbMs = 0;
    for (const [pid, ms] of await backendCpu()) dbMs += ms - (dbBefore.get(pid) ?? 0);
  }
  const n = Math.max(1, result.totalRequests);
  return {
    ...result,
    cpu: { serverMs: (serverAfter - serverBefore) / n, dbMs: dbMs === null ? null : dbMs / n },
  };
}

function slowestText(cold: ColdResult): string {
  return cold.slowest
    .map((x) => `${decodeURIComponent(x.path.replace('/api/v1/markets?', ''))} ${x.ms.toFixed(0)} ms`)
    .join(', ');
}

function cpuText(cpu: CpuPerRequest): string {
  return `CPU/request: server ${cpu.serverMs.toFixed(2)} ms${cpu.dbMs === null ? '' : `, PostgreSQL ${cpu.dbMs.toFixed(2)} ms`}`;
}

async function dropPgSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: BENCH_PG_URL });
  await client.connect();
  try {
    await client.query(`drop schema if exists ${schema} cascade`);
  } finally {
    await client.end();
  }
}

async function resetPgSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: BENCH_PG_URL });
  await client.connect();
  try {
    await client.query(`drop schema if exists ${schema} cascade`);
    await client.query(`create schema ${schema}`);
  } finally {
    await client.end();
  }
}

function envFor(target: Target, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return cleanEnv({ ...(target.databaseUrl ? { DATABASE_URL: target.databaseUrl } : {}), ...extra });
}

/** Runs `omnibook sync --sandbox` into the target, the simulators listing `activeShare` active; wall seconds. */
async function sync(target: Target, markets: number, activeShare: number = MIXES.today): Promise<number> {
  const started = process.hrtime.bigint();
  await execFileAsync(
    process.execPath,
    [
      'bin/omnibook.js',
      'sync',
      '--sandbox',
      '--size',
      String(sizeFor(markets)),
      '--data-dir',
      target.dataDir,
    ],
    {
      cwd: REPO_ROOT,
      env: envFor(target, { LOG_LEVEL: 'warn', OMNIBOOK_SIM_ACTIVE_SHARE: String(activeShare) }),
      maxBuffer: 64 * 1024 * 1024,
      timeout: 60 * 60 * 1000,
    },
  );
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/**
 * Every stored market, counted in the store itself: the API's `total` stops at 1,000 (`total_exact: false`), so it
 * cannot say how large the catalogue is.
 */
async function storedMarkets(target: Target): Promise<{ all: number; active: number }> {
  const text = "select count(*) as n, count(*) filter (where status = 'active') as active from markets";
  if (target.databaseUrl) {
    const client = new pg.Client({ connectionString: target.databaseUrl });
    await client.connect();
    try {
      const row = (await client.query(text)).rows[0];
      return { all: Number(row.n), active: Number(row.active) };
    } finally {
      await client.end();
    }
  }
  const db = new SqliteDatabase(join(target.dataDir, 'omnibook.sqlite'), { readonly: true });
  try {
    const row = db.prepare(text).get() as { n: number; active: number };
    return { all: Number(row.n), active: Number(row.active) };
  } finally {
    db.close();
  }
}

async function startServer(target: Target, adminKey: string): Promise<ServerProcess> {
  return spawnServer({
    name: `omnibook-${target.dialect}`,
    command: process.execPath,
    args: ['bin/omnibook.js', 'serve', '--port', '0', '--data-dir', target.dataDir, '--log-level', 'warn'],
    // Sync and the book recorder off: this measures the catalogue's reads. The recorder would poll the live
    // venues' books (its default top 5 per exchange), unreachable from a loopback bench: DNS failures, retries
    // and error stacks took about a sixth of the server's CPU in a profile of the list run.
    env: envFor(target, {
      OMNIBOOK_ADMIN_KEY: adminKey,
      OMNIBOOK_CATALOGUE_SYNC: '0',
      OMNIBOOK_RECORDER: '0',
    }),
    cwd: REPO_ROOT,
    startTimeoutMs: 120_000,
  });
}

function createKey(target: Target): Promise<string> {
  return createBenchKey(target.dataDir, envFor(target));
}

interface Workload {
  listBody: Buffer;
  contentType: string;
  /** Default searches (status=active): words of active questions, and tickers. */
  searches: string[];
  /** Searches with another status given, words of that status's questions. */
  statusSearches: string[];
  batches: string[];
}

interface Sample {
  ids: string[];
  questions: string[];
  tickers: string[];
}

/** Markets spread over one status's whole listing: every 20th page, so samples reach its end. */
async function sample(baseUrl: string, key: string, status: string | null, want: number): Promise<Sample> {
  const headers = { 'x-api-key': key };
  const out: Sample = { ids: [], questions: [], tickers: [] };
  let cursor: string | undefined;
  for (let page = 0; page < 4000 && out.ids.length < want; page++) {
    const url = `${baseUrl}/api/v1/markets?limit=100${status ? `&status=${status}` : ''}${cursor ? `&cursor=${cursor}` : ''}`;
    const body = (await (await fetch(url, { headers })).json()) as {
      markets: Array<{ svc_id: string; question: string; exchange_market_id: string }>;
      pagination: { next_cursor?: string };
    };
    if (page % 20 === 0) {
      for (const m of body.markets) {
        out.ids.push(m.svc_id);
        out.questions.push(m.question);
        if (out.ids.length % 10 === 0) out.tickers.push(m.exchange_market_id);
      }
    }
    cursor = body.pagination.next_cursor;
    if (!cursor) break;
  }
  return out;
}

/** Search words and batch ids drawn from what the server serves, spread over the whole catalogue. */
async function workload(baseUrl: string, key: string): Promise<Workload> {
  const headers = { 'x-api-key': key };
  const first = await fetch(`${baseUrl}/api/v1/markets?limit=100`, { headers });
  const listBody = Buffer.from(await first.arrayBuffer());
  const contentType = first.headers.get('content-type') ?? 'application/json';
  const active = await sample(baseUrl, key, null, 5000);
  let seed = 42;
  const random = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const wordsOf = (questions: readonly string[], count: number, suffix: string) => {
    const out: string[] = [];
    for (const q of questions.slice(0, count)) {
      const words = q.split(/[^A-Za-z]+/).filter((w) => w.length >= 4);
      if (words.length === 0) continue;
      const a = words[Math.floor(random() * words.length)] as string;
      const b = words[Math.floor(random() * words.length)] as string;
      const text = random() < 0.5 ? a : `${a} ${b}`;
      out.push(`/api/v1/markets?search=${encodeURIComponent(text)}${suffix}`);
    }
    return out;
  };
  const searches = wordsOf(active.questions, 400, '');
  for (const t of active.tickers.slice(0, 40))
    searches.push(`/api/v1/markets?search=${encodeURIComponent(t)}`);
  const statusSearches: string[] = [];
  for (const status of OTHER_STATUSES) {
    const s = await sample(baseUrl, key, status, 1000);
    statusSearches.push(...wordsOf(s.questions, 100, `&status=${status}`));
  }
  const batches: string[] = [];
  for (let i = 0; i < 50; i++) {
    const pick = Array.from(
      { length: 100 },
      () => active.ids[Math.floor(random() * active.ids.length)] as string,
    );
    batches.push(`/api/v1/markets?svc_ids=${encodeURIComponent([...new Set(pick)].join(','))}`);
  }
  return { listBody, contentType, searches, statusSearches, batches };
}

function load(
  title: string,
  url: string,
  key: string,
  connections: number,
  durationS: number,
  paths?: string[],
) {
  return runLoad({
    title,
    url,
    headers: { 'x-api-key': key },
    connections,
    durationS,
    ...(paths ? { paths } : {}),
  });
}

async function coldPass(
  baseUrl: string,
  key: string,
  paths: readonly string[],
): Promise<Omit<ColdResult, 'cpu'> & { totalRequests: number }> {
  const latencies: number[] = [];
  const timed: Array<{ path: string; ms: number }> = [];
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      const path = paths[next++] as string;
      const started = process.hrtime.bigint();
      const res = await fetch(`${baseUrl}${path}`, { headers: { 'x-api-key': key } });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`cold search ${path}: ${res.status}`);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      latencies.push(ms);
      timed.push({ path, ms });
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  latencies.sort((a, b) => a - b);
  const at = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)] ?? 0;
  const count = latencies.length;
  const slowest = timed.sort((a, b) => b.ms - a.ms).slice(0, SLOWEST_SHOWN);
  return { p50Ms: at(50), p99Ms: at(99), maxMs: latencies.at(-1) ?? 0, count, totalRequests: count, slowest };
}

function checkClean(s: LoadSummary): void {
  if (s.non2xx > 0 || s.errors > 0) {
    throw new Error(`${s.title}: ${s.non2xx} non-2xx (${JSON.stringify(s.statusCodes)}), ${s.errors} errors`);
  }
}

interface StoreResult {
  mix: Mix;
  loadedMarkets: number;
  activeMarkets: number;
  loadSeconds: number | null;
  diskMiB: number;
  listRounds: Array<{ baseline: number; ours: number; cpu: CpuPerRequest }>;
  /** Every default search once, 4 at a time, before any load run: no page or total of it cached yet. */
  cold: ColdResult;
  /** The same for searches with another status given. */
  statusCold: ColdResult;
  warm: LoadSummary & { cpu: CpuPerRequest };
  search: LoadSummary & { cpu: CpuPerRequest };
  /** A bare node:http server answering one search page's bytes, 32 connections. */
  searchBaseline: number;
  batch: LoadSummary & { cpu: CpuPerRequest };
  rssMiB: number | null;
  peakMiB: number | null;
}

type ColdResult = {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  count: number;
  /** The slowest first requests, to say which queries make the tail. */
  slowest: Array<{ path: string; ms: number }>;
  cpu: CpuPerRequest;
};

interface DialectResult {
  dialect: Dialect;
  syncMarkets: number;
  syncSeconds: number | null;
  stores: StoreResult[];
}

async function benchDialect(s: Settings, dialect: Dialect, tmp: string): Promise<DialectResult> {
  // 1. Sync time into an empty store.
  let syncSeconds: number | null = null;
  let syncCount = 0;
  if (s.syncMarkets > 0) {
    const syncTarget: Target =
      dialect === 'sqlite'
        ? { dialect, dataDir: join(tmp, 'sync-sqlite'), databaseUrl: null }
        : { dialect, dataDir: join(tmp, 'sync-pg'), databaseUrl: pgUrl(SYNC_SCHEMA) };
    if (dialect === 'postgres') await resetPgSchema(SYNC_SCHEMA);
    progress(
      `${dialect}: syncing ~${s.syncMarkets} markets from the simulators (size ${sizeFor(s.syncMarkets)})`,
    );
    try {
      syncSeconds = await sync(syncTarget, s.syncMarkets);
      syncCount = (await storedMarkets(syncTarget)).all;
    } finally {
      if (dialect === 'postgres') await dropPgSchema(SYNC_SCHEMA);
    }
  }
  const stores: StoreResult[] = [];
  for (const mix of s.mixes) stores.push(await benchStore(s, dialect, mix, tmp));
  return { dialect, syncMarkets: syncCount, syncSeconds, stores };
}

interface LoadedStore {
  target: Target;
  schema: string;
  /** Seconds this run spent loading it, or null when the cache had it. */
  loadSeconds: number | null;
}

/** 2. The large catalogue, cached by size, status mix and dialect (today's mix keeps its old cache name). */
async function ensureStore(s: Settings, dialect: Dialect, mix: Mix): Promise<LoadedStore> {
  const suffix = mix === 'today' ? '' : `-${mix}`;
  const cacheName = `${dialect}-load${s.markets}${suffix}`;
  const schema = loadSchema(s, mix);
  const target: Target =
    dialect === 'sqlite'
      ? { dialect, dataDir: join(s.cacheDir, cacheName), databaseUrl: null }
      : { dialect, dataDir: join(s.cacheDir, cacheName), databaseUrl: pgUrl(schema, SERVED_APP_NAME) };
  const marker = join(s.cacheDir, `${cacheName}.done`);
  let loadSeconds: number | null = null;
  if (!existsSync(marker)) {
    rmSync(target.dataDir, { recursive: true, force: true });
    mkdirSync(target.dataDir, { recursive: true });
    if (dialect === 'postgres') await resetPgSchema(schema);
    progress(`${dialect}/${mix}: loading ~${s.markets} markets (cached in ${target.dataDir} for later runs)`);
    loadSeconds = await sync(target, s.markets, MIXES[mix]);
    writeFileSync(marker, `${loadSeconds}\n`);
    progress(`${dialect}/${mix}: loaded in ${loadSeconds.toFixed(0)} s`);
  } else {
    progress(`${dialect}/${mix}: reusing the loaded catalogue in ${target.dataDir}`);
  }
  return { target, schema, loadSeconds };
}

async function benchStore(s: Settings, dialect: Dialect, mix: Mix, tmp: string): Promise<StoreResult> {
  const { target, schema, loadSeconds } = await ensureStore(s, dialect, mix);

  const servers: ServerProcess[] = [];
  try {
    const adminKey = randomAdminKey();
    const ours = await startServer(target, adminKey);
    servers.push(ours);
    const key = await createKey(target);
    const counted = await storedMarkets(target);
    const diskMiB = await storeDiskMiB(target, schema);
    progress(
      `${dialect}/${mix}: ${counted.all} markets served (${counted.active} active); building the workload`,
    );
    const w = await workload(ours.url, key);
    const bodyFile = join(tmp, `list-${dialect}-${mix}.json`);
    writeFileSync(bodyFile, w.listBody);
    const baseline = await startBaseline({ bodyFile, contentType: w.contentType, anyPath: true });
    servers.push(baseline);

    const listUrl = '/api/v1/markets?limit=100';
    const listRounds: StoreResult['listRounds'] = [];
    for (let round = 1; round <= s.rounds; round++) {
      await load('warm', `${baseline.url}${listUrl}`, key, 50, 2);
      const b = await load(`baseline#${round}`, `${baseline.url}${listUrl}`, key, 50, s.durationS);
      await load('warm', `${ours.url}${listUrl}`, key, 50, 2);
      const o = await withCpu(target, ours.pid, () =>
        load(`list#${round}`, `${ours.url}${listUrl}`, key, 50, s.durationS),
      );
      checkClean(b);
      checkClean(o);
      listRounds.push({ baseline: b.reqPerSec, ours: o.reqPerSec, cpu: o.cpu });
      progress(
        `${dialect}/${mix}: list round ${round}: ${o.reqPerSec.toFixed(0)} vs ${b.reqPerSec.toFixed(0)} req/s; ${cpuText(o.cpu)}`,
      );
    }
    // One pass over every query first, measured on its own: nothing of a query is cached then (its page and its
    // total are the cold cost), and served from the caches afterwards, as for any popular search.
    const cold = await withCpu(target, ours.pid, () => coldPass(ours.url, key, w.searches));
    const statusCold = await withCpu(target, ours.pid, () => coldPass(ours.url, key, w.statusSearches));
    progress(
      `${dialect}/${mix}: first requests p99 ${cold.p99Ms.toFixed(1)} ms (active), ${statusCold.p99Ms.toFixed(1)} ms (other statuses)`,
    );
    const warm = await withCpu(target, ours.pid, () =>
      load('search-warm', ours.url, key, WARM_SEARCH_CONNECTIONS, s.durationS, w.searches),
    );
    checkClean(warm);
    const searchBodyFile = join(tmp, `search-${dialect}-${mix}.json`);
    const searchRes = await fetch(`${ours.url}${w.searches[0]}`, { headers: { 'x-api-key': key } });
    writeFileSync(searchBodyFile, Buffer.from(await searchRes.arrayBuffer()));
    const searchBare = await startBaseline({
      bodyFile: searchBodyFile,
      contentType: w.contentType,
      anyPath: true,
    });
    servers.push(searchBare);
    await load('warm', searchBare.url, key, SEARCH_CONNECTIONS, 2, w.searches);
    const bare = await load(
      'search-baseline',
      searchBare.url,
      key,
      SEARCH_CONNECTIONS,
      s.durationS,
      w.searches,
    );
    checkClean(bare);
    const search = await withCpu(target, ours.pid, () =>
      load('search', ours.url, key, SEARCH_CONNECTIONS, s.durationS, w.searches),
    );
    checkClean(search);
    const batch = await withCpu(target, ours.pid, () =>
      load('batch', ours.url, key, BATCH_CONNECTIONS, s.durationS, w.batches),
    );
    checkClean(batch);
    const mem = processMemory(ours.pid);
    return {
      mix,
      loadedMarkets: counted.all,
      activeMarkets: counted.active,
      loadSeconds,
      diskMiB,
      listRounds,
      cold,
      statusCold,
      warm,
      search,
      searchBaseline: bare.reqPerSec,
      batch,
      rssMiB: mem ? mem.rssKiB / 1024 : null,
      peakMiB: mem ? mem.peakKiB / 1024 : null,
    };
  } finally {
    await Promise.allSettled(servers.map((server) => server.stop()));
  }
}

/** The store's size on disk: SQLite's files, or PostgreSQL's tables and indexes in the schema. */
async function storeDiskMiB(target: Target, schema: string): Promise<number> {
  if (target.databaseUrl) {
    const client = new pg.Client({ connectionString: BENCH_PG_URL });
    await client.connect();
    try {
      const { rows } = await client.query<{ bytes: string }>(
        `select coalesce(sum(pg_total_relation_size(c.oid)), 0) as bytes from pg_class c
         join pg_namespace n on n.oid = c.relnamespace where n.nspname = $1 and c.relkind = 'r'`,
        [schema],
      );
      return Number(rows[0]?.bytes ?? 0) / 2 ** 20;
    } finally {
      await client.end();
    }
  }
  let bytes = 0;
  for (const name of ['omnibook.sqlite', 'omnibook.sqlite-wal']) {
    const file = join(target.dataDir, name);
    if (existsSync(file)) bytes += statSync(file).size;
  }
  return bytes / 2 ** 20;
}

function report(s: Settings, results: DialectResult[]): string[] {
  const m = machineFacts();
  const lines = [
    '',
    `catalogue benchmark — ${m.cpuModel}, ${m.cores} cores, ${m.totalMemMiB} MiB, node ${m.node}`,
    `command: BENCH_MARKETS=${s.markets} BENCH_SYNC_MARKETS=${s.syncMarkets} BENCH_DURATION=${s.durationS} BENCH_ROUNDS=${s.rounds} BENCH_MIXES=${s.mixes.join(',')} npm run bench:catalogue`,
    `load: autocannon in this process, 127.0.0.1; list 50 connections; search ${WARM_SEARCH_CONNECTIONS} and ${SEARCH_CONNECTIONS}; batch ${BATCH_CONNECTIONS}`,
    // Latency and req/s measure whatever else the machine runs; CPU per request much less so.
    `machine load average (1, 5, 15 min) at the end: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(', ')}`,
  ];
  for (const r of results) {
    lines.push('', `[${r.dialect}]`);
    if (r.syncSeconds !== null) {
      lines.push(
        `  sync: ${r.syncMarkets} markets in ${r.syncSeconds.toFixed(1)} s (${(r.syncMarkets / r.syncSeconds).toFixed(0)} markets/s; target ≤ 60 s at 100,000)`,
      );
    }
    for (const x of r.stores) lines.push(...storeReport(x));
  }
  return lines;
}

function storeReport(r: StoreResult): string[] {
  const ratios = r.listRounds.map((x) => x.ours / x.baseline);
  const ours = r.listRounds.reduce((a, x) => a + x.ours, 0) / r.listRounds.length;
  const base = r.listRounds.reduce((a, x) => a + x.baseline, 0) / r.listRounds.length;
  const listCpu = r.listRounds.map((x) => cpuText(x.cpu)).join('; ');
  const total = (cpu: CpuPerRequest) => (cpu.serverMs + (cpu.dbMs ?? 0)).toFixed(2);
  return [
    `  store "${r.mix}" (${(MIXES[r.mix] * 100).toFixed(0)}% of propositions active): ${r.loadedMarkets} markets, ${r.activeMarkets} active, ${r.diskMiB.toFixed(0)} MiB on disk${r.loadSeconds === null ? ' (cached load)' : `, loaded in ${r.loadSeconds.toFixed(0)} s`}`,
    `    scope=list limit=100: ${ours.toFixed(0)} req/s vs bare node:http ${base.toFixed(0)} req/s, ratio ${(ours / base).toFixed(2)} (rounds ${ratios.map((x) => x.toFixed(2)).join(', ')}; target ≥ 0.4)`,
    `      ${listCpu}`,
    `    search, first request of each of ${r.cold.count} default (status=active) queries, 4 at a time: p50 ${r.cold.p50Ms.toFixed(1)} ms, p99 ${r.cold.p99Ms.toFixed(1)} ms, max ${r.cold.maxMs.toFixed(1)} ms (target p99 ≤ 100 ms)`,
    `      ${cpuText(r.cold.cpu)}; slowest: ${slowestText(r.cold)}`,
    `    search, first request of each of ${r.statusCold.count} queries with status=${OTHER_STATUSES.join('|')}: p50 ${r.statusCold.p50Ms.toFixed(1)} ms, p99 ${r.statusCold.p99Ms.toFixed(1)} ms, max ${r.statusCold.maxMs.toFixed(1)} ms (target p99 ≤ 250 ms)`,
    `      ${cpuText(r.statusCold.cpu)}; slowest: ${slowestText(r.statusCold)}`,
    `    search warm, ${WARM_SEARCH_CONNECTIONS} connections: ${r.warm.reqPerSec.toFixed(0)} req/s, p50 ${r.warm.p50Ms.toFixed(1)} ms, p99 ${r.warm.p99Ms.toFixed(1)} ms (target p99 ≤ 25 ms); ${cpuText(r.warm.cpu)}`,
    `    search warm, ${SEARCH_CONNECTIONS} connections: ${r.search.reqPerSec.toFixed(0)} req/s vs bare node:http ${r.searchBaseline.toFixed(0)} req/s with a search page's bytes, ratio ${(r.search.reqPerSec / r.searchBaseline).toFixed(2)} (target ≥ 0.5); p50 ${r.search.p50Ms.toFixed(1)} ms, p99 ${r.search.p99Ms.toFixed(1)} ms`,
    `      ${cpuText(r.search.cpu)}; server + database ${total(r.search.cpu)} ms per search (target ≤ 1.5 ms)`,
    `    batch of 100 ids (${BATCH_CONNECTIONS} connections): ${r.batch.reqPerSec.toFixed(0)} req/s, p50 ${r.batch.p50Ms.toFixed(1)} ms, p99 ${r.batch.p99Ms.toFixed(1)} ms`,
    `      ${cpuText(r.batch.cpu)}`,
    `    server memory after the runs: RSS ${r.rssMiB?.toFixed(0) ?? '?'} MiB, peak ${r.peakMiB?.toFixed(0) ?? '?'} MiB`,
  ];
}

async function main(): Promise<void> {
  const s = settings();
  mkdirSync(s.cacheDir, { recursive: true });
  const tmp = mkdtempSync(join(tmpdir(), 'omnibook-bench-catalogue-'));
  if (s.buildOnly) {
    for (const dialect of s.dialects) for (const mix of s.mixes) await ensureStore(s, dialect, mix);
    return;
  }
  const results: DialectResult[] = [];
  try {
    for (const dialect of s.dialects) results.push(await benchDialect(s, dialect, tmp));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  process.stdout.write(`${report(s, results).join('\n')}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
