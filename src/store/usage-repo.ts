// SQL for persisted monthly request counters. Writes are additive upserts so several nodes can flush safely.
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.js';

export class UsageRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async get(keyId: string, period: string): Promise<number> {
    const row = await this.db
      .selectFrom('usage_monthly')
      .select('requests')
      .where('key_id', '=', keyId)
      .where('period', '=', period)
      .executeTakeFirst();
    return row ? Number(row.requests) : 0;
  }

  async add(deltas: ReadonlyArray<{ keyId: string; period: string; requests: number }>): Promise<void> {
    if (deltas.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      for (const d of deltas) {
        await trx
          .insertInto('usage_monthly')
          .values({ key_id: d.keyId, period: d.period, requests: d.requests })
          .onConflict((oc) =>
            oc
              .columns(['key_id', 'period'])
              .doUpdateSet({ requests: sql`usage_monthly.requests + ${d.requests}` }),
          )
          .execute();
      }
    });
  }
}
