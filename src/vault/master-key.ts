// The master key that wraps every record's data key: given by the operator (OMNIBOOK_MASTER_KEY, 32 bytes as hex
// or base64), or generated on first run into a key file only its owner may read. A keyring holds the current key
// and any earlier ones still needed to open records a rotation has not reached yet.
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export const MASTER_KEY_BYTES = 32;

export interface MasterKey {
  /** Names the key inside sealed records; derived from the key, so it says nothing about it. */
  readonly id: string;
  readonly key: Buffer;
}

export class MasterKeyError extends Error {
  override name = 'MasterKeyError';
}

export function masterKey(key: Buffer): MasterKey {
  if (key.length !== MASTER_KEY_BYTES) throw new MasterKeyError(`a master key is ${MASTER_KEY_BYTES} bytes`);
  const id = createHash('sha256').update('omnibook master key id\0').update(key).digest().subarray(0, 9);
  return Object.freeze({ id: id.toString('base64url'), key: Buffer.from(key) });
}

/** 64 hex digits, or base64 / base64url of 32 bytes. The message never repeats the text it was given. */
export function parseMasterKey(text: string): MasterKey {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return masterKey(Buffer.from(trimmed, 'hex'));
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) {
    const bytes = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (bytes.length === MASTER_KEY_BYTES) return masterKey(bytes);
  }
  throw new MasterKeyError(
    `a master key must be ${MASTER_KEY_BYTES} bytes written as 64 hex digits or base64 (e.g. \`openssl rand -hex 32\`)`,
  );
}

export function generateMasterKey(): MasterKey {
  return masterKey(randomBytes(MASTER_KEY_BYTES));
}

/**
 * Reads the key file, creating it with a new key (mode 0600) when it does not exist. Creation is atomic: the key is
 * written to a private temporary file and linked into place, so two processes starting at once end up with the same
 * key and neither ever reads a half-written file. A key file that anyone but its owner may read is refused.
 */
export function loadOrCreateKeyFile(path: string): MasterKey {
  try {
    return readKeyFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const created = generateMasterKey();
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temporary, `${created.key.toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
  try {
    // The mode given to open() is narrowed by the umask, never widened: set it explicitly.
    chmodSync(temporary, 0o600);
    linkSync(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(temporary);
  }
  return readKeyFile(path);
}

function readKeyFile(path: string): MasterKey {
  const mode = statSync(path).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    throw new MasterKeyError(
      `${path} is readable by others (mode ${mode.toString(8)}); run \`chmod 600 ${path}\` and start again`,
    );
  }
  return parseMasterKey(readFileSync(path, 'utf8'));
}

export class MasterKeyring {
  private readonly keys = new Map<string, MasterKey>();

  /** `current` seals new records; `previous` keys only open records sealed before a rotation. */
  constructor(
    readonly current: MasterKey,
    previous: readonly MasterKey[] = [],
  ) {
    for (const key of [current, ...previous]) this.keys.set(key.id, key);
  }

  byId(id: string): MasterKey | undefined {
    return this.keys.get(id);
  }
}
