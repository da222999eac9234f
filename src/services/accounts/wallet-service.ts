// GET /wallet and POST /wallet/export-key: the customer's managed wallets as spec §2 "wallet state", and the one
// way a managed key leaves the vault — to its owner, logged as an audit event that never carries the key.
import type { ExchangeId } from '../../domain/exchanges.js';
import { AppError } from '../../errors/app-error.js';
import type { CredentialRecordInfo, CredentialsStore } from '../../vault/credentials-store.js';
import type { ExportedKey, ExportKeyBody, WalletInfo, WalletState, WalletType } from './accounts-schema.js';
import type { AccountCaller } from './onboarding-service.js';
import { POLYGON_CHAIN_ID } from './polymarket-wallet.js';

export class WalletService {
  constructor(private readonly store: CredentialsStore) {}

  async state(customerId: string): Promise<WalletState> {
    const records = await this.store.list(customerId);
    const wallets = records.filter((r) => r.kind === 'managed_wallet').flatMap(walletsOf);
    const linked = [...new Set(records.map((r) => r.exchange))].sort();
    return {
      wallet: wallets.find((w) => w.wallet_type === 'eoa') ?? null,
      wallets,
      // Session signers (delegated, expiring signing keys) are not offered by this server.
      session_signer: null,
      linked_exchanges: linked.map((exchange) => ({
        exchange: exchange as ExchangeId,
        has_credentials: true,
      })),
    };
  }

  async exportKey(caller: AccountCaller, body: ExportKeyBody): Promise<ExportedKey> {
    const records = await this.store.list(caller.customerId);
    const managed = records.find((r) => r.kind === 'managed_wallet');
    if (!managed) {
      throw new AppError(
        'not_found',
        'this account has no managed wallet (POST /onboard with mode managed creates one)',
      );
    }
    if (body.wallet_type === 'safe' && managed.wallet_type !== 'safe') {
      throw new AppError(
        'validation_error',
        `this managed wallet has no Safe: it is a ${managed.wallet_type ?? 'eoa'} wallet controlled by its EOA key`,
        { validationErrors: ['body.wallet_type: export wallet_type eoa, the key that controls this wallet'] },
      );
    }
    const exchange = managed.exchange as ExchangeId;
    const credentials = await this.store.credentials(caller.customerId, exchange, 'managed_wallet');
    const privateKey = credentials?.private_key;
    if (!privateKey) throw new AppError('internal_error', 'the managed wallet record holds no key');
    caller.logger.info(
      {
        audit: 'wallet_export_key',
        customer_id: caller.customerId,
        exchange,
        wallet_type: body.wallet_type,
        eoa_address: managed.eoa_address,
      },
      'managed wallet key exported',
    );
    return { private_key: privateKey };
  }
}

function walletsOf(record: CredentialRecordInfo): WalletInfo[] {
  const eoa = record.eoa_address;
  if (!eoa) return [];
  const base = {
    eoa_address: eoa,
    custodian_wallet_id: `vault:${record.exchange}:${eoa.toLowerCase()}`,
    chain_id: record.chain_id ?? POLYGON_CHAIN_ID,
    created_at: record.created_at,
  };
  const out: WalletInfo[] = [{ ...base, address: eoa, wallet_type: 'eoa' }];
  if (record.funder_address && record.wallet_type && record.wallet_type !== 'eoa') {
    out.push({ ...base, address: record.funder_address, wallet_type: record.wallet_type as WalletType });
  }
  return out;
}
