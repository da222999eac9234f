// `omnibook migrate`: applies pending migrations to the configured database and says which.
import { loadConfig } from '../config/load.js';
import { openStore } from '../store/database.js';
import { parse } from './args.js';

export async function migrateCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, { 'data-dir': { type: 'string' }, config: { type: 'string' } });
  const config = loadConfig({
    ...(values.config ? { file: values.config } : {}),
    overrides: values['data-dir'] ? { dataDir: values['data-dir'] } : {},
  });
  const store = openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    const applied = await store.migrate();
    process.stdout.write(
      applied.length > 0
        ? `applied ${applied.join(', ')} on ${store.location}\n`
        : `${store.location} is up to date\n`,
    );
    return 0;
  } finally {
    await store.close();
  }
}
