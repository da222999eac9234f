// The customer's stored (self) and managed credentials: sealed on the way in, opened only to build the session of
// one call. Every record is bound to its kind, customer and exchange (envelope associated data), so a sealed text
// moved to another row does not open. This is the StoredSessions half of SessionResolver.
import type { ExchangeId } from '../domain/exchanges.js';
import { AppError } from '../errors/app-error.js';
import type { CredentialRow, CredentialsRepo } from '../store/credentials-repo.js';
import type { CredentialKind } from '../store/schema.js';
import type { VenueSession } from '../venues/port.js';
import { masterKeyIdOf, open, type RecordBinding, seal, VaultError } from './envelope.js';
import type { MasterKeyring } from './master-key.js';
import type { StoredSessions } from './session-resolver.js';

/** What a record says about its wallet, in the clear (GET /wallet, onboarding answers). */
export interface CredentialMeta {
  walletType: string | null;
  signatureType: number | null;
  eoaAddress: string | null;
  funderAddress: string | null;
  chainId: number | null;
}

export type CredentialRecordInfo = Omit<CredentialRow, 'sealed' | 'master_key_id' | 'deactivated_at'>;

const MODE_OF = new Map<CredentialKind, 'self' | 'managed'>([
  ['exchange_credentials', 'self'],
  ['managed_wallet', 'managed'],
]);

/** The kinds a session is built from (a managed wallet's wins). */
const SESSION_KINDS: readonly CredentialKind[] = ['managed_wallet', 'exchange_credentials'];

export function bindingOf(row: Pick<CredentialRow, 'customer_id' | 'exchange' | 'kind'>): RecordBinding {
  return { purpose: row.kind, customerId: row.customer_id, exchange: row.exchange };
}

export class CredentialsStore implements StoredSessions {
  constructor(
    private readonly repo: CredentialsRepo,
    private readonly keyring: MasterKeyring,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Seals `credentials` (the venue session's fields, exactly what the adapter will receive) into the customer's
   * record of that kind, replacing an earlier one.
   */
  async save(
    customerId: string,
    exchange: ExchangeId,
    kind: CredentialKind,
    credentials: Readonly<Record<string, string>>,
    meta: CredentialMeta,
  ): Promise<void> {
    await this.repo.upsert(this.row(customerId, exchange, kind, credentials, meta));
  }

  /**
   * Stores the record only when the customer has none of that kind for the exchange (two nodes creating a managed
   * wallet at once keep one); true when this call stored it.
   */
  async saveIfAbsent(
    customerId: string,
    exchange: ExchangeId,
    kind: CredentialKind,
    credentials: Readonly<Record<string, string>>,
    meta: CredentialMeta,
  ): Promise<boolean> {
    return this.repo.insertIfAbsent(this.row(customerId, exchange, kind, credentials, meta));
  }

  private row(
    customerId: string,
    exchange: ExchangeId,
    kind: CredentialKind,
    credentials: Readonly<Record<string, string>>,
    meta: CredentialMeta,
  ): CredentialRow {
    const binding: RecordBinding = { purpose: kind, customerId, exchange };
    const plaintext = Buffer.from(JSON.stringify(credentials), 'utf8');
    let sealed: string;
    try {
      sealed = seal(this.keyring, plaintext, binding);
    } finally {
      plaintext.fill(0);
    }
    const now = this.now().toISOString();
    return {
      customer_id: customerId,
      exchange,
      kind,
      mode: MODE_OF.get(kind) ?? 'self',
      sealed,
      master_key_id: masterKeyIdOf(sealed),
      wallet_type: meta.walletType,
      signature_type: meta.signatureType,
      eoa_address: meta.eoaAddress,
      funder_address: meta.funderAddress,
      chain_id: meta.chainId,
      created_at: now,
      updated_at: now,
      deactivated_at: null,
    };
  }

  /** The record's metadata without opening it, or null. */
  async info(
    customerId: string,
    exchange: ExchangeId,
    kind: CredentialKind,
  ): Promise<CredentialRecordInfo | null> {
    const row = await this.repo.get(customerId, exchange, kind);
    return row ? withoutSecret(row) : null;
  }

  /** Every record of the customer, metadata only. */
  async list(customerId: string): Promise<CredentialRecordInfo[]> {
    return (await this.repo.listFor(customerId)).map(withoutSecret);
  }

  /** The opened credentials of one record, or null when the customer has none of that kind for the exchange. */
  async credentials(
    customerId: string,
    exchange: ExchangeId,
    kind: CredentialKind,
  ): Promise<Readonly<Record<string, string>> | null> {
    const row = await this.repo.get(customerId, exchange, kind);
    return row ? this.openRow(row) : null;
  }

  /**
   * The session a private call uses: the managed wallet's when there is one, else the stored (self) record. Both
   * are read in one query: this runs before every private call of a customer without per-request credentials.
   */
  async sessionFor(customerId: string, exchange: ExchangeId): Promise<VenueSession | null> {
    const rows = await this.repo.liveOfKinds(customerId, exchange, SESSION_KINDS);
    const managed = rows.find((r) => r.kind === 'managed_wallet');
    const row = managed ?? rows.find((r) => r.kind === 'exchange_credentials');
    if (!row) return null;
    return Object.freeze({
      exchange,
      credentials: this.openRow(row),
      source: managed ? 'managed' : 'stored',
    });
  }

  private openRow(row: CredentialRow): Readonly<Record<string, string>> {
    let plaintext: Buffer;
    try {
      plaintext = open(this.keyring, row.sealed, bindingOf(row));
    } catch (error) {
      if (!(error instanceof VaultError)) throw error;
      // The master key it was sealed under is not configured, or the row was altered or moved: never a client
      // error, and never worth a detail that could help whoever altered it.
      throw new AppError(
        'internal_error',
        `the stored ${row.exchange} credentials cannot be opened with this server's master keys`,
      );
    }
    try {
      const parsed = JSON.parse(plaintext.toString('utf8')) as unknown;
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new VaultError();
      const entries = Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string');
      return Object.freeze(Object.fromEntries(entries));
    } finally {
      plaintext.fill(0);
    }
  }
}

function withoutSecret(row: CredentialRow): CredentialRecordInfo {
  const { sealed: _sealed, master_key_id: _id, deactivated_at: _d, ...info } = row;
  return info;
}
