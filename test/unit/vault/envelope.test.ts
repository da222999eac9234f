// Envelope encryption: a sealed secret opens only with its own binding (purpose, customer, exchange) and a
// keyring holding its master key; any change to any part of the record fails as one opaque VaultError;
// rotation rewraps under the new key and the old key is then no longer needed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  masterKeyIdOf,
  open,
  type RecordBinding,
  rewrap,
  seal,
  VaultError,
} from '../../../src/vault/envelope.js';
import { generateMasterKey, MasterKeyring } from '../../../src/vault/master-key.js';
import { assertProperty } from '../../support/property.js';

const binding: RecordBinding = { purpose: 'exchange_credentials', customerId: 'cus_a', exchange: 'kalshi' };
const secret = Buffer.from('{"api_key_id":"k","private_key":"-----BEGIN PRIVATE KEY-----..."}');

test('a sealed secret opens with its binding and master key, and never shows in the sealed text', () => {
  const keyring = new MasterKeyring(generateMasterKey());
  const sealed = seal(keyring, secret, binding);
  assert.deepEqual(open(keyring, sealed, binding), secret);
  assert.ok(!sealed.includes('private_key'));
  assert.ok(!sealed.includes(Buffer.from(secret).toString('base64url').slice(0, 12)));
  assert.notEqual(seal(keyring, secret, binding), sealed, 'a fresh data key and IV every time');
});

test('another customer, exchange or purpose does not open it (a ciphertext copied to another row)', () => {
  const keyring = new MasterKeyring(generateMasterKey());
  const sealed = seal(keyring, secret, binding);
  for (const other of [
    { ...binding, customerId: 'cus_b' },
    { ...binding, exchange: 'polymarket' },
    { ...binding, purpose: 'managed_wallet_key' },
    // Length-prefixed parts: shifting a character between customer and exchange is still another binding.
    { ...binding, customerId: 'cus_ak', exchange: 'alshi' },
  ]) {
    assert.throws(() => open(keyring, sealed, other), VaultError);
  }
});

test('another master key does not open it, and the error says nothing of keys or contents', () => {
  const sealed = seal(new MasterKeyring(generateMasterKey()), secret, binding);
  const stranger = new MasterKeyring(generateMasterKey());
  assert.throws(
    () => open(stranger, sealed, binding),
    (error: unknown) => error instanceof VaultError && !/[0-9a-f]{16}|private/i.test(String(error)),
  );
});

test('every changed byte of a sealed record is refused', async () => {
  const keyring = new MasterKeyring(generateMasterKey());
  const sealed = seal(keyring, secret, binding);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.';
  await assertProperty(
    fc.property(fc.nat({ max: sealed.length - 1 }), fc.constantFrom(...alphabet), (at, char) => {
      fc.pre(sealed[at] !== char);
      const changed = sealed.slice(0, at) + char + sealed.slice(at + 1);
      assert.throws(() => open(keyring, changed, binding), VaultError);
    }),
    {
      examples: [
        [0, 'w'],
        [sealed.length - 1, sealed.endsWith('A') ? 'B' : 'A'],
      ],
      numRuns: 300,
    },
  );
  for (const malformed of ['', 'v1', 'v2.a.b.c', 'v1.a.b', 'v1.a.b.c.d', 'v1.$.b.c', `${sealed}.`]) {
    assert.throws(() => open(keyring, malformed, binding), VaultError);
  }
});

test('rotation: rewrap moves a record to the new master key; then the old key is not needed', () => {
  const oldKey = generateMasterKey();
  const newKey = generateMasterKey();
  const sealed = seal(new MasterKeyring(oldKey), secret, binding);
  const during = new MasterKeyring(newKey, [oldKey]);
  assert.deepEqual(open(during, sealed, binding), secret, 'records not yet rewrapped still open');
  const rewrapped = rewrap(during, sealed, binding);
  assert.equal(masterKeyIdOf(sealed), oldKey.id);
  assert.equal(masterKeyIdOf(rewrapped), newKey.id);
  assert.equal(rewrapped.split('.')[3], sealed.split('.')[3], 'the sealed secret is carried over untouched');
  assert.deepEqual(open(new MasterKeyring(newKey), rewrapped, binding), secret);
  assert.throws(() => open(new MasterKeyring(oldKey), rewrapped, binding), VaultError);
  assert.throws(() => rewrap(during, sealed, { ...binding, customerId: 'cus_b' }), VaultError);
});

test('any secret of any length round-trips', async () => {
  const keyring = new MasterKeyring(generateMasterKey());
  await assertProperty(
    fc.property(fc.uint8Array({ maxLength: 4096 }), fc.string(), (bytes, customerId) => {
      const b = { ...binding, customerId };
      assert.deepEqual(open(keyring, seal(keyring, bytes, b), b), Buffer.from(bytes));
    }),
    { examples: [[new Uint8Array(), '']], numRuns: 100 },
  );
});
