// Catalogue tables: markets (one row per svc_id, the served document kept as JSON bytes so a page is concatenated,
// never re-serialized), events, published cross-market links, resumable sync cursors and leader leases.
// `seq` is an immutable insertion sequence: list pages are keyset over it, so a row never moves between pages while
// a sync rewrites prices, and markets listed later appear at the end of a walk. Keyword search is FTS5 on SQLite and
// tsvector + GIN on PostgreSQL; both index text folded the same way (lower case, no diacritics).
import { type Kysely, PostgresAdapter, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = await isPostgres(db);
  let markets = db.schema
    .createTable('markets')
    .addColumn('seq', postgres ? 'bigint' : 'integer', (c) =>
      postgres ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey(),
    )
    .addColumn('svc_id', 'text', (c) => c.notNull().unique())
    .addColumn('exchange', 'text', (c) => c.notNull())
    .addColumn('native_lc', 'text', (c) => c.notNull())
    .addColumn('slug_lc', 'text')
    .addColumn('svc_group_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('question', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('volume_total', 'double precision')
    .addColumn('liquidity', 'double precision')
    .addColumn('doc', postgres ? 'bytea' : 'blob', (c) => c.notNull())
    .addColumn('synced_at', 'text', (c) => c.notNull());
  if (postgres) {
    markets = markets
      .addColumn('tsv_question', sql`tsvector`, (c) => c.notNull())
      .addColumn('tsv_all', sql`tsvector`, (c) => c.notNull());
  }
  await markets.execute();
  await db.schema.createIndex('markets_status_seq_idx').on('markets').columns(['status', 'seq']).execute();
  await db.schema
    .createIndex('markets_exchange_native_idx')
    .on('markets')
    .columns(['exchange', 'native_lc'])
    .execute();
  await db.schema.createIndex('markets_native_idx').on('markets').column('native_lc').execute();
  await db.schema.createIndex('markets_slug_idx').on('markets').column('slug_lc').execute();
  await db.schema.createIndex('markets_group_idx').on('markets').columns(['svc_group_id', 'seq']).execute();

  if (postgres) {
    await sql`create index markets_tsv_question_idx on markets using gin (tsv_question)`.execute(db);
    await sql`create index markets_tsv_all_idx on markets using gin (tsv_all)`.execute(db);
  } else {
    // External-content FTS5 over the markets table; `tags` carries status and exchange as tokens so filtered
    // searches and their counts stay inside the full-text index.
    await sql`create virtual table markets_fts using fts5(
      question, description, tags, content='', contentless_delete=1,
      tokenize='unicode61 remove_diacritics 2'
    )`.execute(db);
    await sql`create trigger markets_fts_insert after insert on markets begin
      insert into markets_fts(rowid, question, description, tags)
      values (new.seq, new.question, new.description, 'st' || new.status || ' ex' || new.exchange);
    end`.execute(db);
    await sql`create trigger markets_fts_update after update of question, description, status on markets begin
      delete from markets_fts where rowid = old.seq;
      insert into markets_fts(rowid, question, description, tags)
      values (new.seq, new.question, new.description, 'st' || new.status || ' ex' || new.exchange);
    end`.execute(db);
    await sql`create trigger markets_fts_delete after delete on markets begin
      delete from markets_fts where rowid = old.seq;
    end`.execute(db);
  }

  await db.schema
    .createTable('events')
    .addColumn('svc_group_id', 'text', (c) => c.primaryKey())
    .addColumn('exchange', 'text', (c) => c.notNull())
    .addColumn('exchange_group_id', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('title_lc', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('close_time', 'text')
    .addColumn('volume_total', 'double precision')
    .addColumn('synced_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('events_status_volume_idx')
    .on('events')
    .columns(['status', 'volume_total', 'svc_group_id'])
    .execute();
  await db.schema
    .createIndex('events_exchange_native_idx')
    .on('events')
    .columns(['exchange', 'exchange_group_id'])
    .execute();

  await db.schema
    .createTable('market_links')
    .addColumn('svc_id', 'text', (c) => c.notNull())
    .addColumn('linked_svc_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('confidence', 'double precision', (c) => c.notNull())
    .addColumn('confidence_tier', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('published', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('dependency_type', 'text')
    .addColumn('dependency_direction', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('market_links_pk', ['svc_id', 'linked_svc_id', 'kind'])
    .execute();

  await db.schema
    .createTable('sync_state')
    .addColumn('exchange', 'text', (c) => c.notNull())
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('cursor', 'text')
    .addColumn('pass_started_at', 'text')
    .addColumn('pass_seen', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_full_at', 'text')
    .addColumn('last_error', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('sync_state_pk', ['exchange', 'resource'])
    .execute();

  await db.schema
    .createTable('leases')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['leases', 'sync_state', 'market_links', 'events']) {
    await db.schema.dropTable(table).execute();
  }
  if (!(await isPostgres(db))) await sql`drop table if exists markets_fts`.execute(db);
  await db.schema.dropTable('markets').execute();
}

async function isPostgres(db: Kysely<unknown>): Promise<boolean> {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
