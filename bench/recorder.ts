// `npm run bench:recorder`: the book recorder's storage. Realistic 50-level books (cent and tenth-of-a-cent ticks,
// sizes with two decimals, a random walk between snapshots) are
//  1. encoded: average bytes per snapshot of the packed encoding against the same book as JSON text;
//  2. written: sustained snapshots/s into book_snapshots through BookSnapshotsRepo.insertMany in the recorder's
//     batches, against a same-run baseline table of the same shape holding the book as JSON text (same keys,
//     same indexes, same batches), on SQLite, and on PostgreSQL when TEST_DATABASE_URL or DATABASE_URL is set.
// Figures are printed, never asserted. BENCH_SNAPSHOTS (default 40,000) and BENCH_BATCH (default 100) tune it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Kysely, sql } from 'kysely';
import type { BookLevel } from '../src/domain/book.js';
import { encodeBook, type RecordedBook } from '../src/store/book-snapshot-codec.js';
import { BookSnapshotsRepo, dayOf } from '../src/store/book-snapshots-repo.js';
import { openStore, type Store } from '../src/store/database.js';
import type { Database } from '../src/store/schema.js';
import { createPgSchema } from '../test/support/services.js';

const SNAPSHOTS = Number(process.env.BENCH_SNAPSHOTS ?? 40_000);
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
  } finally {
    await postgres.close();
    await schema.drop();
  }
}

await main();
