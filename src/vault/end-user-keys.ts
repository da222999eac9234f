// A builder end-user's API key, sealed for its builder. The API stores keys as hashes only, but a builder reads its
// end-user's key back in every BuilderUser (spec §2), so the clear key is kept as a vault envelope bound to the
// end-user (purpose `builder_user_key`): a sealed key copied to another end-user's row does not open.
import { AppError } from '../errors/app-error.js';
import { open, type RecordBinding, seal, VaultError } from './envelope.js';
import type { MasterKeyring } from './master-key.js';

const PURPOSE = 'builder_user_key';

export class EndUserKeys {
  constructor(private readonly keyring: MasterKeyring) {}

  seal(customerId: string, key: string): string {
    return seal(this.keyring, Buffer.from(key, 'utf8'), bindingOf(customerId));
  }

  open(customerId: string, sealed: string): string {
    try {
      return open(this.keyring, sealed, bindingOf(customerId)).toString('utf8');
    } catch (error) {
      if (!(error instanceof VaultError)) throw error;
      throw new AppError(
        'internal_error',
        "an end-user's API key cannot be opened with this server's master keys",
      );
    }
  }
}

/** What an end-user's sealed key is bound to (rotation rewraps it under the same binding). */
export function bindingOf(customerId: string): RecordBinding {
  return { purpose: PURPOSE, customerId, exchange: '' };
}
