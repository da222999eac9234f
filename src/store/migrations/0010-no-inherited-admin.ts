// No builder key and no builder end-user holds the admin tier (issue 31): an end-user used to inherit its builder's
// tier, admin included, and could then administer every key. A builder key now cannot be created admin
// (tenancy/api-keys.ts), and an end-user gets its builder's tier capped below admin; rows written before that rule
// are demoted here to scale, the highest tier short of admin (same limits, without key administration).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`update api_keys set tier = 'scale'
    where tier = 'admin'
      and (is_builder = 1 or customer_id in (select customer_id from builder_users))`.execute(db);
}

export async function down(): Promise<void> {
  // The demotion is not undone: which keys held admin wrongly is not kept.
}
