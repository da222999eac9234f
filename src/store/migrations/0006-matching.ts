// Matching: every published link keeps the evidence that produced it (`market_links.evidence`, a JSON array of
// short statements), and `market_match_state` remembers the fingerprint of the inputs each market was last linked
// from, so a restarted node relinks only markets whose wording, dates or event changed since.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('market_links').addColumn('evidence', 'text').execute();
  // Relinking a market deletes the rows that point at it as well as its own.
  await db.schema.createIndex('market_links_linked_idx').on('market_links').column('linked_svc_id').execute();
  await db.schema
    .createTable('market_match_state')
    .addColumn('svc_id', 'text', (c) => c.primaryKey())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('market_match_state').execute();
  await db.schema.dropIndex('market_links_linked_idx').execute();
  await db.schema.alterTable('market_links').dropColumn('evidence').execute();
}
