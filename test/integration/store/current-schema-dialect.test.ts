// The store's PostgreSQL introspection reads its own schema only: Kysely's own read every schema and failed a
// migration when another session dropped one meanwhile (a parallel test file dropping its throwaway schema).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { openStore, type Store } from '../../../src/store/database.js';
import { createPgSchema, TEST_DATABASE_URL } from '../../support/services.js';

let own: Awaited<ReturnType<typeof createPgSchema>>;
let other: Awaited<ReturnType<typeof createPgSchema>>;
let store: Store;

before(async () => {
  own = await createPgSchema();
  other = await createPgSchema();
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  await client.query(`create table ${other.schema}.not_ours (id integer)`);
  await client.end();
  store = openStore({ databaseUrl: TEST_DATABASE_URL, dataDir: '.', pgSchema: own.schema });
});

after(async () => {
  await store?.close();
  await own?.drop();
  await other?.drop();
});

test('introspection lists the current schema’s tables only, and migrating twice applies nothing the second time', async () => {
  assert.ok((await store.migrate()).length > 0);
  const tables = await store.db.introspection.getTables();
  assert.ok(tables.length > 0);
  assert.ok(tables.every((t) => t.schema === own.schema));
  assert.ok(tables.some((t) => t.name === 'markets'));
  assert.ok(!tables.some((t) => t.name === 'not_ours' || t.name === 'kysely_migration'));
  const internal = await store.db.introspection.getTables({ withInternalKyselyTables: true });
  assert.ok(internal.some((t) => t.name === 'kysely_migration'));
  assert.deepEqual(await store.migrate(), []);
});
