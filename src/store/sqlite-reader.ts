// Hot catalogue reads on SQLite: a second, read-only connection with a cache of prepared statements. WAL lets it
// read while the writer writes, it never sees a writer's open transaction, and preparing a statement once
// instead of per query (what Kysely's driver does) is a large share of a sub-millisecond read.
import type SqliteDatabase from 'better-sqlite3';
import type { CompiledQuery } from 'kysely';

export class SqliteReader {
  private readonly statements = new Map<string, SqliteDatabase.Statement>();

  constructor(
    private readonly handle: SqliteDatabase.Database,
    private readonly maxStatements = 512,
  ) {}

  all<R>(compiled: CompiledQuery): R[] {
    let statement = this.statements.get(compiled.sql);
    if (!statement) {
      statement = this.handle.prepare(compiled.sql);
      if (this.statements.size >= this.maxStatements) {
        const oldest = this.statements.keys().next().value;
        if (oldest !== undefined) this.statements.delete(oldest);
      }
      this.statements.set(compiled.sql, statement);
    }
    return statement.all(...compiled.parameters) as R[];
  }

  close(): void {
    this.statements.clear();
    this.handle.close();
  }
}
