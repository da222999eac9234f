// Whether a key may place and cancel orders through the MCP tools (`place_order`, `cancel_order`): off for every
// key unless an operator turns it on at creation (`POST /keys` `mcp_trading`, `omnibook keys create --mcp-trading`).
// Every key written before this migration keeps the MCP surface read-only.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('api_keys')
    .addColumn('mcp_trading', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('mcp_trading').execute();
}
