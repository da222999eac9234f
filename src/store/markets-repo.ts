// SQL for the market catalogue: idempotent upserts from sync, exact lookups, and keyset pages for listing and
// keyword search. Pages are ordered by the immutable `seq` inside each relevance tier, so a cursor stays correct
// while a sync rewrites rows. Documents come back as the stored JSON bytes.
import { type CompiledQuery, type Kysely, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import type { Market } from '../domain/market.js';
import type { Dialect } from './database.js';
import type { PgReader } from './pg-reader.js';
import type { Database } from './schema.js';
import {
  ftsAllWords,
  indexWords,
  parseSearchWords,
  type SearchWord,
  tsAllWords,
  tsAnyWord,
} from './search-text.js';
import type { SqliteReader } from './sqlite-reader.js';

/** 0: exact id / slug / ticker; 1: every word in the question; 2: every word across question and description. */
export type SearchTier = 0 | 1 | 2;

export interface MarketFilter {
  status: string;
  exchanges: readonly string[] | null;
  minVolume: number | null;
  minLiquidity: number | null;
  /** Raw keyword text as the client sent it. */
  search: string | null;
}

export interface PagePosition {
  tier: SearchTier;
  seq: number;
}

/** A count that stopped at its cap is a lower bound (`exact: false`). */
export interface MarketCount {
  total: number;
  exact: boolean;
}

export interface MarketPageRow {
  seq: number;
  tier: SearchTier;
  doc: Buffer;
}

interface PreparedFilter extends MarketFilter {
  words: SearchWord[];
}

const UPSERT_CHUNK = 200;
/** The document of a row chosen only to be counted. */
const NO_DOC = Buffer.alloc(0);

/** PostgreSQL: how many seqs a tier-1 page walks before it asks GIN for the (then sparse) rest. */
const WALK_WINDOW = 4096;
/**
 * PostgreSQL: a match fetched through GIN costs about this many index rows walked. Measured at 1M markets with
 * EXPLAIN ANALYZE: a 4,096-row walk 0.5 ms, 7,600 matches fetched through a bitmap 72 ms (about 75).
 */
const HEAP_VS_WALK = 60;

/** PostgreSQL: rows of the walk index a search count reads first, for a word common enough to pass the cap there. */
const COUNT_HEAD = 4096;

/**
 * PostgreSQL: the most rows of the walk index a count reads when its head says the cap lies further on. Walking a
 * row costs about 0.2 µs and a GIN bitmap about 0.4 µs per match plus a heap page per counted row, so the walk
 * wins from a match in about 20 rows: a longer walk would be for a word too rare to reach the cap cheaply.
 */
const COUNT_WALK_MAX = 32_768;

/** PostgreSQL: the description's words that are not in the question (indexed by migration 0008). */
const DESC_ONLY = sql`ts_delete(tsv_all, tsvector_to_array(tsv_question))`;

export class MarketsRepo {
  private generation = 0;
  /** The catalogue version (migration 0027) this repository last read or wrote; null before the first. */
  private storeVersion: number | null = null;
  private readonly exactInFlight = new Map<string, Promise<Array<{ seq: number; doc: Buffer }>>>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    /** SQLite's read-only connection for the hot reads; without it reads go through Kysely. */
    private readonly reader: SqliteReader | null = null,
    /** PostgreSQL's prepared statements for the list page; without it the page goes through Kysely. */
    private readonly pgReader: PgReader | null = null,
  ) {}

  /**
   * The document column. PostgreSQL sends bytea as hex text, and decoding twice the bytes took half the time of a
   * page query; sending it as UTF-8 text and encoding once here is cheaper.
   */
  private docColumn() {
    return this.dialect === 'postgres'
      ? sql<Buffer | string>`convert_from(doc, 'UTF8')`.as('doc')
      : sql<Buffer | string>`doc`.as('doc');
  }

  private async rows<R>(query: { compile(): CompiledQuery<R>; execute(): Promise<R[]> }): Promise<R[]> {
    return this.reader ? this.reader.all<R>(query.compile()) : query.execute();
  }

  /**
   * Bumped whenever the catalogue changed: a write through this repository, or another node's (or process's) seen
   * by `checkForeignWrites`. A cache of pages compares its entries with it.
   */
  get writeGeneration(): number {
    return this.generation;
  }

  /**
   * Reads the store's catalogue version (migration 0027) and, if another writer bumped it since this repository last
   * saw it, bumps the write generation. One primary-key read: what a node does every few seconds to keep its cached
   * pages true to other nodes' writes. The first check bumps too (nothing was known before it).
   */
  async checkForeignWrites(): Promise<void> {
    const row = await this.db
      .selectFrom('catalogue_version')
      .select('version')
      .where('id', '=', 1)
      .executeTakeFirst();
    const version = Number(row?.version ?? 0);
    if (version !== this.storeVersion) {
      this.storeVersion = version;
      this.generation++;
    }
  }

  /**
   * Writes markets; a row whose document did not change is left alone. Returns how many rows were written. Each
   * chunk that changed rows bumps the catalogue version in its own transaction, so no reader sees the rows without
   * the bump.
   */
  async upsertMany(markets: readonly Market[], syncedAt: string): Promise<number> {
    let written = 0;
    for (let i = 0; i < markets.length; i += UPSERT_CHUNK) {
      const rows = markets.slice(i, i + UPSERT_CHUNK).map((m) => this.toRow(m, syncedAt));
      const chunk = await this.inTransaction(async (trx) => {
        const result = await trx
          .insertInto('markets')
          .values(rows)
          .onConflict((oc) =>
            oc
              .column('svc_id')
              .doUpdateSet((eb) => ({
                svc_group_id: eb.ref('excluded.svc_group_id'),
                native_lc: eb.ref('excluded.native_lc'),
                slug_lc: eb.ref('excluded.slug_lc'),
                status: eb.ref('excluded.status'),
                question: eb.ref('excluded.question'),
                description: eb.ref('excluded.description'),
                volume_total: eb.ref('excluded.volume_total'),
                liquidity: eb.ref('excluded.liquidity'),
                doc: eb.ref('excluded.doc'),
                synced_at: eb.ref('excluded.synced_at'),
                ...(this.dialect === 'postgres'
                  ? { tsv_question: sql`excluded.tsv_question`, tsv_all: sql`excluded.tsv_all` }
                  : {}),
              }))
              .where(sql<SqlBool>`markets.doc <> excluded.doc`),
          )
          .executeTakeFirst();
        const n = Number(result.numInsertedOrUpdatedRows ?? 0);
        if (n === 0) return { n, version: null };
        const bumped = await trx
          .updateTable('catalogue_version')
          .set({ version: sql<number>`version + 1` })
          .where('id', '=', 1)
          .returning('version')
          .executeTakeFirst();
        return { n, version: bumped ? Number(bumped.version) : null };
      });
      written += chunk.n;
      // This write bumps the generation below, which covers any other writer's bump read here as well.
      if (chunk.version !== null) this.storeVersion = chunk.version;
    }
    // After the rows changed: a page read meanwhile holds the generation read when it started, now out of date.
    if (written > 0) this.generation++;
    return written;
  }

  private toRow(m: Market, syncedAt: string) {
    const description = m.description ?? '';
    const row = {
      svc_id: m.svc_id,
      exchange: m.exchange,
      native_lc: m.exchange_market_id.toLowerCase(),
      slug_lc: m.slug ? m.slug.toLowerCase() : null,
      svc_group_id: m.svc_group_id,
      status: m.status,
      question: m.question,
      description,
      volume_total: m.volume_total,
      liquidity: m.liquidity ?? null,
      doc: Buffer.from(JSON.stringify(m)),
      synced_at: syncedAt,
    };
    if (this.dialect !== 'postgres') return row;
    const question = indexWords(m.question);
    return {
      ...row,
      tsv_question: sql`to_tsvector('simple', ${question})`,
      tsv_all: sql`to_tsvector('simple', ${`${question} ${indexWords(description)}`})`,
    };
  }

  /**
   * Refreshes the planner's statistics after a bulk write. Without them PostgreSQL estimates a search matches a
   * handful of rows and plans a bitmap scan over every match (seconds at a million markets) instead of walking
   * `seq` and stopping at the page size (milliseconds). On PostgreSQL it is a VACUUM too: the search walk is an
   * index-only scan only over pages the visibility map marks all-visible, and after a bulk load none is (autovacuum
   * comes later), so the planner walked the heap instead: 73 ms against 15 ms for one walk at 88,000 markets.
   */
  async analyze(): Promise<void> {
    if (this.dialect === 'postgres') await sql`vacuum (analyze) markets, events`.execute(this.db);
    else await sql`pragma optimize`.execute(this.db);
  }

  /** The `svc_id`s of an exchange's `limit` most-traded active markets (the book recorder's top N). */
  async topByVolume(exchange: string, limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('markets')
      .select('svc_id')
      .where('exchange', '=', exchange)
      .where('status', '=', 'active')
      .orderBy(sql`coalesce(volume_total, 0)`, 'desc')
      .orderBy('seq')
      .limit(limit)
      .execute();
    return rows.map((r) => r.svc_id);
  }

  /** Every stored document in insertion order, a page at a time (the matcher's start-up read). */
  async docsAfter(afterSeq: number, limit: number): Promise<Array<{ seq: number; doc: Buffer }>> {
    const rows = await this.db
      .selectFrom('markets')
      .select(['seq', this.docColumn()])
      .where('seq', '>', afterSeq)
      .orderBy('seq')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ seq: Number(r.seq), doc: asBytes(r.doc) }));
  }

  /** Documents by svc_id (which is also the `{exchange}:{exchange_market_id}` external key). */

  async findBySvcIds(svcIds: readonly string[]): Promise<Map<string, Buffer>> {
    const found = new Map<string, Buffer>();
    if (svcIds.length === 0) return found;
    const rows = await this.rows(
      this.db
        .selectFrom('markets')
        .select(['svc_id', this.docColumn()])
        .where('svc_id', 'in', [...svcIds]),
    );
    for (const row of rows) found.set(row.svc_id, asBytes(row.doc));
    return found;
  }

  /** Markets of one event, in listing order. */
  async findByGroup(svcGroupId: string, afterSeq: number, limit: number): Promise<MarketPageRow[]> {
    const rows = await this.rows(
      this.db
        .selectFrom('markets')
        .select(['seq', this.docColumn()])
        .where('svc_group_id', '=', svcGroupId)
        .where('seq', '>', afterSeq)
        .orderBy('seq')
        .limit(limit),
    );
    return rows.map((r) => ({ seq: Number(r.seq), tier: 0, doc: asBytes(r.doc) }));
  }

  async countByGroup(svcGroupId: string): Promise<number> {
    const row = await this.db
      .selectFrom('markets')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('svc_group_id', '=', svcGroupId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Market counts per event, for event listings. */
  async countByGroups(svcGroupIds: readonly string[]): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    if (svcGroupIds.length === 0) return counts;
    const rows = await this.db
      .selectFrom('markets')
      .select(['svc_group_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('svc_group_id', 'in', [...svcGroupIds])
      .groupBy('svc_group_id')
      .execute();
    for (const row of rows) counts.set(row.svc_group_id, Number(row.n));
    return counts;
  }

  /**
   * Up to `limit` rows after `after`, in (tier, seq) order. Without search everything is tier 1. With search,
   * tier 0 holds exact id / slug / ticker matches, which the later tiers leave out.
   */
  async page(filter: MarketFilter, after: PagePosition | null, limit: number): Promise<MarketPageRow[]> {
    const f = prepare(filter);
    const out: MarketPageRow[] = [];
    if (!f.search) {
      const rows = await this.plainPage(f, after?.seq ?? 0, limit);
      return rows.map((r) => ({ ...r, tier: 1 }));
    }
    const exact = await this.sharedExactMatches(f);
    const startTier = after?.tier ?? 0;
    if (startTier === 0) {
      const afterSeq = after?.seq ?? 0;
      for (const row of exact) {
        if (row.seq > afterSeq && out.length < limit) out.push({ ...row, tier: 0 });
      }
    }
    if (f.words.length === 0) return out;
    const exclude = exact.map((r) => r.seq);
    for (const tier of [1, 2] as const) {
      if (out.length >= limit || tier < startTier) continue;
      const afterSeq = after && after.tier === tier ? after.seq : 0;
      const rows = await this.searchTier(f, tier, afterSeq, exclude, limit - out.length);
      for (const row of rows) out.push({ ...row, tier });
    }
    return out;
  }

  /**
   * Rows matching the filter (every tier), counted up to `cap`: a count over a million rows costs as much as the
   * matches it walks, so beyond the cap it stops and says so (`exact: false`, `total` = the cap, a lower bound).
   */
  async count(filter: MarketFilter, cap: number): Promise<MarketCount> {
    const f = prepare(filter);
    if (!f.search) {
      return capped(
        await this.countUpTo(this.filtered(this.db.selectFrom('markets'), f).select('seq'), cap),
        0,
        cap,
      );
    }
    const exact = await this.sharedExactMatches(f);
    if (f.words.length === 0) return { total: exact.length, exact: true };
    const exclude = exact.map((r) => r.seq);
    return capped(await this.searchCount(f, exclude, cap), exact.length, cap);
  }

  /** `count(*)` of at most `cap + 1` rows of `query`. */
  private async countUpTo(query: SelectQueryBuilder<Database, 'markets', { seq: number }>, cap: number) {
    const row = await this.db
      .selectFrom(query.limit(cap + 1).as('c'))
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  private filtered<O>(
    qb: SelectQueryBuilder<Database, 'markets', O>,
    f: PreparedFilter,
  ): SelectQueryBuilder<Database, 'markets', O> {
    let q = qb.where('status', '=', f.status);
    if (f.exchanges) q = q.where('exchange', 'in', [...f.exchanges]);
    if (f.minVolume !== null) q = q.where('volume_total', '>=', f.minVolume);
    if (f.minLiquidity !== null) q = q.where('liquidity', '>=', f.minLiquidity);
    return q;
  }

  private async plainPage(f: PreparedFilter, afterSeq: number, limit: number) {
    const query = this.filtered(this.db.selectFrom('markets'), f)
      .select(['seq', this.docColumn()])
      .where('seq', '>', afterSeq)
      .orderBy('seq')
      .limit(limit);
    // A keyset page over (status, seq): its plan is the same whatever the values, so it may be prepared.
    const rows = this.pgReader
      ? await this.pgReader.all<{ seq: number; doc: Buffer | string }>(query.compile())
      : await this.rows(query);
    return rows.map((r) => ({ seq: Number(r.seq), doc: asBytes(r.doc) }));
  }

  /**
   * exactMatches, one lookup for concurrent callers with the same filter: a list request asks for its page and its
   * total at once, and both start with the exact matches (one round trip fewer on a query's first request).
   */
  private sharedExactMatches(f: PreparedFilter): Promise<Array<{ seq: number; doc: Buffer }>> {
    const key = JSON.stringify([f.status, f.exchanges, f.minVolume, f.minLiquidity, f.search]);
    const running = this.exactInFlight.get(key);
    if (running) return running;
    const promise = this.exactMatches(f).finally(() => this.exactInFlight.delete(key));
    this.exactInFlight.set(key, promise);
    return promise;
  }

  /** Rows whose svc_id, native id / ticker or slug equals the search text (case-insensitive), in seq order. */
  private async exactMatches(f: PreparedFilter): Promise<Array<{ seq: number; doc: Buffer }>> {
    const text = (f.search ?? '').trim();
    // Ids, tickers and slugs never contain white space: a query of several words needs no exact lookup.
    if (text.length === 0 || text.length > 512 || /\s/.test(text)) return [];

    const lc = text.toLowerCase();
    const colon = lc.indexOf(':');
    const viaSvc = colon > 0 ? { exchange: lc.slice(0, colon), native: lc.slice(colon + 1) } : null;
    // Separate indexed lookups joined by UNION, so each one uses its own index.
    const byNative = this.filtered(this.db.selectFrom('markets'), f)
      .select(['seq', this.docColumn()])
      .where('native_lc', '=', lc);
    const bySlug = this.filtered(this.db.selectFrom('markets'), f)
      .select(['seq', this.docColumn()])
      .where('slug_lc', '=', lc);
    let query = byNative.union(bySlug);
    if (viaSvc) {
      query = query.union(
        this.filtered(this.db.selectFrom('markets'), f)
          .select(['seq', this.docColumn()])
          .where('exchange', '=', viaSvc.exchange)
          .where('native_lc', '=', viaSvc.native),
      );
    }
    const rows = await this.rows(query.orderBy('seq').limit(100));
    return rows.map((r) => ({ seq: Number(r.seq), doc: asBytes(r.doc) }));
  }

  private async searchTier(
    f: PreparedFilter,
    tier: 1 | 2,
    afterSeq: number,
    exclude: readonly number[],
    limit: number,
  ): Promise<Array<{ seq: number; doc: Buffer }>> {
    if (this.dialect === 'postgres') {
      return tier === 1
        ? this.pgQuestionRows(f, afterSeq, exclude, limit, true)
        : this.pgDescriptionRows(f, afterSeq, exclude, limit);
    }
    const expression = tier === 1 ? ftsTier1(f) : ftsTier2(f);
    const excluded = exclude.length > 0 ? sql`and f.rowid not in (${sql.join(exclude)})` : sql``;
    const query = sql<{ seq: number; doc: Buffer }>`
      select m.seq as seq, m.doc as doc from markets_fts f join markets m on m.seq = f.rowid
      where f.markets_fts match ${expression} and f.rowid > ${afterSeq} ${excluded} ${sqliteRowFilters(f)}
      order by f.rowid limit ${limit}`;
    const rows = this.reader
      ? this.reader.all<{ seq: number; doc: Buffer }>(query.compile(this.db))
      : (await query.execute(this.db)).rows;
    return rows.map((r) => ({ seq: Number(r.seq), doc: asBytes(r.doc) }));
  }

  /**
   * PostgreSQL: runs a query choosing seqs (in seq order, limited) and, with `withDocs`, fetches their documents in
   * the same statement: the choice stays the plan it was (a subquery with a limit is planned on its own), and a
   * page costs one round trip instead of two. Without, the documents are empty (counting needs only how many).
   */
  private async pgSeqRows(
    query: SelectQueryBuilder<Database, 'markets', { seq: number }>,
    withDocs: boolean,
  ): Promise<Array<{ seq: number; doc: Buffer }>> {
    return (await this.pgSeqRowsAndMax(query, withDocs, false)).rows;
  }

  /**
   * pgSeqRows, and with `withMaxSeq` the highest seq in the store asked in the same statement (an init plan run
   * once), so the walk's density rule costs no round trip of its own. 0 when no row came back.
   */
  private async pgSeqRowsAndMax(
    query: SelectQueryBuilder<Database, 'markets', { seq: number }>,
    withDocs: boolean,
    withMaxSeq: boolean,
  ): Promise<{ rows: Array<{ seq: number; doc: Buffer }>; maxSeq: number }> {
    const maxSeq = withMaxSeq ? sql<number>`(select max(seq) from markets)` : sql<number>`0`;
    if (!withDocs) {
      const rows = await query.select(maxSeq.as('max_seq')).execute();
      return {
        rows: rows.map((r) => ({ seq: Number(r.seq), doc: NO_DOC })),
        maxSeq: Number(rows[0]?.max_seq ?? 0),
      };
    }
    const rows = await this.db
      .selectFrom(query.as('w'))
      .innerJoin('markets as m', 'm.seq', 'w.seq')
      .select(['m.seq', sql<Buffer | string>`convert_from(m.doc, 'UTF8')`.as('doc'), maxSeq.as('max_seq')])
      .orderBy('m.seq')
      .execute();
    return {
      rows: rows.map((r) => ({ seq: Number(r.seq), doc: asBytes(r.doc) })),
      maxSeq: Number(rows[0]?.max_seq ?? 0),
    };
  }

  /** PostgreSQL: the filter's rows (the walk index holds every column it reads). */
  private pgRows(f: PreparedFilter, exclude: readonly number[], db: Kysely<Database> = this.db) {
    let query = this.filtered(db.selectFrom('markets'), f).select('seq');
    if (exclude.length > 0) query = query.where('seq', 'not in', [...exclude]);
    return query;
  }

  /**
   * PostgreSQL, tier 1: the first `limit` rows after `afterSeq` with every word in the question (with their
   * documents when `withDocs`, each step fetching its own in the same statement), as a windowed
   * scan. GIN answers "which rows" but not "in seq order", and the planner, guessing how many rows two words
   * share, chose between walking seq and sorting every match, and was wrong by orders of magnitude either way
   * (a second for a common pair). So: first walk the next WALK_WINDOW seqs over `markets_question_walk_idx`,
   * which carries the question's tsvector and every filter column (an index-only scan, the `is true` keeps GIN
   * out of it), stopping at `limit` matches. When the window held fewer, walk on as far as its density says the
   * rest lies if that is cheaper than GIN; otherwise (or if still short) the rest is sparse, and GIN finds it all
   * and it is sorted (`pgGinOnly` keeps the walk out of that one); a count stops at its limit unsorted.
   */
  private async pgQuestionRows(
    f: PreparedFilter,
    afterSeq: number,
    exclude: readonly number[],
    limit: number,
    withDocs: boolean,
  ): Promise<Array<{ seq: number; doc: Buffer }>> {
    const match = sql<SqlBool>`tsv_question @@ to_tsquery('simple', ${tsAllWords(f.words)})`;
    const walk = (from: number, to: number, n: number, withMaxSeq: boolean) =>
      this.pgSeqRowsAndMax(
        this.pgRows(f, exclude)
          .where('seq', '>', from)
          .where('seq', '<=', to)
          .where(sql<SqlBool>`(${match}) is true`)
          .orderBy('seq')
          .limit(n),
        withDocs,
        withMaxSeq,
      );
    let end = afterSeq + WALK_WINDOW;
    // The first window also asks for the store's highest seq, which the density rule needs when it comes up short.
    const first = await walk(afterSeq, end, limit, true);
    const found = first.rows;
    if (found.length >= limit) return found;
    // The density walked so far says how far the rest lies: walk on (twice that far) while that costs less than
    // fetching every match left through GIN (each a heap page, HEAP_VS_WALK times a walked index row).
    const maxSeq = first.maxSeq;
    while (found.length > 0 && found.length < limit && end < maxSeq) {
      const density = found.length / (end - afterSeq);
      const further = Math.ceil((2 * (limit - found.length)) / density);
      if (further >= HEAP_VS_WALK * density * (maxSeq - end)) break;
      found.push(...(await walk(end, end + further, limit - found.length, false)).rows);
      end += further;
    }
    if (found.length >= limit || (found.length > 0 && end >= maxSeq)) return found;
    // The rest through GIN. A page needs the first of them in seq order, so every match is fetched and sorted; a
    // count (no documents) needs only how many, so its bitmap scan stops at the limit.
    const seqs = await this.pgGinOnly(async (db) => {
      let rest = this.pgRows(f, exclude, db)
        .where('seq', '>', end)
        .where(match)
        .limit(limit - found.length);
      if (withDocs) rest = rest.orderBy(sql`seq + 0`);
      return (await rest.execute()).map((r) => Number(r.seq));
    });
    if (!withDocs) {
      for (const seq of seqs) found.push({ seq, doc: NO_DOC });
      return found;
    }
    found.push(...(await this.pgDocs(seqs)));
    return found;
  }

  /**
   * PostgreSQL: runs `query` with index and index-only scans off for its transaction, so the planner answers it
   * with a bitmap scan of a GIN index. Called where the density of the walk so far has said the matches are sparse:
   * the planner, overestimating how many rows match (6,427 rows estimated for 1,248 found, `november` among 96,244
   * active markets), preferred an index-only walk over every active row of `markets_question_walk_idx` (143 ms) to
   * the bitmap (31 ms from a cold cache, 2 ms warm). Inside a caller's transaction the settings would last until it
   * ends; only an archive import makes a repository over one, and it does not search.
   */
  private pgGinOnly<T>(query: (db: Kysely<Database>) => Promise<T>): Promise<T> {
    return this.inTransaction(async (trx) => {
      await sql`select set_config('enable_indexscan', 'off', true),
        set_config('enable_indexonlyscan', 'off', true)`.execute(trx);
      return query(trx);
    });
  }

  /** Runs `work` in a transaction: its own, or the one this repository was made over (an archive import's). */
  private inTransaction<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
    return this.db.isTransaction ? work(this.db) : this.db.transaction().execute(work);
  }

  /** PostgreSQL: the documents of `seqs`, in seq order. */
  private async pgDocs(seqs: readonly number[]): Promise<Array<{ seq: number; doc: Buffer }>> {
    if (seqs.length === 0) return [];
    const rows = await this.db
      .selectFrom('markets')
      .select(['seq', this.docColumn()])
      .where('seq', 'in', [...seqs])
      .orderBy('seq')
      .execute();
    return rows.map((r) => ({ seq: Number(r.seq), doc: asBytes(r.doc) }));
  }

  /**
   * PostgreSQL, tier 2: every word across question and description, not every word in the question. That
   * negation is no index's, so it is asked as positive conditions GIN answers and the planner can estimate: some
   * word among the description's words that are not in the question (`DESC_ONLY`, an expression index). For whole
   * words that is exactly the negation; a prefix can match both, so the negation stays as a recheck.
   */
  private pgDescriptionMatch(f: PreparedFilter) {
    const all = sql`to_tsquery('simple', ${tsAllWords(f.words)})`;
    return sql<SqlBool>`tsv_all @@ ${all} and ${DESC_ONLY} @@ to_tsquery('simple', ${tsAnyWord(f.words)})
      and not (tsv_question @@ ${all})`;
  }

  private pgDescriptionRows(
    f: PreparedFilter,
    afterSeq: number,
    exclude: readonly number[],
    limit: number,
  ): Promise<Array<{ seq: number; doc: Buffer }>> {
    return this.pgSeqRows(
      this.pgRows(f, exclude)
        .where('seq', '>', afterSeq)
        .where(this.pgDescriptionMatch(f))
        .orderBy('seq')
        .limit(limit),
      true,
    );
  }

  /** Matches of the words beyond the exact ones, counted up to `cap + 1`. */
  private async searchCount(f: PreparedFilter, exclude: readonly number[], cap: number): Promise<number> {
    if (this.dialect === 'postgres') {
      // One GIN count over the status's own index (migrations 0026 and 0028): its bitmap holds that status's rows
      // alone, so no heap row of another status is read to be thrown away.
      return this.pgSearchCount(f, exclude, cap);
    }
    const excluded = exclude.length > 0 ? sql`and f.rowid not in (${sql.join(exclude)})` : sql``;
    const needsRows = f.minVolume !== null || f.minLiquidity !== null;
    const matches = needsRows
      ? sql`select 1 from markets_fts f join markets m on m.seq = f.rowid
          where f.markets_fts match ${ftsAll(f)} ${excluded} ${sqliteRowFilters(f)} limit ${cap + 1}`
      : sql`select 1 from markets_fts f where f.markets_fts match ${ftsAll(f)} ${excluded} limit ${cap + 1}`;
    const rows = await sql<{ n: number }>`select count(*) as n from (${matches})`.execute(this.db);
    return Number(rows.rows[0]?.n ?? 0);
  }

  /**
   * PostgreSQL: the tiers past the exact matches together are every word somewhere across question and description
   * (`tsv_all`), so one GIN condition counts them all: no walk (a common word's question tier walked tens of
   * thousands of rows to find cap + 1), over the status's partial index (migrations 0026 and 0028), which holds no
   * other status's rows to fetch and throw away. The exact matches are left out by counting which of them match
   * too (a handful of rows) rather than by `seq` in the count, which would fetch every counted row's heap tuple.
   */
  private async pgSearchCount(f: PreparedFilter, exclude: readonly number[], cap: number): Promise<number> {
    const want = cap + 1 + exclude.length;
    // A word in a third of all questions has 30,000 GIN matches among 100,000 active rows, and building their
    // bitmap cost 40-100 ms; the first COUNT_HEAD rows of the walk index hold more than the cap of them, found in
    // a millisecond or two. Past the cap the count is a lower bound whatever the tier, so the question's words
    // suffice there. A word in a tenth of the questions (80,000 of 721,704 active rows) has fewer in the head, but
    // its density there says where the cap lies: walking on to it (9,000 rows, 2-3 ms) beat the bitmap (22-55 ms).
    const inHead = await this.pgHeadCount(f, COUNT_HEAD, want);
    if (inHead >= want) return inHead - exclude.length;
    const further = inHead > 0 ? Math.ceil((1.5 * want * COUNT_HEAD) / inHead) : Number.POSITIVE_INFINITY;
    if (further <= COUNT_WALK_MAX) {
      const inWalk = await this.pgHeadCount(f, further, want);
      if (inWalk >= want) return inWalk - exclude.length;
    }
    const all = sql<SqlBool>`tsv_all @@ to_tsquery('simple', ${tsAllWords(f.words)})`;
    const matches = this.filtered(this.db.selectFrom('markets'), f)
      .select(sql<number>`1`.as('one'))
      .where(all)
      .limit(want);
    const row = await this.db
      .selectFrom(matches.as('c'))
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    let n = Number(row.n);
    if (exclude.length > 0) {
      const overlap = await this.db
        .selectFrom('markets')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('seq', 'in', [...exclude])
        .where(all)
        .executeTakeFirstOrThrow();
      n -= Number(overlap.n);
    }
    return n;
  }

  /** PostgreSQL: matches of every word in the question among the first `rows` rows of the walk index, up to `want`. */
  private async pgHeadCount(f: PreparedFilter, rows: number, want: number): Promise<number> {
    const head = this.db
      .selectFrom(
        this.filtered(this.db.selectFrom('markets'), f)
          .select(sql<string>`tsv_question`.as('tsv'))
          .orderBy('seq')
          .limit(rows)
          .as('h'),
      )
      .select(sql<number>`1`.as('one'))
      .where(sql<SqlBool>`h.tsv @@ to_tsquery('simple', ${tsAllWords(f.words)})`)
      .limit(want);
    const row = await this.db
      .selectFrom(head.as('c'))
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}

function capped(matched: number, exactMatches: number, cap: number): MarketCount {
  return matched > cap
    ? { total: exactMatches + cap, exact: false }
    : { total: exactMatches + matched, exact: true };
}

function prepare(filter: MarketFilter): PreparedFilter {
  const search = filter.search?.trim() ? filter.search : null;
  return { ...filter, search, words: search ? parseSearchWords(search) : [] };
}

/** Status and exchange as FTS5 tag tokens, so the full-text index filters them itself. */
function ftsTags(f: PreparedFilter): string {
  const status = `tags : "st${f.status}"`;
  if (!f.exchanges) return status;
  return `${status} AND tags : (${f.exchanges.map((e) => `"ex${e}"`).join(' OR ')})`;
}

function ftsAll(f: PreparedFilter): string {
  return `({question description} : (${ftsAllWords(f.words)})) AND ${ftsTags(f)}`;
}

function ftsTier1(f: PreparedFilter): string {
  return `(question : (${ftsAllWords(f.words)})) AND ${ftsTags(f)}`;
}

function ftsTier2(f: PreparedFilter): string {
  const words = ftsAllWords(f.words);
  return `(({question description} : (${words})) NOT (question : (${words}))) AND ${ftsTags(f)}`;
}

/** Filters FTS5 cannot answer, applied to the joined market row. */
function sqliteRowFilters(f: PreparedFilter) {
  const parts = [];
  if (f.minVolume !== null) parts.push(sql`and m.volume_total >= ${f.minVolume}`);
  if (f.minLiquidity !== null) parts.push(sql`and m.liquidity >= ${f.minLiquidity}`);
  return parts.length > 0 ? sql.join(parts, sql` `) : sql``;
}

function asBytes(doc: Buffer | string): Buffer {
  return typeof doc === 'string' ? Buffer.from(doc) : doc;
}
