// Opens the database: embedded SQLite (WAL, file under the data dir) by default, PostgreSQL when a URL is given.
// Returns one handle with the dialect name so the few dialect-specific queries (search, upserts) can branch.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { CurrentSchemaPostgresDialect } from './current-schema-dialect.js';
import { MIGRATIONS } from './migrations/index.js';
import { PgReader } from './pg-reader.js';
import { ensurePrivateFile, PRIVATE_DIR_MODE, restrictExisting } from './private-file.js';
import { RejectNulPlugin } from './reject-nul-plugin.js';
import type { Database } from './schema.js';
import { SqliteReader } from './sqlite-reader.js';
import { SqliteWriter } from './sqlite-writer.js';
import { WalCheckpointer } from './wal-checkpointer.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Store {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  /** Human description for logs and /healthz: the SQLite path or the PostgreSQL host/db (never the password). */
  readonly location: string;
  /** SQLite only: a read-only connection with cached statements for the catalogue's hot reads. */
  readonly sqliteReader: SqliteReader | null;
  /** PostgreSQL only: the catalogue's list page as a prepared statement (pg-reader.ts). */
  readonly pgReader: PgReader | null;
  /** SQLite only: the writer connection's cached statements, run synchronously, for the hottest writes. */
  readonly sqliteWriter: SqliteWriter | null;
  /** SQLite only: checkpoints the WAL off the event loop (wal-checkpointer.ts). */
  readonly walCheckpointer: WalCheckpointer | null;
  migrate(): Promise<string[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface OpenStoreOptions {
  databaseUrl?: string | undefined;
  dataDir: string;
  /** PostgreSQL schema to use (tests isolate themselves in a throwaway schema). */
  pgSchema?: string;
  poolSize?: number;
}

export function openStore(options: OpenStoreOptions): Store {
  return options.databaseUrl ? openPostgres(options.databaseUrl, options) : openSqlite(options.dataDir);
}

function openSqlite(dataDir: string): Store {
  mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const file = resolve(join(dataDir, 'omnibook.sqlite'));
  // Created 0600 before SQLite opens it (SQLite would create it 0644); the WAL and shm files take its mode.
  ensurePrivateFile(file);
  const handle = new SqliteDatabase(file);
  handle.pragma('journal_mode = WAL');
  restrictExisting(`${file}-wal`, `${file}-shm`);
  handle.pragma('synchronous = NORMAL');
  handle.pragma('busy_timeout = 5000');
  handle.pragma('foreign_keys = ON');
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: handle }),
    plugins: [new RejectNulPlugin()],
  });
  const reader = new SqliteReader(new SqliteDatabase(file, { readonly: true }));
  return finish(db, 'sqlite', file, {
    reader,
    writer: new SqliteWriter(handle),
    checkpointer: new WalCheckpointer(handle, file),
  });
}

function openPostgres(url: string, options: OpenStoreOptions): Store {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    // int8 (counters) as numbers: our counts stay far below 2^53.
    types: {
      getTypeParser: (oid: number, format?: 'text' | 'binary') =>
        oid === 20 ? Number : pg.types.getTypeParser(oid, format as 'text'),
    } as pg.CustomTypesConfig,
    ...(options.pgSchema ? { options: `-c search_path=${options.pgSchema}` } : {}),
  });
  const db = new Kysely<Database>({
    dialect: new CurrentSchemaPostgresDialect({ pool }),
    plugins: [new RejectNulPlugin()],
  });
  return finish(db, 'postgres', describePgUrl(url, options.pgSchema), null, new PgReader(pool));
}

function finish(
  db: Kysely<Database>,
  dialect: Dialect,
  location: string,
  sqlite: { reader: SqliteReader; writer: SqliteWriter; checkpointer: WalCheckpointer } | null,
  pgReader: PgReader | null = null,
): Store {
  let closed = false;
  return {
    db,
    dialect,
    location,
    sqliteReader: sqlite?.reader ?? null,
    pgReader,
    sqliteWriter: sqlite?.writer ?? null,
    walCheckpointer: sqlite?.checkpointer ?? null,
    async migrate() {
      // On PostgreSQL, pin Kysely's bookkeeping tables to our own schema: otherwise it finds another schema's
      // migration tables on the search path and skips creating ours.
      const migrationTableSchema =
        dialect === 'postgres'
          ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
          : undefined;
      const migrator = new Migrator({
        db,
        provider: { getMigrations: async () => MIGRATIONS },
        ...(migrationTableSchema ? { migrationTableSchema } : {}),
      });
      const { error, results } = await migrator.migrateToLatest();
      if (error) throw error;
      return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    },
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      if (closed) return;
      closed = true;
      await sqlite?.checkpointer.stop();
      sqlite?.reader.close();
      await db.destroy();
    },
  };
}

function describePgUrl(url: string, schema?: string): string {
  try {
    const u = new URL(url);
    return `postgres://${u.host}${u.pathname}${schema ? `#${schema}` : ''}`;
  } catch {
    return 'postgres';
  }
}
