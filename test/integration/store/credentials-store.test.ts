// The credentials table on both dialects, through the vault (on SQLite reading through the read-only connection, as
// the server does): a record opens only in its own row (a sealed text copied to another customer's row, another
// exchange or another kind fails), a managed wallet's record wins over a stored one, the database holds no secret in
// the clear, and a rotation rewraps every record under the new master key, one compare-and-set at a time.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { sql } from 'kysely';
import { CredentialsRepo } from '../../../src/store/credentials-repo.js';
import { CredentialsStore } from '../../../src/vault/credentials-store.js';
import { generateMasterKey, MasterKeyring } from '../../../src/vault/master-key.js';
import { rotateRecords } from '../../../src/vault/rotation.js';
import { onBothDialects } from './dialects.js';

const META = { walletType: null, signatureType: null, eoaAddress: null, funderAddress: null, chainId: null };
const SECRET_A = 'pem-of-customer-a-4f1c9e2b7d';
const SECRET_B = 'pem-of-customer-b-8a3d6c1e5f';

onBothDialects('credentials store', (store) => {
  const oldKey = generateMasterKey();
  const newKey = generateMasterKey();
  let repo: CredentialsRepo;
  let vault: CredentialsStore;

  before(async () => {
    repo = new CredentialsRepo(store().db, store().sqliteReader);
    vault = new CredentialsStore(repo, new MasterKeyring(oldKey));
    await vault.save(
      'cus_a',
      'kalshi',
      'exchange_credentials',
      { api_key_id: 'id-a', private_key: SECRET_A },
      META,
    );
    await vault.save(
      'cus_b',
      'kalshi',
      'exchange_credentials',
      { api_key_id: 'id-b', private_key: SECRET_B },
      META,
    );
  });

  test('each customer opens its own record as a stored session', async () => {
    const a = await vault.sessionFor('cus_a', 'kalshi');
    assert.deepEqual(a, {
      exchange: 'kalshi',
      credentials: { api_key_id: 'id-a', private_key: SECRET_A },
      source: 'stored',
    });
    assert.equal((await vault.sessionFor('cus_b', 'kalshi'))?.credentials.private_key, SECRET_B);
    assert.equal(await vault.sessionFor('cus_c', 'kalshi'), null);
    assert.equal(await vault.sessionFor('cus_a', 'polymarket'), null);
  });

  test("a managed wallet's record wins over a stored one; a deactivated record is passed over", async () => {
    await vault.save('cus_m', 'polymarket', 'exchange_credentials', { private_key: 'self-key' }, META);
    assert.equal((await vault.sessionFor('cus_m', 'polymarket'))?.source, 'stored');
    await vault.save('cus_m', 'polymarket', 'managed_wallet', { private_key: 'managed-key' }, META);
    assert.deepEqual(await vault.sessionFor('cus_m', 'polymarket'), {
      exchange: 'polymarket',
      credentials: { private_key: 'managed-key' },
      source: 'managed',
    });
    await store()
      .db.updateTable('credentials')
      .set({ deactivated_at: new Date(0).toISOString() })
      .where('customer_id', '=', 'cus_m')
      .where('kind', '=', 'managed_wallet')
      .execute();
    assert.deepEqual((await vault.sessionFor('cus_m', 'polymarket'))?.credentials, {
      private_key: 'self-key',
    });
  });

  test('the table holds no secret in the clear', async () => {
    const rows = await sql<Record<string, unknown>>`select * from credentials`.execute(store().db);
    const text = JSON.stringify(rows.rows);
    assert.ok(!text.includes(SECRET_A) && !text.includes(SECRET_B));
    assert.ok(!text.includes('id-a'), 'the key id is inside the sealed text too');
  });

  test("a sealed text copied into another customer's row does not open there", async () => {
    const a = await repo.get('cus_a', 'kalshi', 'exchange_credentials');
    assert.ok(a);
    await store()
      .db.updateTable('credentials')
      .set({ sealed: a.sealed })
      .where('customer_id', '=', 'cus_b')
      .execute();
    await assert.rejects(vault.sessionFor('cus_b', 'kalshi'), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'internal_error');
      assert.ok(!e.message.includes(SECRET_A));
      return true;
    });
    // Moved to another exchange or kind of the same customer, it does not open either.
    await store()
      .db.insertInto('credentials')
      .values({ ...a, exchange: 'polymarket' })
      .execute();
    await assert.rejects(vault.sessionFor('cus_a', 'polymarket'));
    await store()
      .db.insertInto('credentials')
      .values({ ...a, kind: 'managed_wallet', mode: 'managed' })
      .execute();
    await assert.rejects(vault.credentials('cus_a', 'kalshi', 'managed_wallet'));
    // Put back as it was for the rotation test.
    await store().db.deleteFrom('credentials').where('kind', '=', 'managed_wallet').execute();
    await store().db.deleteFrom('credentials').where('exchange', '=', 'polymarket').execute();
    await vault.save(
      'cus_b',
      'kalshi',
      'exchange_credentials',
      { api_key_id: 'id-b', private_key: SECRET_B },
      META,
    );
  });

  test('rotation rewraps every record under the new key; both keys open records meanwhile', async () => {
    for (let i = 0; i < 130; i++) {
      await vault.save(
        `cus_${String(i).padStart(3, '0')}`,
        'polymarket',
        'managed_wallet',
        { private_key: `k${i}` },
        META,
      );
    }
    // The server during a rotation: seals under the new key, opens under both.
    const both = new MasterKeyring(newKey, [oldKey]);
    const during = new CredentialsStore(repo, both);
    await during.save(
      'cus_new',
      'kalshi',
      'exchange_credentials',
      { api_key_id: 'n', private_key: 'p' },
      META,
    );
    const counts = await repo.countByMasterKey();
    assert.deepEqual(
      counts.map((c) => c.records).sort((x, y) => x - y),
      [1, 132],
    );

    const result = await rotateRecords(repo, both);
    assert.equal(result.rewrapped, 132);
    assert.deepEqual(result.unopenable, []);
    assert.deepEqual(await repo.countByMasterKey(), [{ master_key_id: newKey.id, records: 133 }]);

    // The new key alone now opens everything; the old key alone opens nothing.
    const after = new CredentialsStore(repo, new MasterKeyring(newKey));
    assert.equal((await after.sessionFor('cus_a', 'kalshi'))?.credentials.private_key, SECRET_A);
    assert.equal((await after.credentials('cus_129', 'polymarket', 'managed_wallet'))?.private_key, 'k129');
    await assert.rejects(new CredentialsStore(repo, new MasterKeyring(oldKey)).sessionFor('cus_a', 'kalshi'));
    // A second run finds nothing left.
    assert.equal((await rotateRecords(repo, both)).rewrapped, 0);
  });

  test('a record a server rewrote between read and write is not overwritten by the rotation', async () => {
    const row = await repo.get('cus_a', 'kalshi', 'exchange_credentials');
    assert.ok(row);
    assert.equal(await repo.replaceSealed(row, 'not-what-is-stored', 'x', 'y'), false);
    assert.equal((await repo.get('cus_a', 'kalshi', 'exchange_credentials'))?.sealed, row.sealed);
  });

  test('a record no configured key opens is reported, not rewrapped, and the rest still rotate', async () => {
    const third = generateMasterKey();
    const stranger = new CredentialsStore(repo, new MasterKeyring(generateMasterKey()));
    await stranger.save(
      'cus_lost',
      'kalshi',
      'exchange_credentials',
      { api_key_id: 'l', private_key: 'l' },
      META,
    );
    const result = await rotateRecords(repo, new MasterKeyring(third, [newKey]));
    assert.equal(result.rewrapped, 133);
    assert.deepEqual(result.unopenable, [
      { customer_id: 'cus_lost', exchange: 'kalshi', kind: 'exchange_credentials' },
    ]);
  });
});
