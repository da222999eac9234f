// Where the server's master keyring comes from: the operator's key (OMNIBOOK_MASTER_KEY) or the key file under the
// data dir (created on first run), plus the earlier keys a rotation still needs. Messages never carry key text.
import { loadOrCreateKeyFile, MasterKeyError, MasterKeyring, parseMasterKey } from './master-key.js';

export interface KeyringSource {
  /** The operator's current key as text; absent, `keyFile` is read or created. */
  masterKey?: string | undefined;
  /** Earlier keys as text, to open records sealed before the last rotation. */
  previousMasterKeys: readonly string[];
  /** `<dataDir>/master.key`. */
  keyFile: string;
}

export function loadKeyring(source: KeyringSource): MasterKeyring {
  const current =
    source.masterKey !== undefined
      ? parseNamed(source.masterKey, 'OMNIBOOK_MASTER_KEY')
      : loadOrCreateKeyFile(source.keyFile);
  const previous = source.previousMasterKeys.map((text, i) =>
    parseNamed(text, `OMNIBOOK_MASTER_KEY_PREVIOUS entry ${i + 1}`),
  );
  return new MasterKeyring(current, previous);
}

function parseNamed(text: string, name: string) {
  try {
    return parseMasterKey(text);
  } catch (error) {
    throw new MasterKeyError(`${name}: ${(error as Error).message}`);
  }
}
