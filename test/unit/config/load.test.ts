import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../../src/config/load.js';

test('defaults: port 8080, host 127.0.0.1, ./data, no database or redis url', () => {
  const c = loadConfig({ env: {} });
  assert.equal(c.port, 8080);
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.dataDir, './data');
  assert.equal(c.databaseUrl, undefined);
  assert.equal(c.redisUrl, undefined);
});

test('layers: file < environment < explicit overrides', () => {
  const dir = mkdtempSync(join(tmpdir(), 'omnibook-config-'));
  const file = join(dir, 'c.json');
  writeFileSync(file, JSON.stringify({ port: 1111, host: '0.0.0.0', auth: { keyCacheTtlMs: 5 } }));
  const c = loadConfig({
    env: {
      PORT: '2222',
      DATABASE_URL: 'postgres://x/y',
      REDIS_URL: 'redis://r',
      OMNIBOOK_ADMIN_KEY: 'a'.repeat(20),
    },
    file,
    overrides: { port: 3333 },
  });
  assert.equal(c.port, 3333);
  assert.equal(c.host, '0.0.0.0');
  assert.equal(c.auth.keyCacheTtlMs, 5);
  assert.equal(c.http.bodyLimitBytes, 1_048_576, 'nested defaults survive a partial nested layer');
  assert.equal(c.databaseUrl, 'postgres://x/y');
  assert.equal(c.redisUrl, 'redis://r');
});

test('invalid values fail at start with every problem listed', () => {
  assert.throws(() => loadConfig({ env: { PORT: 'eighty' } }), ConfigError);
  assert.throws(
    () =>
      loadConfig({ env: { LOG_LEVEL: 'loud', OMNIBOOK_ADMIN_KEY: 'short' }, overrides: { port: 70_000 } }),
    (e: ConfigError) => e.problems.length >= 3,
  );
});

test('OPINION_API_KEY sets venues.opinion.apiKey, beside the defaults of that venue; absent, no key', () => {
  const c = loadConfig({ env: { OPINION_API_KEY: 'op-key-for-tests' } });
  assert.equal(c.venues.opinion.apiKey, 'op-key-for-tests');
  assert.equal(c.venues.opinion.restUrl, 'https://openapi.opinion.trade/openapi');
  assert.equal(c.venues.opinion.pollIntervalMs, 2_000);
  assert.equal(loadConfig({ env: {} }).venues.opinion.apiKey, undefined);
});

test('PREDICTFUN_API_KEY sets the operator Predict.fun key; absent, the key stays unset', () => {
  const withKey = loadConfig({ env: { PREDICTFUN_API_KEY: 'pf-operator-key' } });
  assert.equal(withKey.venues.predictfun.apiKey, 'pf-operator-key');
  assert.equal(
    withKey.venues.predictfun.restUrl,
    'https://api.predict.fun',
    'the other settings keep defaults',
  );
  assert.equal(loadConfig({ env: {} }).venues.predictfun.apiKey, undefined);
});

test('catalogue sync is on by default; OMNIBOOK_CATALOGUE_SYNC=0 or false turns it off', () => {
  const defaults = loadConfig({ env: {} }).catalogue;
  assert.deepEqual(defaults, { sync: true, refreshIntervalMs: 60_000, leaseTtlMs: 30_000 });
  for (const off of ['0', 'false']) {
    assert.equal(loadConfig({ env: { OMNIBOOK_CATALOGUE_SYNC: off } }).catalogue.sync, false, off);
  }
  assert.equal(loadConfig({ env: { OMNIBOOK_CATALOGUE_SYNC: '1' } }).catalogue.sync, true);
  assert.equal(loadConfig({ env: { OMNIBOOK_CATALOGUE_SYNC: '0' } }).catalogue.refreshIntervalMs, 60_000);
});

test('a config file with __proto__ or constructor keys sets nothing through them and pollutes no prototype', () => {
  const dir = mkdtempSync(join(tmpdir(), 'omnibook-config-'));
  const file = join(dir, 'proto.json');
  // Written as text: JSON.parse makes `__proto__` an own key, as it would from a real file.
  writeFileSync(
    file,
    `{
      "port": 4444,
      "__proto__": { "adminKey": "polluted-admin-key-000000", "redisUrl": "redis://polluted" },
      "constructor": { "prototype": { "polluted": true } },
      "venues": { "opinion": { "__proto__": { "apiKey": "polluted" } } },
      "auth": { "__proto__": { "keyCacheTtlMs": 7 } }
    }`,
  );
  const c = loadConfig({ env: {}, file });
  assert.equal(c.port, 4444, 'the rest of the file still applies');
  assert.equal(c.adminKey, undefined);
  assert.equal(c.redisUrl, undefined);
  assert.equal(c.venues.opinion.apiKey, undefined);
  assert.equal(c.venues.opinion.restUrl, 'https://openapi.opinion.trade/openapi');
  assert.equal(c.auth.keyCacheTtlMs, 1_000);
  assert.equal(Object.getPrototypeOf(c), Object.prototype);
  assert.equal(Object.getPrototypeOf(c.venues.opinion), Object.prototype);
  assert.equal(Object.getPrototypeOf(c.auth), Object.prototype);
  const probe: Record<string, unknown> = {};
  assert.equal(probe.polluted, undefined);
  assert.equal(probe.adminKey, undefined);
  assert.equal(Object.prototype.constructor, Object);
});

test('the recorder is on with the top 5 of each exchange by default; its variables set each field', () => {
  const defaults = loadConfig({ env: {} }).recorder;
  assert.deepEqual(defaults, {
    enabled: true,
    books: [],
    topN: 5,
    refreshIntervalMs: 300_000,
    intervalMs: 1_000,
    retentionDays: 30,
  });
  const set = loadConfig({
    env: {
      OMNIBOOK_RECORDER: '0',
      OMNIBOOK_RECORDER_BOOKS: 'kalshi:KXA, polymarket:0xabc:No ,',
      OMNIBOOK_RECORDER_TOP_N: '0',
      OMNIBOOK_RECORDER_INTERVAL_MS: '250',
      OMNIBOOK_RECORDER_RETENTION_DAYS: '7',
    },
  }).recorder;
  assert.deepEqual(set, {
    enabled: false,
    books: ['kalshi:KXA', 'polymarket:0xabc:No'],
    topN: 0,
    refreshIntervalMs: 300_000,
    intervalMs: 250,
    retentionDays: 7,
  });
  assert.equal(loadConfig({ env: { OMNIBOOK_RECORDER: 'true' } }).recorder.enabled, true);
  assert.throws(() => loadConfig({ env: { OMNIBOOK_RECORDER_TOP_N: 'many' } }), ConfigError);
  assert.throws(() => loadConfig({ env: { OMNIBOOK_RECORDER_INTERVAL_MS: '1' } }), ConfigError);
});

test('the master key comes from OMNIBOOK_MASTER_KEY, earlier keys from OMNIBOOK_MASTER_KEY_PREVIOUS', () => {
  const none = loadConfig({ env: {} });
  assert.equal(none.vault.masterKey, undefined, 'absent: the key file under the data dir is used');
  assert.deepEqual(none.vault.previousMasterKeys, []);
  const c = loadConfig({
    env: { OMNIBOOK_MASTER_KEY: 'k'.repeat(64), OMNIBOOK_MASTER_KEY_PREVIOUS: ' a , ,b ' },
  });
  assert.equal(c.vault.masterKey, 'k'.repeat(64));
  assert.deepEqual(c.vault.previousMasterKeys, ['a', 'b']);
});

test('builder.escrow from the file takes its operator key from OMNIBOOK_FEE_ESCROW_OPERATOR_KEY', () => {
  const dir = mkdtempSync(join(tmpdir(), 'omnibook-config-'));
  const file = join(dir, 'c.json');
  const address = `0x${'12'.repeat(20)}`;
  writeFileSync(file, JSON.stringify({ builder: { escrow: { address, chainId: 137 } } }));
  const key = `0x${'ab'.repeat(32)}`;
  const c = loadConfig({ env: { OMNIBOOK_FEE_ESCROW_OPERATOR_KEY: key }, file });
  assert.deepEqual(c.builder.escrow, { address, chainId: 137, operatorKey: key });
  assert.equal(c.builder.qpsPool, 500, 'the rest of builder keeps its defaults');
  assert.equal(loadConfig({ env: {}, file }).builder.escrow?.operatorKey, undefined);
  assert.throws(
    () => loadConfig({ env: { OMNIBOOK_FEE_ESCROW_OPERATOR_KEY: '0x12' }, file }),
    (e: unknown) => e instanceof ConfigError && /operatorKey/.test(e.message),
  );
});
