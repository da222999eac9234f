// The fingerprint each market was last linked from (see migration 0006): what lets a restarted matcher relink only
// the markets that changed while it was down.
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

const CHUNK = 300;

export class MatchStateRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async all(): Promise<Map<string, string>> {
    const rows = await this.db.selectFrom('market_match_state').select(['svc_id', 'fingerprint']).execute();
    return new Map(rows.map((r) => [r.svc_id, r.fingerprint]));
  }

  async save(rows: ReadonlyArray<{ svc_id: string; fingerprint: string }>, updatedAt: string): Promise<void> {
    for (let i = 0; i < rows.length; i += CHUNK) {
      await this.db
        .insertInto('market_match_state')
        .values(rows.slice(i, i + CHUNK).map((r) => ({ ...r, updated_at: updatedAt })))
        .onConflict((oc) =>
          oc.column('svc_id').doUpdateSet((eb) => ({
            fingerprint: eb.ref('excluded.fingerprint'),
            updated_at: eb.ref('excluded.updated_at'),
          })),
        )
        .execute();
    }
  }
}
