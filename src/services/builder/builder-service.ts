// The builder program's use cases (spec §4 builder endpoints, wire contract §5): a builder key creates end-users,
// each with its own API key and qps_limit out of the builder's QPS pool, lists, reads and changes them, onboards them
// to exchanges and deactivates them. Every call on an end-user checks that it belongs to the calling builder: 403 for
// another builder's end-user (or any other customer), 404 for an id that exists nowhere.
import {
  FEE_ESCROW_DOMAIN_NAME,
  FEE_ESCROW_DOMAIN_VERSION,
} from '../../chain/fee-escrow/fee-escrow-contract.js';
import type { Config } from '../../config/schema.js';
import type { BuilderTierName } from '../../domain/builder-tiers.js';
import { isBuilderTierName } from '../../domain/builder-tiers.js';
import type { ExchangeId } from '../../domain/exchanges.js';
import { withoutAdmin } from '../../domain/tiers.js';
import { AppError } from '../../errors/app-error.js';
import type { ApiKeysRepo } from '../../store/api-keys-repo.js';
import type { BuilderRepo, BuilderRow, BuilderUserRow } from '../../store/builder-repo.js';
import type { ApiKeyService } from '../../tenancy/api-keys.js';
import type { Principal } from '../../tenancy/principal.js';
import type { CredentialsStore } from '../../vault/credentials-store.js';
import type { EndUserKeys } from '../../vault/end-user-keys.js';
import type { WalletType } from '../accounts/accounts-schema.js';
import type { AccountCaller, OnboardingService } from '../accounts/onboarding-service.js';
import type {
  BuilderOnboardBody,
  BuilderOnboardResult,
  BuilderPool,
  BuilderUser,
  BuilderUsersPage,
  CreateBuilderUserBody,
  EscrowConfig,
  ListBuilderUsersQuery,
} from './builder-schema.js';
import { USERS_LIMIT_DEFAULT } from './builder-schema.js';
import type { FeeEscrow } from './fee-escrow.js';

export interface BuilderServiceDeps {
  repo: BuilderRepo;
  apiKeys: ApiKeysRepo;
  keys: ApiKeyService;
  endUserKeys: EndUserKeys;
  credentials: CredentialsStore;
  onboarding: OnboardingService;
  config: Config['builder'];
  /** The deployed escrow, wired in; null while none is. */
  escrow: FeeEscrow | null;
  /** Called after an end-user's key or limits changed, so every node's caches forget what they held. */
  changed: () => void;
  now?: () => Date;
}

const CURSOR_VERSION = 1;

export class BuilderService {
  private readonly now: () => Date;

  constructor(private readonly deps: BuilderServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async create(
    caller: Principal,
    body: CreateBuilderUserBody,
  ): Promise<{ created: boolean; user: BuilderUser }> {
    const builder = await this.builderOf(caller);
    const customerId = `cus_${crypto.randomUUID().replaceAll('-', '')}`;
    const qps = body.qps_limit ?? this.deps.config.defaultUserQps;
    const { key, row: keyRow } = this.deps.keys.prepare({
      name: `end-user ${body.external_id}`.slice(0, 200),
      // The end-user trades under its builder's service tier (monthly quota, history window), at its own qps_limit,
      // and never above it; never admin either, which builder keys cannot hold anyway (tenancy/api-keys.ts).
      tier: withoutAdmin(caller.tier),
      qpsLimit: qps,
      customerId,
    });
    const createdAt = this.now().toISOString();
    const outcome = await this.deps.repo.create(
      {
        customer_id: customerId,
        builder_id: builder.customer_id,
        external_id: body.external_id,
        email: body.email ?? null,
        eoa_address: body.eoa_address ?? null,
        qps_limit: qps,
        key_id: keyRow.id,
        sealed_key: this.deps.endUserKeys.seal(customerId, key),
        status: 'active',
        created_at: createdAt,
        deactivated_at: null,
      },
      keyRow,
    );
    if (outcome.kind === 'over_pool') throw overPool(outcome.pool, qps);
    return { created: outcome.kind === 'created', user: await this.view(outcome.user, builder) };
  }

  async list(caller: Principal, query: ListBuilderUsersQuery): Promise<BuilderUsersPage> {
    const builder = await this.builderOf(caller);
    const limit = query.limit ?? USERS_LIMIT_DEFAULT;
    const after = query.cursor === undefined ? null : decodeCursor(query.cursor);
    const rows = await this.deps.repo.page(builder.customer_id, after, limit + 1);
    const page = rows.slice(0, limit);
    const users = await Promise.all(page.map((row) => this.view(row, builder)));
    const last = page.at(-1);
    const result: BuilderUsersPage = { users, count: users.length };
    if (rows.length > limit && last) result.next_cursor = encodeCursor(last);
    return result;
  }

  async get(caller: Principal, customerId: string): Promise<BuilderUser> {
    const builder = await this.builderOf(caller);
    return this.view(await this.owned(builder, customerId), builder);
  }

  async setQps(caller: Principal, customerId: string, qps: number): Promise<BuilderUser> {
    const builder = await this.builderOf(caller);
    const user = await this.owned(builder, customerId);
    const outcome = await this.deps.repo.setQps(user, qps);
    if (outcome.kind === 'inactive') throw deactivated(customerId);
    if (outcome.kind === 'over_pool') {
      throw overPool(
        { ...outcome.pool, total_allocated_qps: outcome.pool.total_allocated_qps - user.qps_limit },
        qps,
      );
    }
    this.deps.changed();
    return this.view(outcome.user, builder);
  }

  /** Deactivation is irreversible and idempotent: a second call finds the end-user deactivated and changes nothing. */
  async deactivate(caller: Principal, customerId: string): Promise<void> {
    const builder = await this.builderOf(caller);
    const user = await this.owned(builder, customerId);
    if (user.status !== 'active') return;
    await this.deps.repo.deactivate(user, this.now().toISOString());
    this.deps.changed();
  }

  async onboard(
    caller: Principal,
    request: AccountCaller,
    body: BuilderOnboardBody,
  ): Promise<BuilderOnboardResult> {
    const builder = await this.builderOf(caller);
    const { customer_id: customerId, ...onboardBody } = body;
    const user = await this.owned(builder, customerId);
    if (user.status !== 'active') throw deactivated(customerId);
    const result = await this.deps.onboarding.onboard({ ...request, customerId }, onboardBody);
    return { customer_id: customerId, ...result };
  }

  async pool(caller: Principal): Promise<BuilderPool> {
    const builder = await this.builderOf(caller);
    return this.deps.repo.pool(builder.customer_id);
  }

  async escrowConfig(caller: Principal): Promise<EscrowConfig> {
    const builder = await this.builderOf(caller);
    const tier = tierOf(builder);
    const { config, escrow } = this.deps;
    const shares = config.tiers[tier];
    // The deployed contract's own address, chain and treasury (the treasury is fixed in the contract).
    const result: EscrowConfig = {
      fee_escrow_enabled: escrow !== null,
      fee_bps: shares.feeBps,
      affiliate_address: config.affiliateAddress ?? null,
      escrow_contract_address: escrow?.address ?? null,
      chain_id: escrow?.chainId ?? null,
      min_fee_usdc: config.minFeeUsdc,
      min_fee_bps: config.minFeeBps,
      treasury_address: escrow?.treasury ?? config.treasuryAddress ?? null,
      affiliate_fee_bps: shares.affiliateFeeBps,
      tier,
      eip712_domain: escrow
        ? {
            name: FEE_ESCROW_DOMAIN_NAME,
            version: FEE_ESCROW_DOMAIN_VERSION,
            chainId: escrow.chainId,
            verifyingContract: escrow.address,
          }
        : null,
    };
    if (!result.fee_escrow_enabled) {
      result.note =
        'fee escrow is not deployed on this server: orders carrying fee_auth are refused (501) and no fee is collected';
    }
    return result;
  }

  /** The calling builder's revenue tier. */
  async tierOf(caller: Principal): Promise<BuilderTierName> {
    return tierOf(await this.builderOf(caller));
  }

  /** The calling builder's record (created with the configured pool and tier on first use); 403 for other keys. */
  async builderOf(caller: Principal): Promise<BuilderRow> {
    if (!caller.isBuilder) throw new AppError('forbidden', 'the builder routes need a builder key');
    return this.deps.repo.ensureBuilder({
      customer_id: caller.customerId,
      qps_pool: this.deps.config.qpsPool,
      tier: this.deps.config.tier,
      pool_version: 0,
      created_at: this.now().toISOString(),
    });
  }

  /** The end-user if it is this builder's: 403 when it is anyone else's, 404 when the id exists nowhere. */
  async owned(builder: Pick<BuilderRow, 'customer_id'>, customerId: string): Promise<BuilderUserRow> {
    const user = await this.deps.repo.user(customerId);
    if (user && user.builder_id === builder.customer_id) return user;
    if (user || (await this.deps.apiKeys.customerExists(customerId))) {
      throw new AppError('forbidden', `customer '${customerId}' is not an end-user of this builder`);
    }
    throw new AppError('not_found', `no customer with id '${customerId}'`);
  }

  private async view(row: BuilderUserRow, builder: BuilderRow): Promise<BuilderUser> {
    const tier = tierOf(builder);
    const records = row.status === 'active' ? await this.deps.credentials.list(row.customer_id) : [];
    const managed = records.find((r) => r.kind === 'managed_wallet' && r.eoa_address);
    let wallet: BuilderUser['wallet'] = null;
    if (managed?.eoa_address) {
      wallet = {
        eoa_address: managed.eoa_address,
        custodian_wallet_id: `vault:${managed.exchange}:${managed.eoa_address.toLowerCase()}`,
        wallet_type: (managed.wallet_type ?? 'eoa') as WalletType,
      };
    } else if (row.eoa_address) {
      wallet = { eoa_address: row.eoa_address, custodian_wallet_id: null, wallet_type: 'eoa' };
    }
    return {
      customer_id: row.customer_id,
      external_id: row.external_id,
      email: row.email,
      api_key: this.deps.endUserKeys.open(row.customer_id, row.sealed_key),
      tier,
      qps_limit: row.qps_limit,
      linked_exchanges: [...new Set(records.map((r) => r.exchange as ExchangeId))].sort(),
      wallet,
      fee_escrow_enabled: row.status === 'active' && this.deps.escrow !== null,
      status: row.status,
      created_at: row.created_at,
      fee_bps: this.deps.config.tiers[tier].feeBps,
      affiliate_address: this.deps.config.affiliateAddress ?? null,
    };
  }
}

function tierOf(builder: BuilderRow): BuilderTierName {
  return isBuilderTierName(builder.tier) ? builder.tier : 'iron';
}

function deactivated(customerId: string): AppError {
  return new AppError(
    'conflict',
    `end-user '${customerId}' is deactivated (irreversibly); create a new end-user to trade again`,
  );
}

function overPool(pool: { qps_pool: number; total_allocated_qps: number }, qps: number): AppError {
  return new AppError(
    'conflict',
    `qps_limit ${qps} does not fit in the builder's QPS pool: ${pool.total_allocated_qps} of ${pool.qps_pool} is allocated to other end-users`,
  );
}

function encodeCursor(row: BuilderUserRow): string {
  return Buffer.from(JSON.stringify([CURSOR_VERSION, row.created_at, row.customer_id])).toString('base64url');
}

function decodeCursor(cursor: string): { created_at: string; customer_id: string } {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (
      Array.isArray(parsed) &&
      parsed.length === 3 &&
      parsed[0] === CURSOR_VERSION &&
      typeof parsed[1] === 'string' &&
      typeof parsed[2] === 'string'
    ) {
      return { created_at: parsed[1], customer_id: parsed[2] };
    }
  } catch {
    // falls through to the 400 below
  }
  throw new AppError('validation_error', 'invalid cursor', {
    validationErrors: ['querystring.cursor is not a next_cursor of this list'],
  });
}
