// Re-encrypts every stored record under the keyring's current master key while servers keep serving: one record
// per transaction, each a compare-and-set on its sealed text, so a record a server rewrote meanwhile is read again
// instead of overwritten. Servers read both keys throughout (their keyring holds the old one as previous), so a
// request meets either form and opens it.
import type { BuilderRepo } from '../store/builder-repo.js';
import type { CredentialRow, CredentialsRepo, RecordKey } from '../store/credentials-repo.js';
import { bindingOf } from './credentials-store.js';
import { bindingOf as endUserKeyBinding } from './end-user-keys.js';
import { masterKeyIdOf, rewrap, VaultError } from './envelope.js';
import type { MasterKeyring } from './master-key.js';

export interface RotationResult {
  /** Records now wrapped under the current key by this run. */
  rewrapped: number;
  /** Records that do not open with any configured key (a missing previous key, or an altered row). */
  unopenable: RecordKey[];
}

const PAGE = 100;
/** A record rewritten by a server between our read and write is read again this many times. */
const CONTENDED_RETRIES = 5;

export async function rotateRecords(
  repo: CredentialsRepo,
  keyring: MasterKeyring,
  onRecord?: (key: RecordKey) => void,
): Promise<RotationResult> {
  const current = keyring.current.id;
  const result: RotationResult = { rewrapped: 0, unopenable: [] };
  let after: RecordKey | null = null;
  for (;;) {
    const page = await repo.notUnder(current, after, PAGE);
    for (const row of page) {
      const outcome = await rotateOne(repo, keyring, row);
      if (outcome === 'rewrapped') {
        result.rewrapped += 1;
        onRecord?.(row);
      } else if (outcome === 'unopenable') {
        result.unopenable.push({ customer_id: row.customer_id, exchange: row.exchange, kind: row.kind });
      }
    }
    const last = page.at(-1);
    if (!last || page.length < PAGE) return result;
    after = last;
  }
}

async function rotateOne(
  repo: CredentialsRepo,
  keyring: MasterKeyring,
  first: CredentialRow,
): Promise<'rewrapped' | 'current' | 'unopenable'> {
  let row: CredentialRow | undefined = first;
  for (let attempt = 0; attempt <= CONTENDED_RETRIES && row; attempt++) {
    if (masterKeyIdOf(row.sealed) === keyring.current.id) return 'current';
    let sealed: string;
    try {
      sealed = rewrap(keyring, row.sealed, bindingOf(row));
    } catch (error) {
      if (error instanceof VaultError) return 'unopenable';
      throw error;
    }
    if (await repo.replaceSealed(row, row.sealed, sealed, keyring.current.id)) return 'rewrapped';
    row = await repo.get(row.customer_id, row.exchange, row.kind);
  }
  // Deleted meanwhile, or rewritten by servers on every attempt (each rewrite seals under the current key).
  return 'current';
}

export interface EndUserKeysRotation {
  /** Builder end-users' sealed API keys now wrapped under the current key by this run. */
  rewrapped: number;
  /** End-users (customer ids) whose sealed key opens with no configured key. */
  unopenable: string[];
}

/**
 * The same rotation for the builder end-users' API keys, which the vault seals in builder_users (end-user-keys.ts)
 * rather than in credentials: each row whose envelope names another master key is rewrapped with a compare-and-set,
 * so a key a server resealed meanwhile is left as it is (servers seal under the current key).
 */
export async function rotateEndUserKeys(
  repo: BuilderRepo,
  keyring: MasterKeyring,
): Promise<EndUserKeysRotation> {
  const current = keyring.current.id;
  const result: EndUserKeysRotation = { rewrapped: 0, unopenable: [] };
  let after: string | null = null;
  for (;;) {
    const page = await repo.sealedKeys(after, PAGE);
    for (const row of page) {
      let sealed: string;
      try {
        // A malformed envelope is reported like one no key opens, and the rotation goes on.
        if (masterKeyIdOf(row.sealed_key) === current) continue;
        sealed = rewrap(keyring, row.sealed_key, endUserKeyBinding(row.customer_id));
      } catch (error) {
        if (!(error instanceof VaultError)) throw error;
        result.unopenable.push(row.customer_id);
        continue;
      }
      if (await repo.replaceSealedKey(row.customer_id, row.sealed_key, sealed)) result.rewrapped += 1;
    }
    const last = page.at(-1);
    if (!last || page.length < PAGE) return result;
    after = last.customer_id;
  }
}
