// Envelope encryption of one secret record: a fresh 256-bit data key per record encrypts the secret with
// AES-256-GCM, and the master key encrypts (wraps) the data key, also with AES-256-GCM. Rotating the master key
// then rewraps 32 bytes per record and never touches the secret itself.
//
// Where a record belongs (its purpose, customer and exchange) is bound as GCM associated data to both layers: a
// ciphertext copied into another customer's row, or presented as another exchange's credentials, fails its
// authentication tag instead of decrypting. Every failure is the same `VaultError` without detail, so an error
// can never carry key material or say which layer failed.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { MasterKey, MasterKeyring } from './master-key.js';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const DATA_KEY_BYTES = 32;

/** What a record is and whose it is; every part must match exactly when it is opened. */
export interface RecordBinding {
  /** e.g. `exchange_credentials`, `managed_wallet_key`. */
  purpose: string;
  customerId: string;
  /** The exchange the secret is for, or '' for a record that belongs to none. */
  exchange: string;
}

export class VaultError extends Error {
  constructor() {
    super('the sealed record cannot be opened with this binding and these keys');
    this.name = 'VaultError';
  }
}

/** `v1.<master key id>.<wrapped data key>.<sealed secret>`, each part base64url of iv ‖ ciphertext ‖ tag. */
export function seal(keyring: MasterKeyring, plaintext: Uint8Array, binding: RecordBinding): string {
  const master = keyring.current;
  const dataKey = randomBytes(DATA_KEY_BYTES);
  try {
    return [
      VERSION,
      master.id,
      gcmSeal(master.key, dataKey, associatedData(binding, master.id)),
      gcmSeal(dataKey, plaintext, associatedData(binding, '')),
    ].join('.');
  } finally {
    dataKey.fill(0);
  }
}

export function open(keyring: MasterKeyring, sealed: string, binding: RecordBinding): Buffer {
  const parts = parse(sealed);
  const master = keyring.byId(parts.masterId);
  if (!master) throw new VaultError();
  const dataKey = gcmOpen(master.key, parts.wrappedKey, associatedData(binding, master.id));
  try {
    if (dataKey.length !== DATA_KEY_BYTES) throw new VaultError();
    return gcmOpen(dataKey, parts.secret, associatedData(binding, ''));
  } finally {
    dataKey.fill(0);
  }
}

/** The master key id a sealed record was wrapped under (to find the records a rotation has left). */
export function masterKeyIdOf(sealed: string): string {
  return parse(sealed).masterId;
}

/**
 * The same record under the keyring's current master key: only the data key is unwrapped and wrapped again; the
 * sealed secret is carried over as it is. The binding is checked on the way (a record that does not open is not
 * rewrapped).
 */
export function rewrap(keyring: MasterKeyring, sealed: string, binding: RecordBinding): string {
  const parts = parse(sealed);
  const from = keyring.byId(parts.masterId);
  if (!from) throw new VaultError();
  const to: MasterKey = keyring.current;
  const dataKey = gcmOpen(from.key, parts.wrappedKey, associatedData(binding, from.id));
  try {
    if (dataKey.length !== DATA_KEY_BYTES) throw new VaultError();
    // Proves the binding owns the secret too, so rotation never launders a record into another binding.
    gcmOpen(dataKey, parts.secret, associatedData(binding, '')).fill(0);
    const wrapped = gcmSeal(to.key, dataKey, associatedData(binding, to.id));
    return [VERSION, to.id, wrapped, parts.secret.toString('base64url')].join('.');
  } finally {
    dataKey.fill(0);
  }
}

/** The wrapped data key is bound to its master key id as well; the secret's layer to the binding alone. */
function associatedData(binding: RecordBinding, masterId: string): Buffer {
  // Length-prefixed parts: no choice of strings can make two different bindings encode alike.
  const parts = [VERSION, masterId, binding.purpose, binding.customerId, binding.exchange].map((p) =>
    Buffer.from(p, 'utf8'),
  );
  const out: Buffer[] = [];
  for (const part of parts) {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(part.length);
    out.push(length, part);
  }
  return Buffer.concat(out);
}

function gcmSeal(key: Uint8Array, plaintext: Uint8Array, aad: Buffer): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad);
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
}

function gcmOpen(key: Uint8Array, sealed: Buffer, aad: Buffer): Buffer {
  if (sealed.length < IV_BYTES + TAG_BYTES) throw new VaultError();
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(aad);
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    return Buffer.concat([
      decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)),
      decipher.final(),
    ]);
  } catch {
    throw new VaultError();
  }
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

function parse(sealed: string): { masterId: string; wrappedKey: Buffer; secret: Buffer } {
  const parts = sealed.split('.');
  if (parts.length !== 4 || parts[0] !== VERSION) throw new VaultError();
  const [, masterId, wrappedKey, secret] = parts as [string, string, string, string];
  if (!BASE64URL.test(masterId) || !BASE64URL.test(wrappedKey) || !BASE64URL.test(secret))
    throw new VaultError();
  return {
    masterId,
    wrappedKey: Buffer.from(wrappedKey, 'base64url'),
    secret: Buffer.from(secret, 'base64url'),
  };
}
