// Runs a store suite on both dialects: SQLite in a temp dir and PostgreSQL in a throwaway schema.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import { openStore, type Store } from '../../../src/store/database.js';
import { createPgSchema, TEST_DATABASE_URL } from '../../support/services.js';

export function onBothDialects(name: string, suite: (store: () => Store) => void): void {
  describe(`${name} [sqlite]`, () => {
    let store: Store;
    let dir: string;
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'omnibook-store-'));
      store = openStore({ dataDir: dir });
      await store.migrate();
    });
    after(async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    suite(() => store);
  });
  describe(`${name} [postgres]`, () => {
    let store: Store;
    let drop: () => Promise<void>;
    before(async () => {
      const schema = await createPgSchema();
      drop = schema.drop;
      store = openStore({ databaseUrl: TEST_DATABASE_URL, dataDir: '.', pgSchema: schema.schema });
      await store.migrate();
    });
    after(async () => {
      await store?.close();
      await drop?.();
    });
    suite(() => store);
  });
}
