// `npm run bench:recorder`: the book recorder's storage. Realistic 50-level books (cent and tenth-of-a-cent ticks,
// sizes with two decimals, a random walk between snapshots) are
//  1. encoded: average bytes per snapshot of the packed encoding against the same book as JSON text;
//  2. written: sustained snapshots/s into book_snapshots through BookSnapshotsRepo.insertMany in the recorder's
//     batches, against a same-run baseline table of the same shape holding the book as JSON text (same keys,
//     same indexes, same batches), on SQLite, and on PostgreSQL when TEST_DATABASE_URL or DATABASE_URL is set.
//  3. recorded: the whole recorder path (BookRecorder fed by a book source the bench drives, writing through
//     BookSnapshotsRepo and RecordedTradesRepo): book states and public trades recorded per second, CPU time of
//     this process per recorded event (SQLite's work included, being in-process; PostgreSQL's server is not), and
//     the bytes on disk per trade next to those per book state (tables with their indexes).
// Figures are printed, never asserted. BENCH_SNAPSHOTS (default 40,000), BENCH_TRADES (default 40,000) and
// BENCH_BATCH (default 100) tune it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Kysely, sql } from 'kysely';
import type { BookLevel, OrderBook, Trade } from '../src/domain/book.js';
import type { Market } from '../src/domain/market.js';
import { BookRecorder, type BookSource, type RecorderClock } from '../src/ingestion/book-recorder.js';
import type { BookObserver, StreamTrade } from '../src/services/market-data/live-books.js';
import type { MarketTarget } from '../src/services/market-data/market-target.js';
import { encodeBook, type RecordedBook } from '../src/store/book-snapshot-codec.js';
import { BookSnapshotsRepo, dayOf } from '../src/store/book-snapshots-repo.js';
import { openStore, type Store } from '../src/store/database.js';
import { RecordedTradesRepo } from '../src/store/recorded-trades-repo.js';
import type { Database } from '../src/store/schema.js';
import type { VenueAdapter } from '../src/venues/port.js';
import { createPgSchema } from '../test/support/services.js';

const SNAPSHOTS = Number(process.env.BENCH_SNAPSHOTS ?? 40_000);
const TRADES = Number(process.env.BENCH_TRADES ?? 40_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 100);
const BOOKS = 200;
const LEVELS = 50;

/** A deterministic generator, so every run measures the same books. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function books(count: number): RecordedBook[] {
  const rand = rng(42);
  const out: RecordedBook[] = [];
  const state = Array.from({ length: BOOKS }, (_, i) => ({ mid: 200 + ((i * 37) % 600), fine: i % 4 === 0 }));
  for (let n = 0; n < count; n++) {
    const b = state[n % BOOKS] as { mid: number; fine: boolean };
    b.mid = Math.min(950, Math.max(60, b.mid + Math.round((rand() - 0.5) * 6)));
    // Prices as a venue's decimal strings give them: thousandths on a fine tick, cents otherwise.
    const unit = b.fine ? 1000 : 100;
    const mid = b.fine ? b.mid : Math.round(b.mid / 10);
    const level = (p: number): BookLevel => [p / unit, Math.round(rand() * 500_000) / 100];
    const bids = Array.from({ length: LEVELS }, (_, i) => mid - 1 - i)
      .filter((p) => p > 0)
      .map(level);
    const asks = Array.from({ length: LEVELS }, (_, i) => mid + 1 + i)
      .filter((p) => p < unit)
      .map(level);
    out.push({ bids, asks, tick_size: b.fine ? 0.001 : 0.01 });
  }
  return out;
}

async function createJsonTable(db: Kysely<Database>, postgres: boolean): Promise<void> {
  await sql`drop table if exists bench_book_json`.execute(db);
  await sql`create table bench_book_json (book_id integer not null, ts_ms bigint not null, day integer not null,
    levels text not null, primary key (book_id, ts_ms))`.execute(db);
  await sql`create index bench_book_json_day_idx on bench_book_json (day)`.execute(db);
  void postgres;
}

async function writeRate(
  label: string,
  write: (start: number, end: number) => Promise<void>,
): Promise<number> {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < SNAPSHOTS; i += BATCH) await write(i, Math.min(SNAPSHOTS, i + BATCH));
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  const rate = SNAPSHOTS / s;
  process.stdout.write(
    `  ${label}: ${Math.round(rate).toLocaleString('en')} snapshots/s (${s.toFixed(2)} s)\n`,
  );
  return rate;
}

async function measureStore(name: string, store: Store, data: RecordedBook[]): Promise<void> {
  await store.migrate();
  const repo = new BookSnapshotsRepo(store.db);
  const ids: number[] = [];
  for (let b = 0; b < BOOKS; b++) {
    ids.push(
      await repo.bookId({
        exchange: 'polymarket',
        market_id: `bench-${b}`,
        token_id: `${b}`,
        svc_id: `polymarket:bench-${b}`,
        outcome: 'Yes',
      }),
    );
  }
  await createJsonTable(store.db, store.dialect === 'postgres');
  const t0 = Date.UTC(2026, 0, 1);
  const row = (i: number) => ({ bookId: ids[i % BOOKS] as number, tsMs: t0 + i * 10 });
  process.stdout.write(`${name} (batches of ${BATCH}, encoding included):\n`);
  // Baseline first, then ours, then both again: the second round is the figure (warm caches, warm JIT).
  let json = 0;
  let packed = 0;
  for (let round = 0; round < 2; round++) {
    await sql`delete from bench_book_json`.execute(store.db);
    await sql`delete from book_snapshots`.execute(store.db);
    json = await writeRate('baseline, JSON text', async (a, b) => {
      const rows = [];
      for (let i = a; i < b; i++) {
        const r = row(i);
        rows.push(sql`(${r.bookId}, ${r.tsMs}, ${dayOf(r.tsMs)}, ${JSON.stringify(data[i])})`);
      }
      await sql`insert into bench_book_json (book_id, ts_ms, day, levels) values ${sql.join(rows)}`.execute(
        store.db,
      );
    });
    packed = await writeRate('recorder, packed levels', async (a, b) => {
      const rows = [];
      for (let i = a; i < b; i++) rows.push({ ...row(i), levels: encodeBook(data[i] as RecordedBook) });
      await repo.insertMany(rows);
    });
  }
  process.stdout.write(`  ratio packed / JSON: ${(packed / json).toFixed(2)}\n`);
  if (store.dialect === 'sqlite') {
    const size = async (table: string) =>
      (
        await sql<{ bytes: number }>`select sum(pgsize) as bytes from dbstat where name = ${table}`.execute(
          store.db,
        )
      ).rows[0]?.bytes ?? 0;
    try {
      const packedBytes = await size('book_snapshots');
      const jsonBytes = await size('bench_book_json');
      process.stdout.write(
        `  table bytes per snapshot: packed ${(packedBytes / SNAPSHOTS).toFixed(0)}, ` +
          `JSON ${(jsonBytes / SNAPSHOTS).toFixed(0)} (ratio ${(packedBytes / jsonBytes).toFixed(3)})\n`,
      );
    } catch {
      // dbstat is a compile-time option of SQLite; without it the table sizes are left out.
    }
  } else {
    const size = async (table: string) =>
      Number(
        (await sql<{ bytes: string }>`select pg_total_relation_size(${table}) as bytes`.execute(store.db))
          .rows[0]?.bytes ?? 0,
      );
    const packedBytes = await size('book_snapshots');
    const jsonBytes = await size('bench_book_json');
    process.stdout.write(
      `  relation bytes per snapshot (with indexes, TOAST): packed ${(packedBytes / SNAPSHOTS).toFixed(0)}, ` +
        `JSON ${(jsonBytes / SNAPSHOTS).toFixed(0)} (ratio ${(packedBytes / jsonBytes).toFixed(3)})\n`,
    );
  }
}

/** The books the recorder holds, driven by the bench: each hold's observer by token id. */
class BenchBooks implements BookSource {
  readonly observers = new Map<string, BookObserver>();
  hold(_venue: VenueAdapter, _market: Market, outcome: MarketTarget['outcome'], observer?: BookObserver) {
    if (observer) this.observers.set(outcome.token_id, observer);
    return { current: () => null, release: () => undefined };
  }
}

function benchTrades(count: number): Trade[] {
  const rand = rng(7);
  const t0 = Date.UTC(2026, 0, 1);
  return Array.from({ length: count }, (_, i) => ({
    // A Polymarket-shaped id: a transaction hash.
    id: `0x${i.toString(16).padStart(8, '0')}${Math.floor(rand() * 2 ** 48)
      .toString(16)
      .padStart(56, '0')}`,
    price: Math.round(100 + rand() * 800) / 1000,
    size: Math.round(rand() * 100_000) / 100,
    side: rand() < 0.5 ? 'buy' : 'sell',
    aggressor_side: rand() < 0.5 ? 'buy' : 'sell',
    timestamp: new Date(t0 + i * 7).toISOString(),
    outcome: 'Yes',
  }));
}

async function tableBytes(store: Store, table: string): Promise<number> {
  if (store.dialect === 'postgres')
    return Number(
      (await sql<{ bytes: string }>`select pg_total_relation_size(${table}) as bytes`.execute(store.db))
        .rows[0]?.bytes ?? 0,
    );
  return Number(
    (
      await sql<{ bytes: number }>`select sum(pgsize) as bytes from dbstat
        where name in (select name from sqlite_master where tbl_name = ${table})`.execute(store.db)
    ).rows[0]?.bytes ?? 0,
  );
}

/** Events through the real recorder: `emit(i)` feeds event i; every BATCH events the recorder's writes finish. */
async function recordRate(
  label: string,
  count: number,
  recorder: BookRecorder,
  emit: (i: number) => void,
): Promise<void> {
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < count; i++) {
    emit(i);
    if ((i + 1) % BATCH === 0) await recorder.flush();
  }
  await recorder.flush();
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  const cpuUs = (cpu.user + cpu.system) / count;
  process.stdout.write(
    `  ${label}: ${Math.round(count / s).toLocaleString('en')}/s, CPU ${cpuUs.toFixed(1)} µs per recorded event\n`,
  );
}

async function measureRecorder(name: string, store: Store, data: RecordedBook[]): Promise<void> {
  await sql`delete from book_snapshots`.execute(store.db);
  await sql`delete from recorded_trades`.execute(store.db);
  const books = new BenchBooks();
  let now = Date.UTC(2026, 0, 1);
  const clock: RecorderClock = {
    now: () => now,
    schedule(fn, ms) {
      const timer = setTimeout(fn, ms);
      return () => clearTimeout(timer);
    },
  };
  const snapshots = new BookSnapshotsRepo(store.db);
  const recorder = new BookRecorder({
    books,
    sink: snapshots,
    trades: new RecordedTradesRepo(store.db),
    intervalMs: 10,
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    clock,
  });
  const venue = {
    descriptor: { id: 'polymarket', features: { streamTrades: true } },
    marketData: {},
  } as unknown as VenueAdapter;
  for (let b = 0; b < BOOKS; b++) {
    recorder.record({
      venue,
      market: { svc_id: `polymarket:rec-${b}`, exchange_market_id: `rec-${b}` } as Market,
      outcome: { name: 'Yes', token_id: `t${b}` },
    });
  }
  const observer = (i: number) => books.observers.get(`t${i % BOOKS}`) as BookObserver;
  const trades = benchTrades(TRADES);
  process.stdout.write(
    `${name}, through BookRecorder (${BOOKS} books, writes awaited every ${BATCH} events):\n`,
  );
  await recordRate('book states', SNAPSHOTS, recorder, (i) => {
    // Each round of BOOKS changes is one interval later: every change is a state written.
    if (i % BOOKS === 0) now += 10;
    const b = data[i] as RecordedBook;
    const book: OrderBook = {
      exchange: 'polymarket',
      market_id: `rec-${i % BOOKS}`,
      outcome: 'Yes',
      token_id: `t${i % BOOKS}`,
      bids: b.bids,
      asks: b.asks,
      tick_size: b.tick_size,
      timestamp: new Date(now).toISOString(),
    };
    observer(i).change?.(book);
  });
  await recordRate('public trades', TRADES, recorder, (i) => {
    const event: StreamTrade = {
      type: 'trade',
      instrument: { market_id: `rec-${i % BOOKS}`, outcome: 'Yes', token_id: `t${i % BOOKS}` },
      trade: trades[i] as Trade,
      source_channel: 'polymarket_ws_last_trade_price',
      received_ts_ms: now + i,
    };
    observer(i).trade?.(event);
  });
  await recorder.close();
  try {
    const stateBytes = await tableBytes(store, 'book_snapshots');
    const tradeBytes = await tableBytes(store, 'recorded_trades');
    process.stdout.write(
      `  bytes on disk (table and indexes): ${(tradeBytes / recorder.tradesWritten).toFixed(0)} per trade, ` +
        `${(stateBytes / recorder.written).toFixed(0)} per book state (${LEVELS}-level books)\n`,
    );
  } catch {
    // SQLite without dbstat (a compile-time option): sizes left out.
  }
}

async function main(): Promise<void> {
  const data = books(SNAPSHOTS);
  let encoded = 0;
  let asJson = 0;
  for (const b of data) {
    encoded += encodeBook(b).length;
    asJson += Buffer.byteLength(JSON.stringify(b));
  }
  const levels = data.reduce((n, b) => n + b.bids.length + b.asks.length, 0) / data.length;
  process.stdout.write(
    `bytes per snapshot (${SNAPSHOTS.toLocaleString('en')} books, ${levels.toFixed(1)} levels on average): ` +
      `packed ${(encoded / data.length).toFixed(1)}, JSON ${(asJson / data.length).toFixed(1)}, ` +
      `ratio ${(encoded / asJson).toFixed(3)}\n`,
  );

  const dir = mkdtempSync(join(tmpdir(), 'omnibook-bench-recorder-'));
  const sqlite = openStore({ dataDir: dir });
  try {
    await measureStore('SQLite', sqlite, data);
    await measureRecorder('SQLite', sqlite, data);
  } finally {
    await sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  }

  const pgUrl = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
  if (!pgUrl) {
    process.stdout.write('PostgreSQL: skipped (set TEST_DATABASE_URL or DATABASE_URL)\n');
    return;
  }
  process.env.TEST_DATABASE_URL = pgUrl;
  const schema = await createPgSchema();
  const postgres = openStore({ databaseUrl: pgUrl, dataDir: '.', pgSchema: schema.schema });
  try {
    await measureStore('PostgreSQL', postgres, data);
    await measureRecorder('PostgreSQL', postgres, data);
  } finally {
    await postgres.close();
    await schema.drop();
  }
}

await main();
