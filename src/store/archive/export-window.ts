// Writes a recorded window to an archive file (format.ts, docs/replay-format.md): every recorded book of the
// window (one exchange, or all) with its last state at or before the window's start and every state and trade
// inside it, and the catalogue rows (markets, their events) a replay serves them with. Rows are read a page at a
// time and streamed through gzip, so a window larger than memory exports; the file appears under its name only
// once complete (written beside it, then renamed) and is the owner's only (0600).
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, fchmodSync, openSync, renameSync, rmSync } from 'node:fs';
import { createGzip } from 'node:zlib';
import type { Kysely } from 'kysely';
import type { ExchangeId } from '../../domain/exchanges.js';
import { PRIVATE_FILE_MODE } from '../private-file.js';
import { RecordedTradesRepo, type TradeCursor } from '../recorded-trades-repo.js';
import type { Database } from '../schema.js';
import {
  ARCHIVE_FORMAT,
  ARCHIVE_VERSION,
  type BookRecord,
  type EndRecord,
  emptyCounts,
  type HeaderRecord,
  type RecordCounts,
} from './format.js';

export interface ExportWindow {
  fromMs: number;
  toMs: number;
  exchange: ExchangeId | null;
}

export interface ExportResult {
  counts: RecordCounts;
  sha256: string;
  bytes: number;
}

const PAGE = 1_000;

/** Writes the window to `outPath`; `writer` names the omnibook version in the header. */
export async function exportWindow(
  db: Kysely<Database>,
  window: ExportWindow,
  outPath: string,
  writer: string,
): Promise<ExportResult> {
  const tmp = `${outPath}.partial-${process.pid}`;
  const fd = openSync(tmp, 'w', PRIVATE_FILE_MODE);
  fchmodSync(fd, PRIVATE_FILE_MODE);
  const file = createWriteStream('', { fd });
  const gzip = createGzip();
  gzip.pipe(file);
  const hash = createHash('sha256');
  const counts = emptyCounts();
  let bytes = 0;
  const line = async (record: object): Promise<void> => {
    const text = `${JSON.stringify(record)}\n`;
    hash.update(text);
    if (!gzip.write(text)) await once(gzip, 'drain');
  };
  try {
    const header: HeaderRecord = {
      kind: 'header',
      format: ARCHIVE_FORMAT,
      version: ARCHIVE_VERSION,
      created_at: new Date().toISOString(),
      from_ms: window.fromMs,
      to_ms: window.toMs,
      exchange: window.exchange,
      writer,
    };
    await line(header);
    const books = await booksOf(db, window);
    const svcIds = [...new Set(books.map((b) => b.svc_id))];
    const markets = await marketRows(db, svcIds);
    const groups = [...new Set(markets.map((m) => m.svc_group_id))];
    for (const e of await eventRows(db, groups)) {
      await line({
        kind: 'event',
        ...e,
        volume_total: e.volume_total === null ? null : Number(e.volume_total),
      });
      counts.event++;
    }
    for (const m of markets) {
      await line({
        kind: 'market',
        synced_at: m.synced_at,
        market: JSON.parse(Buffer.from(m.doc).toString('utf8')),
      });
      counts.market++;
    }
    const refs = new Map<number, number>();
    for (const b of books) {
      const ref = refs.size + 1;
      refs.set(b.id, ref);
      const record: BookRecord = {
        kind: 'book',
        ref,
        exchange: b.exchange as ExchangeId,
        market_id: b.market_id,
        token_id: b.token_id,
        svc_id: b.svc_id,
        outcome: b.outcome,
      };
      await line(record);
      counts.book++;
    }
    const trades = new RecordedTradesRepo(db);
    for (const b of books) {
      const ref = refs.get(b.id) as number;
      for await (const s of snapshotsOf(db, b.id, window)) {
        await line({ kind: 'snapshot', book: ref, ts_ms: s.tsMs, levels: s.levels.toString('base64') });
        counts.snapshot++;
      }
      let after: TradeCursor | null = null;
      for (;;) {
        const page = await trades.range(b.id, window.fromMs, window.toMs, after, PAGE);
        for (const t of page) {
          await line({
            kind: 'trade',
            book: ref,
            trade_id: t.tradeId,
            ts_ms: t.tsMs,
            ingest_ms: t.ingestMs,
            price: t.price,
            size: t.size,
            side: t.side,
            aggressor_side: t.aggressorSide,
            source_channel: t.sourceChannel,
          });
          counts.trade++;
        }
        const last = page.at(-1);
        if (!last || page.length < PAGE) break;
        after = { tsMs: last.tsMs, tradeId: last.tradeId };
      }
    }
    const sha256 = hash.digest('hex');
    const end: EndRecord = { kind: 'end', counts, sha256 };
    gzip.end(`${JSON.stringify(end)}\n`);
    await once(file, 'close');
    bytes = file.bytesWritten;
    renameSync(tmp, outPath);
    return { counts, sha256, bytes };
  } catch (error) {
    gzip.destroy();
    file.destroy();
    rmSync(tmp, { force: true });
    throw error;
  }
}

/** Books of the window: those with a state at or before its end, or a trade inside it. */
async function booksOf(db: Kysely<Database>, w: ExportWindow) {
  let q = db
    .selectFrom('recorded_books as b')
    .select(['b.id', 'b.exchange', 'b.market_id', 'b.token_id', 'b.svc_id', 'b.outcome'])
    .where((eb) =>
      eb.or([
        eb.exists(
          eb
            .selectFrom('book_snapshots as s')
            .select('s.book_id')
            .whereRef('s.book_id', '=', 'b.id')
            .where('s.ts_ms', '<=', w.toMs),
        ),
        eb.exists(
          eb
            .selectFrom('recorded_trades as t')
            .select('t.book_id')
            .whereRef('t.book_id', '=', 'b.id')
            .where('t.ts_ms', '>=', w.fromMs)
            .where('t.ts_ms', '<=', w.toMs),
        ),
      ]),
    );
  if (w.exchange) q = q.where('b.exchange', '=', w.exchange);
  return q.orderBy('b.exchange').orderBy('b.market_id').orderBy('b.token_id').execute();
}

/** The book's last state at or before the window's start (the state it opens with), then every state inside it. */
async function* snapshotsOf(
  db: Kysely<Database>,
  bookId: number,
  w: ExportWindow,
): AsyncGenerator<{ tsMs: number; levels: Buffer }> {
  const opening = await db
    .selectFrom('book_snapshots')
    .select(['ts_ms', 'levels'])
    .where('book_id', '=', bookId)
    .where('ts_ms', '<=', w.fromMs)
    .orderBy('ts_ms', 'desc')
    .limit(1)
    .executeTakeFirst();
  let afterMs = w.fromMs;
  if (opening) yield { tsMs: Number(opening.ts_ms), levels: Buffer.from(opening.levels) };
  for (;;) {
    const rows = await db
      .selectFrom('book_snapshots')
      .select(['ts_ms', 'levels'])
      .where('book_id', '=', bookId)
      .where('ts_ms', '>', afterMs)
      .where('ts_ms', '<=', w.toMs)
      .orderBy('ts_ms')
      .limit(PAGE)
      .execute();
    for (const r of rows) yield { tsMs: Number(r.ts_ms), levels: Buffer.from(r.levels) };
    const last = rows.at(-1);
    if (!last || rows.length < PAGE) return;
    afterMs = Number(last.ts_ms);
  }
}

async function marketRows(db: Kysely<Database>, svcIds: readonly string[]) {
  const out: Array<{ svc_id: string; svc_group_id: string; doc: Buffer; synced_at: string }> = [];
  for (let i = 0; i < svcIds.length; i += PAGE) {
    const rows = await db
      .selectFrom('markets')
      .select(['svc_id', 'svc_group_id', 'doc', 'synced_at'])
      .where('svc_id', 'in', svcIds.slice(i, i + PAGE))
      .orderBy('svc_id')
      .execute();
    out.push(...rows);
  }
  return out;
}

async function eventRows(db: Kysely<Database>, groups: readonly string[]) {
  const out = [];
  for (let i = 0; i < groups.length; i += PAGE) {
    const rows = await db
      .selectFrom('events')
      .selectAll()
      .where('svc_group_id', 'in', groups.slice(i, i + PAGE))
      .orderBy('svc_group_id')
      .execute();
    out.push(...rows);
  }
  return out;
}
