// X-Builder-Customer-Id on the order endpoints (spec §5 builder impersonation): a builder key acts as one of its own
// active end-users. The answer (who the end-user is, its bucket and the builder's pool) is cached per end-user for
// the key cache's lifetime, so a warm request costs no database read; a deactivation or a qps change drops the cache
// on every node (BuilderService's `changed`).
import { AppError } from '../../errors/app-error.js';
import type { ApiKeysRepo } from '../../store/api-keys-repo.js';
import type { OnBehalf } from '../../tenancy/admission/admission.js';
import { toPrincipal } from '../../tenancy/api-keys.js';
import type { Principal } from '../../tenancy/principal.js';
import type { BuilderService } from './builder-service.js';

export interface ImpersonationTarget {
  /** The end-user the request acts as: its customer id is the request's tenant. */
  customerId: string;
  behalf: OnBehalf;
}

interface Entry {
  builderId: string;
  target: ImpersonationTarget | null;
  error: AppError | null;
  expiresAt: number;
}

const MAX_ENTRIES = 50_000;

export class Impersonation {
  private readonly cache = new Map<string, Entry>();

  constructor(
    private readonly builders: BuilderService,
    private readonly apiKeys: ApiKeysRepo,
    private readonly ttlMs: number,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The end-user `customerId` as `builder` may act for it; 403/404 otherwise. Synchronous on a warm cache. */
  resolve(builder: Principal, customerId: string): ImpersonationTarget | Promise<ImpersonationTarget> {
    if (!builder.isBuilder) {
      throw new AppError('forbidden', 'X-Builder-Customer-Id needs a builder key');
    }
    const hit = this.cache.get(customerId);
    if (hit && hit.expiresAt > this.clock() && hit.builderId === builder.customerId) {
      if (hit.error) throw hit.error;
      if (hit.target) return hit.target;
    }
    return this.load(builder, customerId);
  }

  forget(): void {
    this.cache.clear();
  }

  private async load(builder: Principal, customerId: string): Promise<ImpersonationTarget> {
    const row = await this.builders.builderOf(builder);
    const user = await this.builders.owned(row, customerId);
    let target: ImpersonationTarget | null = null;
    let error: AppError | null = null;
    const key = user.status === 'active' ? await this.apiKeys.findById(user.key_id) : undefined;
    if (!key || key.revoked_at !== null) {
      error = new AppError(
        'forbidden',
        `end-user '${customerId}' is deactivated; create a new end-user to trade again`,
      );
    } else {
      const limits = toPrincipal(key).limits;
      target = {
        customerId,
        behalf: {
          user: { id: key.id, rate: limits.restQps, burst: limits.restQpsBurst },
          pool: { id: row.customer_id, rate: row.qps_pool, burst: row.qps_pool },
        },
      };
    }
    if (this.ttlMs > 0) {
      if (this.cache.size >= MAX_ENTRIES) this.cache.clear();
      this.cache.set(customerId, {
        builderId: builder.customerId,
        target,
        error,
        expiresAt: this.clock() + this.ttlMs,
      });
    }
    if (error) throw error;
    return target as ImpersonationTarget;
  }
}
