// Hot catalogue reads on PostgreSQL as named prepared statements: the server parses and plans a statement once per
// connection instead of on every request (what an unnamed query costs), and the query skips Kysely's executor.
// Only for statements whose best plan does not depend on the values (a keyset page over an index): PostgreSQL may
// settle on a generic plan for a prepared statement after five executions.
import { createHash } from 'node:crypto';
import type { CompiledQuery } from 'kysely';
import type pg from 'pg';

export class PgReader {
  /** SQL text → statement name; a name is a hash of the text, so no two texts share one on any connection. */
  private readonly names = new Map<string, string>();

  constructor(private readonly pool: pg.Pool) {}

  async all<R>(compiled: CompiledQuery): Promise<R[]> {
    let name = this.names.get(compiled.sql);
    if (name === undefined) {
      name = `ob_${createHash('sha1').update(compiled.sql).digest('hex').slice(0, 24)}`;
      this.names.set(compiled.sql, name);
    }
    const result = await this.pool.query({
      name,
      text: compiled.sql,
      values: compiled.parameters as unknown[],
    });
    return result.rows as R[];
  }
}
