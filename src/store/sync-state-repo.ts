// SQL for catalogue sync bookkeeping: the venue cursor of the pass in progress (so a restart resumes where it
// stopped) and a lease so only one node syncs when several share PostgreSQL.
import { type Kysely, sql } from 'kysely';
import type { Database, SyncStateTable } from './schema.js';

export type SyncResource = 'markets' | 'events';

export class SyncStateRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async get(exchange: string, resource: SyncResource): Promise<SyncStateTable | undefined> {
    return this.db
      .selectFrom('sync_state')
      .selectAll()
      .where('exchange', '=', exchange)
      .where('resource', '=', resource)
      .executeTakeFirst();
  }

  async list(): Promise<SyncStateTable[]> {
    return this.db.selectFrom('sync_state').selectAll().orderBy('exchange').orderBy('resource').execute();
  }

  /** Records the cursor of the next page to fetch and how many items this pass has seen so far. */
  async saveCursor(exchange: string, resource: SyncResource, cursor: string, seen: number, now: string) {
    await this.db
      .insertInto('sync_state')
      .values({
        exchange,
        resource,
        cursor,
        pass_started_at: now,
        pass_seen: seen,
        updated_at: now,
      })
      .onConflict((oc) =>
        oc.columns(['exchange', 'resource']).doUpdateSet({
          cursor,
          pass_seen: seen,
          last_error: null,
          updated_at: now,
          pass_started_at: sql`coalesce(sync_state.pass_started_at, ${now})`,
        }),
      )
      .execute();
  }

  /** The pass reached the venue's last page: the next one starts from the beginning. */
  async completePass(exchange: string, resource: SyncResource, now: string) {
    await this.db
      .insertInto('sync_state')
      .values({ exchange, resource, cursor: null, pass_seen: 0, last_full_at: now, updated_at: now })
      .onConflict((oc) =>
        oc.columns(['exchange', 'resource']).doUpdateSet({
          cursor: null,
          pass_started_at: null,
          pass_seen: 0,
          last_full_at: now,
          last_error: null,
          updated_at: now,
        }),
      )
      .execute();
  }

  async recordError(exchange: string, resource: SyncResource, message: string, now: string) {
    await this.db
      .insertInto('sync_state')
      .values({ exchange, resource, pass_seen: 0, last_error: message, updated_at: now })
      .onConflict((oc) =>
        oc.columns(['exchange', 'resource']).doUpdateSet({ last_error: message, updated_at: now }),
      )
      .execute();
  }

  /**
   * Takes or renews the named lease for `ttlMs`; true when `holder` now holds it. One conditional upsert, so two
   * nodes racing for an expired lease cannot both win.
   */
  async acquireLease(name: string, holder: string, nowMs: number, ttlMs: number): Promise<boolean> {
    const expires = nowMs + ttlMs;
    await this.db
      .insertInto('leases')
      .values({ name, holder, expires_at: expires })
      .onConflict((oc) =>
        oc
          .column('name')
          .doUpdateSet({ holder, expires_at: expires })
          .where((eb) => eb.or([eb('leases.holder', '=', holder), eb('leases.expires_at', '<', nowMs)])),
      )
      .execute();
    const row = await this.db
      .selectFrom('leases')
      .select('holder')
      .where('name', '=', name)
      .executeTakeFirst();
    return row?.holder === holder;
  }

  async releaseLease(name: string, holder: string): Promise<void> {
    await this.db.deleteFrom('leases').where('name', '=', name).where('holder', '=', holder).execute();
  }
}
