// Hot statements on SQLite (the order journal's writes on every order, and its Idempotency-Key lookup): fixed SQL
// prepared once on the writer connection and run synchronously, instead of Kysely building, compiling and preparing
// each query again and passing it through its connection mutex and a chain of promises (together most of a write's
// cost). Parameters get the same NUL check as every Kysely query (reject-nul-plugin.ts). While Kysely holds a
// transaction open on this connection, a statement run here would join that transaction and share its fate: then
// `available` is false and callers take Kysely's path, which waits for the transaction to end.
import type SqliteDatabase from 'better-sqlite3';
import { checkValue } from './reject-nul-plugin.js';

export class SqliteWriter {
  private readonly statements = new Map<string, SqliteDatabase.Statement>();
  private transaction: ((body: () => unknown) => unknown) | null = null;

  constructor(
    private readonly handle: SqliteDatabase.Database,
    private readonly maxStatements = 64,
  ) {}

  /** False while a transaction is open on the connection (see above). */
  get available(): boolean {
    return this.handle.open && !this.handle.inTransaction;
  }

  /** Runs `fn`'s statements in one transaction (one commit); a throw rolls them all back and is rethrown. */
  atomically<T>(fn: () => T): T {
    this.transaction ??= this.handle.transaction((body: () => unknown) => body());
    return this.transaction(fn) as T;
  }

  /** Runs a statement that returns no rows; the number of rows it changed. */
  run(sql: string, parameters: readonly unknown[]): number {
    checkValue(parameters);
    return this.statement(sql).run(...parameters).changes;
  }

  /** Runs an INSERT; the rows it added (0 when a conflict clause skipped it) and the rowid of the last one. */
  insert(sql: string, parameters: readonly unknown[]): { changes: number; rowid: number } {
    checkValue(parameters);
    const { changes, lastInsertRowid } = this.statement(sql).run(...parameters);
    return { changes, rowid: Number(lastInsertRowid) };
  }

  /** Runs a statement that returns rows; its first row, if any. */
  get<R>(sql: string, parameters: readonly unknown[]): R | undefined {
    checkValue(parameters);
    return this.statement(sql).get(...parameters) as R | undefined;
  }

  private statement(sql: string): SqliteDatabase.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.handle.prepare(sql);
      if (this.statements.size >= this.maxStatements) {
        const oldest = this.statements.keys().next().value;
        if (oldest !== undefined) this.statements.delete(oldest);
      }
      this.statements.set(sql, statement);
    }
    return statement;
  }
}
