import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from './src/store/database.ts';
import { CredentialsRepo } from './src/store/credentials-repo.ts';
import { CredentialsStore } from './src/vault/credentials-store.ts';
import { generateMasterKey, MasterKeyring } from './src/vault/master-key.ts';
const store = openStore({ dataDir: mkdtempSync(join(tmpdir(), 'pb-')) });
await store.migrate?.();
const repo = new CredentialsRepo(store.db);
const vault = new CredentialsStore(repo, new MasterKeyring(generateMasterKey()));
const META = { walletType: null, signatureType: null, eoaAddress: null, funderAddress: null, chainId: null };
await vault.save('cus_a', 'kalshi', 'exchange_credentials', { api_key_id: 'id', private_key: 'x'.repeat(1700) }, META);
async function time(name: string, f: () => unknown) {
  for (let i = 0; i < 100; i++) await f();
  const t = process.hrtime.bigint(); for (let i = 0; i < 1000; i++) await f();
  console.log(name, (Number(process.hrtime.bigint() - t) / 1000 / 1000).toFixed(1), 'µs');
}
await time('repo.get', () => repo.get('cus_a', 'kalshi', 'exchange_credentials'));
await time('repo.liveOfKinds', () => repo.liveOfKinds('cus_a', 'kalshi', ['managed_wallet', 'exchange_credentials']));
await time('sessionFor', () => vault.sessionFor('cus_a', 'kalshi'));
