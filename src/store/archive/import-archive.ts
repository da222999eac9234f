// Reads an archive (format.ts, docs/replay-format.md) into a store. The whole file is read and checked first — its
// gzip stream, every line against its kind's schema, the record counts and the sha256 in its `end` line — so a
// corrupt, truncated or foreign file is refused with an ArchiveError before anything is written. Then it is read
// again and written in one transaction (which the second read's own check can still roll back). Import adds only
// what the store lacks: a book is matched by (exchange, market id, token id), states by (book, time), trades by
// (book, trade id), events and markets by their ids (a market the store already has keeps its own, newer, row), so
// importing a file twice adds nothing.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';
import type { Kysely } from 'kysely';
import type { Market } from '../../domain/market.js';
import { BookSnapshotsRepo, type SnapshotRow } from '../book-snapshots-repo.js';
import type { Dialect } from '../database.js';
import { MarketsRepo } from '../markets-repo.js';
import { type RecordedTradeRow, RecordedTradesRepo } from '../recorded-trades-repo.js';
import type { Database } from '../schema.js';
import {
  ARCHIVE_FORMAT,
  ARCHIVE_VERSION,
  ArchiveError,
  type ArchiveRecord,
  checkEnd,
  checkHeader,
  emptyCounts,
  type HeaderRecord,
  RECORD_CHECKS,
  type RecordCounts,
} from './format.js';

export interface ImportResult {
  header: HeaderRecord;
  /** Records of each kind in the file. */
  counts: RecordCounts;
  /** Rows the store did not have and now has. */
  added: RecordCounts;
}

const BATCH = 500;

/** Checks the whole file without writing anything: its header, records, counts and checksum. */
export async function verifyArchive(path: string): Promise<{ header: HeaderRecord; counts: RecordCounts }> {
  return readArchive(path, () => undefined);
}

/** Verifies, then imports `path` into the store in one transaction. */
export async function importArchive(
  db: Kysely<Database>,
  dialect: Dialect,
  path: string,
): Promise<ImportResult> {
  await verifyArchive(path);
  return db.transaction().execute(async (trx) => {
    const before = await tableCounts(trx);
    const writer = new ArchiveWriter(trx, dialect);
    const { header, counts } = await readArchive(path, (r) => writer.add(r));
    await writer.finish();
    const after = await tableCounts(trx);
    const added = emptyCounts();
    for (const k of Object.keys(added) as Array<keyof RecordCounts>) added[k] = after[k] - before[k];
    return { header, counts, added };
  });
}

/**
 * Streams the file's records to `onRecord` in order, verifying as it goes; throws ArchiveError on any fault. A
 * record is handed on before the checksum at the end is known: call `verifyArchive` first to act only on a whole file.
 */
export async function readArchive(
  path: string,
  onRecord: (record: ArchiveRecord) => void | Promise<void>,
): Promise<{ header: HeaderRecord; counts: RecordCounts }> {
  const hash = createHash('sha256');
  const counts = emptyCounts();
  let header: HeaderRecord | null = null;
  let ended = false;
  let lineNo = 0;
  const refs = new Set<number>();
  const handle = async (bytes: Buffer): Promise<void> => {
    lineNo++;
    if (ended) throw new ArchiveError(`${path}: data after the end record (line ${lineNo})`);
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch {
      throw new ArchiveError(`${path}: line ${lineNo} is not JSON`);
    }
    const kind = (value as { kind?: unknown } | null)?.kind;
    if (header === null) {
      if (
        kind !== 'header' ||
        (value as { format?: unknown }).format !== ARCHIVE_FORMAT ||
        typeof (value as { version?: unknown }).version !== 'number'
      )
        throw new ArchiveError(`${path}: not an omnibook recording archive (no ${ARCHIVE_FORMAT} header)`);
      const version = (value as { version: number }).version;
      if (version !== ARCHIVE_VERSION)
        throw new ArchiveError(
          `${path}: archive format version ${version}; this omnibook reads version ${ARCHIVE_VERSION}`,
        );
      if (!checkHeader.Check(value)) throw new ArchiveError(`${path}: line 1: malformed header`);
      header = value;
      hash.update(bytes);
      hash.update('\n');
      return;
    }
    if (kind === 'end') {
      if (!checkEnd.Check(value)) throw new ArchiveError(`${path}: line ${lineNo}: malformed end record`);
      const digest = hash.digest('hex');
      if (digest !== value.sha256)
        throw new ArchiveError(
          `${path}: checksum mismatch (the file is corrupt): sha256 ${digest}, end record says ${value.sha256}`,
        );
      for (const k of Object.keys(counts) as Array<keyof RecordCounts>)
        if (counts[k] !== value.counts[k])
          throw new ArchiveError(
            `${path}: ${counts[k]} ${k} records, the end record says ${value.counts[k]}`,
          );
      ended = true;
      return;
    }
    hash.update(bytes);
    hash.update('\n');
    const check = typeof kind === 'string' ? RECORD_CHECKS[kind as keyof typeof RECORD_CHECKS] : undefined;
    if (!check)
      throw new ArchiveError(`${path}: line ${lineNo}: unknown record kind ${JSON.stringify(kind)}`);
    if (!check.Check(value)) {
      const first = [...check.Errors(value)][0];
      throw new ArchiveError(
        `${path}: line ${lineNo}: malformed ${kind} record${first ? ` (${first.instancePath || '/'} ${first.message})` : ''}`,
      );
    }
    const record = value as ArchiveRecord;
    if (record.kind === 'book') {
      if (refs.has(record.ref))
        throw new ArchiveError(`${path}: line ${lineNo}: book ref ${record.ref} appears twice`);
      refs.add(record.ref);
    } else if ((record.kind === 'snapshot' || record.kind === 'trade') && !refs.has(record.book)) {
      throw new ArchiveError(
        `${path}: line ${lineNo}: book ref ${record.book} is declared by no earlier book record`,
      );
    }
    counts[kind as keyof RecordCounts]++;
    await onRecord(record);
  };
  try {
    let rest = Buffer.alloc(0);
    const source = createReadStream(path);
    const gunzip = createGunzip();
    // pipe() does not pass a read error on: hand it to the stream being iterated, which throws it here.
    source.on('error', (error) => gunzip.destroy(error));
    for await (const chunk of source.pipe(gunzip) as AsyncIterable<Buffer>) {
      let data = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk;
      for (let nl = data.indexOf(10); nl >= 0; nl = data.indexOf(10)) {
        await handle(data.subarray(0, nl));
        data = data.subarray(nl + 1);
      }
      rest = Buffer.from(data);
    }
    if (rest.length > 0) throw new ArchiveError(`${path}: truncated (the last line is incomplete)`);
  } catch (error) {
    if (error instanceof ArchiveError) throw error;
    const e = error as NodeJS.ErrnoException;
    if (e.code === 'ENOENT') throw new ArchiveError(`${path}: no such file`);
    // zlib: a bad header, a failed CRC, or a stream that stops early.
    throw new ArchiveError(
      `${path}: not a whole gzip stream (${e.message}); the file is corrupt or truncated`,
    );
  }
  if (!header) throw new ArchiveError(`${path}: empty file`);
  if (!ended) throw new ArchiveError(`${path}: truncated (no end record)`);
  return { header, counts };
}

/** Writes records as they come, in batches, mapping the file's book refs to this store's ids. */
class ArchiveWriter {
  private readonly books: BookSnapshotsRepo;
  private readonly trades: RecordedTradesRepo;
  private readonly markets: MarketsRepo;
  private readonly refs = new Map<number, number>();
  private snapshots: SnapshotRow[] = [];
  private tradeRows: RecordedTradeRow[] = [];
  private marketDocs: Array<{ market: Market; syncedAt: string }> = [];

  constructor(
    private readonly db: Kysely<Database>,
    dialect: Dialect,
  ) {
    this.books = new BookSnapshotsRepo(db);
    this.trades = new RecordedTradesRepo(db);
    this.markets = new MarketsRepo(db, dialect);
  }

  async add(r: ArchiveRecord): Promise<void> {
    switch (r.kind) {
      case 'event': {
        const { kind: _, ...row } = r;
        await this.db
          .insertInto('events')
          .values(row as Database['events'])
          .onConflict((oc) => oc.column('svc_group_id').doNothing())
          .execute();
        return;
      }
      case 'market':
        this.marketDocs.push({ market: r.market as unknown as Market, syncedAt: r.synced_at });
        return;
      case 'book': {
        if (this.refs.has(r.ref)) throw new ArchiveError(`book ref ${r.ref} appears twice`);
        const { kind: _, ref, ...instrument } = r;
        this.refs.set(ref, await this.books.bookId(instrument));
        return;
      }
      case 'snapshot':
        this.snapshots.push({
          bookId: this.bookId(r.book),
          tsMs: r.ts_ms,
          levels: Buffer.from(r.levels, 'base64'),
        });
        if (this.snapshots.length >= BATCH) await this.flushSnapshots();
        return;
      case 'trade':
        this.tradeRows.push({
          bookId: this.bookId(r.book),
          tradeId: r.trade_id,
          tsMs: r.ts_ms,
          ingestMs: r.ingest_ms,
          price: r.price,
          size: r.size,
          side: r.side,
          aggressorSide: r.aggressor_side,
          sourceChannel: r.source_channel,
        });
        if (this.tradeRows.length >= BATCH) await this.flushTrades();
        return;
    }
  }

  async finish(): Promise<void> {
    await this.flushSnapshots();
    await this.flushTrades();
    // A market this store already lists keeps its own row (synced from the venue, newer than the file's).
    const have = await this.markets.findBySvcIds(this.marketDocs.map((m) => m.market.svc_id));
    const bySync = new Map<string, Market[]>();
    for (const { market, syncedAt } of this.marketDocs) {
      if (have.has(market.svc_id)) continue;
      bySync.set(syncedAt, [...(bySync.get(syncedAt) ?? []), market]);
    }
    for (const [syncedAt, markets] of bySync) await this.markets.upsertMany(markets, syncedAt);
  }

  private bookId(ref: number): number {
    const id = this.refs.get(ref);
    if (id === undefined)
      throw new ArchiveError(`a record names book ref ${ref}, which no book record declared`);
    return id;
  }

  private async flushSnapshots(): Promise<void> {
    const rows = this.snapshots;
    this.snapshots = [];
    await this.books.insertMany(rows);
  }

  private async flushTrades(): Promise<void> {
    const rows = this.tradeRows;
    this.tradeRows = [];
    await this.trades.insertMany(rows);
  }
}

async function tableCounts(db: Kysely<Database>): Promise<RecordCounts> {
  const count = async (
    table: 'events' | 'markets' | 'recorded_books' | 'book_snapshots' | 'recorded_trades',
  ) => Number((await db.selectFrom(table).select(db.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  return {
    event: await count('events'),
    market: await count('markets'),
    book: await count('recorded_books'),
    snapshot: await count('book_snapshots'),
    trade: await count('recorded_trades'),
  };
}
