// `omnibook vault rotate|status`: re-encrypts every stored credential under the current master key while servers
// keep running (they must already hold the new key as current and the old one as previous), and says how many
// records each key wraps. Key text is never printed.
import { join } from 'node:path';
import { loadConfig } from '../config/load.js';
import { BuilderRepo } from '../store/builder-repo.js';
import { CredentialsRepo } from '../store/credentials-repo.js';
import { openStore } from '../store/database.js';
import { loadKeyring } from '../vault/keyring-source.js';
import { rotateEndUserKeys, rotateRecords } from '../vault/rotation.js';
import { parse, UsageError } from './args.js';

const FLAGS = {
  'data-dir': { type: 'string' },
  config: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const USAGE = `usage:
  omnibook vault status    how many records each master key wraps
  omnibook vault rotate    rewrap every record under the current master key (OMNIBOOK_MASTER_KEY, or
                           <data-dir>/master.key); OMNIBOOK_MASTER_KEY_PREVIOUS must name the key(s) being replaced
`;

export async function vaultCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, FLAGS);
  const [sub] = positionals;
  if (values.help || !sub) {
    process.stdout.write(USAGE);
    return values.help ? 0 : 2;
  }
  if (sub !== 'rotate' && sub !== 'status')
    throw new UsageError(`unknown vault subcommand '${sub}'\n${USAGE}`);
  const config = loadConfig({
    ...(values.config ? { file: values.config } : {}),
    overrides: values['data-dir'] ? { dataDir: values['data-dir'] } : {},
  });
  const keyring = loadKeyring({
    masterKey: config.vault.masterKey,
    previousMasterKeys: config.vault.previousMasterKeys,
    keyFile: join(config.dataDir, 'master.key'),
  });
  const store = openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    await store.migrate();
    const repo = new CredentialsRepo(store.db);
    let unopenableEndUserKeys = 0;
    if (sub === 'rotate') {
      const result = await rotateRecords(repo, keyring);
      process.stdout.write(
        `rewrapped ${result.rewrapped} record(s) under master key ${keyring.current.id}\n`,
      );
      for (const key of result.unopenable) {
        process.stderr.write(
          `cannot open ${key.kind} of ${key.customer_id} on ${key.exchange}: its master key is not configured (OMNIBOOK_MASTER_KEY_PREVIOUS) or the row was altered\n`,
        );
      }
      const endUsers = await rotateEndUserKeys(new BuilderRepo(store.db), keyring);
      process.stdout.write(`rewrapped ${endUsers.rewrapped} builder end-user API key(s)\n`);
      for (const customerId of endUsers.unopenable) {
        process.stderr.write(
          `cannot open the API key of builder end-user ${customerId}: its master key is not configured (OMNIBOOK_MASTER_KEY_PREVIOUS) or the row was altered\n`,
        );
      }
      unopenableEndUserKeys = endUsers.unopenable.length;
    }
    const counts = await repo.countByMasterKey();
    let left = unopenableEndUserKeys;
    for (const { master_key_id: id, records } of counts) {
      const role = id === keyring.current.id ? 'current' : keyring.byId(id) ? 'previous' : 'not configured';
      if (id !== keyring.current.id) left += records;
      process.stdout.write(`${id}\t${records}\t${role}\n`);
    }
    if (sub === 'status') return 0;
    if (left > 0) {
      process.stderr.write(
        `${left} record(s) are still under another key: run rotate again once every server seals with ${keyring.current.id}\n`,
      );
      return 1;
    }
    return 0;
  } finally {
    await store.close();
  }
}
