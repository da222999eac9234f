// The recording half of replay (issue 38), end to end: a sandbox server over the five simulators records the top
// market of every exchange; the simulators' house trades (POST /__sim/advance) reach recorded_trades — heard on
// Polymarket's stream, polled from Limitless's trade feed — with exact decimal text. `omnibook export` writes the
// window; `omnibook import` reads it into a fresh data dir and into PostgreSQL, and the imported rows equal the
// exported ones byte for byte (book ids aside, which are each store's own); a second import adds nothing; a
// corrupted or truncated file is refused and changes nothing.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Kysely } from 'kysely';
import type { ExchangeId } from '../../../src/domain/exchanges.js';
import { ARCHIVE_VERSION } from '../../../src/store/archive/format.js';
import { importArchive } from '../../../src/store/archive/import-archive.js';
import { openStore, type Store } from '../../../src/store/database.js';
import type { Database } from '../../../src/store/schema.js';
import { type CatalogueServer, simControl, startCatalogueServer } from '../../support/catalogue.js';
import { runCli } from '../../support/cli.js';
import { waitFor } from '../../support/server.js';
import { createPgSchema } from '../../support/services.js';

let cat: CatalogueServer;
let work: string;
const fromMs = Date.now() - 60_000;
// The CLI reads the store from its flags alone, whatever the developer's environment says.
const env = { DATABASE_URL: '', OMNIBOOK_CONFIG: '' };

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'omnibook-archive-'));
  cat = await startCatalogueServer(12, {
    config: { recorder: { enabled: true, topN: 1, intervalMs: 50 } },
  });
  const job = cat.server.runtime.bookRecorderJob;
  assert.ok(job, 'the recorder job runs');
  await job.refresh();
});
after(async () => {
  await cat?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

interface Row {
  instrument: string;
  [column: string]: unknown;
}

/** Every recorded row of a store, keyed by its instrument instead of the store's own book id, in a stable order. */
async function recordedRows(db: Kysely<Database>): Promise<{ states: Row[]; trades: Row[]; markets: Row[] }> {
  const books = new Map(
    (await db.selectFrom('recorded_books').selectAll().execute()).map((b) => [
      b.id,
      `${b.exchange}|${b.market_id}|${b.token_id}|${b.svc_id}|${b.outcome}`,
    ]),
  );
  const states = (await db.selectFrom('book_snapshots').selectAll().execute()).map(({ book_id, ...r }) => ({
    instrument: books.get(book_id) as string,
    ts_ms: Number(r.ts_ms),
    day: r.day,
    levels: Buffer.from(r.levels).toString('hex'),
  }));
  const trades = (await db.selectFrom('recorded_trades').selectAll().execute()).map(({ book_id, ...r }) => ({
    instrument: books.get(book_id) as string,
    ...r,
    ts_ms: Number(r.ts_ms),
    ingest_ms: Number(r.ingest_ms),
  }));
  const svcIds = new Set([...books.values()].map((k) => k.split('|')[3]));
  const markets = (await db.selectFrom('markets').select(['svc_id', 'doc', 'synced_at']).execute())
    .filter((m) => svcIds.has(m.svc_id))
    .map((m) => ({ instrument: m.svc_id, doc: Buffer.from(m.doc).toString('hex'), synced_at: m.synced_at }));
  const order = (a: Row, b: Row) => JSON.stringify(a).localeCompare(JSON.stringify(b));
  return { states: states.sort(order), trades: trades.sort(order), markets: markets.sort(order) };
}

async function tradesOf(exchange: ExchangeId): Promise<number> {
  const row = await cat.server.runtime.store.db
    .selectFrom('recorded_trades as t')
    .innerJoin('recorded_books as b', 'b.id', 't.book_id')
    .where('b.exchange', '=', exchange)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

test('simulator trades are recorded, exported, and imported byte for byte into SQLite and PostgreSQL', async () => {
  // Stream trades (polymarket) and polled trades (limitless): each house step prints on every recorded market.
  for (const exchange of ['polymarket', 'limitless'] as const) {
    await waitFor(
      async () => {
        await simControl(cat, exchange, 'POST', 'advance', { steps: 1 });
        return (await tradesOf(exchange)) > 0;
      },
      20_000,
      `a recorded ${exchange} trade`,
    );
  }
  // Recording stops here (everything taken is written), so the window exported is the window compared.
  await cat.server.runtime.bookRecorderJob?.stop();
  const sample = await cat.server.runtime.store.db.selectFrom('recorded_trades').selectAll().execute();
  for (const t of sample) {
    assert.match(t.price, /^\d+(\.\d+)?$/, 'price is decimal text');
    assert.match(t.size, /^\d+(\.\d+)?$/, 'size is decimal text');
    assert.ok(Number(t.ingest_ms) > 0 && Number(t.ts_ms) > 0);
  }
  const toMs = Date.now() + 60_000;
  const source = await recordedRows(cat.server.runtime.store.db);
  assert.ok(source.states.length > 0 && source.trades.length > 0 && source.markets.length > 0);

  const file = join(work, 'window.jsonl.gz');
  const from = String(Math.floor(fromMs / 1000));
  const to = String(Math.ceil(toMs / 1000));
  const exported = await runCli(
    ['export', '--from', from, '--to', to, '--out', file, '--data-dir', cat.server.dataDir],
    env,
  );
  assert.equal(exported.code, 0, exported.stderr);
  assert.equal(statSync(file).mode & 0o777, 0o600, 'the archive is owner-only');
  const lines = gunzipSync(readFileSync(file)).toString('utf8').trimEnd().split('\n');
  assert.equal(JSON.parse(lines[0] as string).version, ARCHIVE_VERSION);
  assert.equal(JSON.parse(lines.at(-1) as string).kind, 'end');

  const fresh = join(work, 'fresh');
  const first = await runCli(['import', file, '--data-dir', fresh], env);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /[1-9]\d* of \d+ trades/);
  const sqlite = openStore({ dataDir: fresh });
  try {
    // The same file again adds nothing (importArchive is what `omnibook import` runs).
    const again = await importArchive(sqlite.db, sqlite.dialect, file);
    assert.deepEqual(again.added, { event: 0, market: 0, book: 0, snapshot: 0, trade: 0 });
    // Everything recorded lies inside the window (the opening state of each book included).
    assert.deepEqual(await recordedRows(sqlite.db), source);
  } finally {
    await sqlite.close();
  }

  const pg = await createPgSchema();
  let store: Store | null = null;
  try {
    store = openStore({ databaseUrl: pg.url, dataDir: work });
    await store.migrate();
    const imported = await importArchive(store.db, store.dialect, file);
    assert.ok(imported.added.trade > 0);
    assert.deepEqual(await recordedRows(store.db), source);
  } finally {
    await store?.close();
    await pg.drop();
  }

  // A flipped byte inside the content, with a valid gzip wrapper around it: the checksum refuses it.
  const content = gunzipSync(readFileSync(file));
  const at = content.indexOf('"trade_id":"') + 12;
  content[at] = content[at] === 0x41 ? 0x42 : 0x41;
  const altered = join(work, 'altered.gz');
  writeFileSync(altered, gzipSync(content));
  const other = join(work, 'other');
  const refused = await runCli(['import', altered, '--data-dir', other], env);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /checksum mismatch.*nothing was imported/);
  // A file cut short.
  const cut = join(work, 'cut.gz');
  const whole = readFileSync(file);
  writeFileSync(cut, whole.subarray(0, Math.floor(whole.length / 2)));
  const untouched = openStore({ dataDir: other });
  try {
    await assert.rejects(importArchive(untouched.db, untouched.dialect, cut), /corrupt or truncated/);
    const none = await recordedRows(untouched.db);
    assert.deepEqual(none, { states: [], trades: [], markets: [] });
  } finally {
    await untouched.close();
  }
});
