// SQL for the api_keys table. Stores only the SHA-256 of a key; the clear key never reaches this module.
import type { Kysely, Selectable } from 'kysely';
import type { ApiKeysTable, Database } from './schema.js';

export type ApiKeyRow = Selectable<ApiKeysTable>;

const ID_BATCH = 500;

export class ApiKeysRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: ApiKeyRow): Promise<void> {
    await this.db.insertInto('api_keys').values(row).execute();
  }

  async findByHash(keyHash: string): Promise<ApiKeyRow | undefined> {
    return this.db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
  }

  async findById(id: string): Promise<ApiKeyRow | undefined> {
    return this.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Which of these ids are keys that exist and are not revoked: one primary-key lookup per batch of ids. */
  async activeIds(ids: readonly string[]): Promise<Set<string>> {
    const active = new Set<string>();
    // Batches keep each statement well under SQLite's and PostgreSQL's bound-parameter limits.
    for (let i = 0; i < ids.length; i += ID_BATCH) {
      const rows = await this.db
        .selectFrom('api_keys')
        .select('id')
        .where('id', 'in', ids.slice(i, i + ID_BATCH))
        .where('revoked_at', 'is', null)
        .execute();
      for (const row of rows) active.add(row.id);
    }
    return active;
  }

  /** Whether any key (revoked or not) was ever issued to this customer. */
  async customerExists(customerId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('api_keys')
      .select('id')
      .where('customer_id', '=', customerId)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  async list(): Promise<ApiKeyRow[]> {
    return this.db.selectFrom('api_keys').selectAll().orderBy('created_at').orderBy('id').execute();
  }

  /** Marks a key revoked; returns false when no such unrevoked key exists. */
  async revoke(id: string, at: string): Promise<boolean> {
    const result = await this.db
      .updateTable('api_keys')
      .set({ revoked_at: at })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async restore(id: string, tier: string): Promise<void> {
    await this.db.updateTable('api_keys').set({ revoked_at: null, tier }).where('id', '=', id).execute();
  }
}
