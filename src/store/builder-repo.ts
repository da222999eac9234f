// SQL for the builder program: builders (pool and tier) and their end-users. Every change to a builder's end-users
// runs in one transaction that first bumps the builder's `pool_version`, so it holds the builder row's write lock
// before it reads the pool's sum; that is what keeps the sum of qps_limit within the pool under concurrent calls on
// any number of nodes, on both dialects, without dialect-specific locking syntax. A change that is refused (or
// finds nothing to do) rolls its transaction back, the bump included: a refused request leaves the store as it was.
import type { Kysely, Transaction } from 'kysely';
import type { ApiKeyRow } from './api-keys-repo.js';
import type { BuildersTable, BuilderUsersTable, Database } from './schema.js';

export type BuilderRow = BuildersTable;
export type BuilderUserRow = BuilderUsersTable;

export interface PoolFigures {
  qps_pool: number;
  end_user_count: number;
  total_allocated_qps: number;
}

/** What a change found when it held the builder's lock. */
export type CreateOutcome =
  | { kind: 'created'; user: BuilderUserRow }
  | { kind: 'existing'; user: BuilderUserRow }
  | { kind: 'over_pool'; pool: PoolFigures };

export type QpsOutcome =
  | { kind: 'updated'; user: BuilderUserRow }
  | { kind: 'over_pool'; pool: PoolFigures }
  | { kind: 'inactive' };

export class BuilderRepo {
  constructor(private readonly db: Kysely<Database>) {}

  /** The builder's row, created with the given defaults on its first use. */
  async ensureBuilder(defaults: BuilderRow): Promise<BuilderRow> {
    await this.db
      .insertInto('builders')
      .values(defaults)
      .onConflict((oc) => oc.column('customer_id').doNothing())
      .execute();
    const row = await this.db
      .selectFrom('builders')
      .selectAll()
      .where('customer_id', '=', defaults.customer_id)
      .executeTakeFirstOrThrow();
    return row;
  }

  async user(customerId: string): Promise<BuilderUserRow | undefined> {
    return this.db
      .selectFrom('builder_users')
      .selectAll()
      .where('customer_id', '=', customerId)
      .executeTakeFirst();
  }

  /** The builder user whose end-user key this is, if any. */
  async userByKey(keyId: string): Promise<BuilderUserRow | undefined> {
    return this.db.selectFrom('builder_users').selectAll().where('key_id', '=', keyId).executeTakeFirst();
  }

  /** Every builder's end-users' sealed API keys in customer-id order after `after`: what vault rotation rewraps. */
  async sealedKeys(
    after: string | null,
    limit: number,
  ): Promise<Array<{ customer_id: string; sealed_key: string }>> {
    let query = this.db.selectFrom('builder_users').select(['customer_id', 'sealed_key']);
    if (after !== null) query = query.where('customer_id', '>', after);
    return query.orderBy('customer_id').limit(limit).execute();
  }

  /** Compare-and-set of one end-user's sealed key: false when the row no longer holds `expected`. */
  async replaceSealedKey(customerId: string, expected: string, sealed: string): Promise<boolean> {
    const result = await this.db
      .updateTable('builder_users')
      .set({ sealed_key: sealed })
      .where('customer_id', '=', customerId)
      .where('sealed_key', '=', expected)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** One page of a builder's end-users in creation order, after the keyset `after`. */
  async page(
    builderId: string,
    after: { created_at: string; customer_id: string } | null,
    limit: number,
  ): Promise<BuilderUserRow[]> {
    let query = this.db.selectFrom('builder_users').selectAll().where('builder_id', '=', builderId);
    if (after) {
      query = query.where((eb) =>
        eb(eb.refTuple('created_at', 'customer_id'), '>', eb.tuple(after.created_at, after.customer_id)),
      );
    }
    return query.orderBy('created_at').orderBy('customer_id').limit(limit).execute();
  }

  async pool(builderId: string, db: Kysely<Database> = this.db): Promise<PoolFigures> {
    const builder = await db
      .selectFrom('builders')
      .select('qps_pool')
      .where('customer_id', '=', builderId)
      .executeTakeFirst();
    const sums = await db
      .selectFrom('builder_users')
      .select((eb) => [
        eb.fn.countAll<number>().as('users'),
        eb.fn.coalesce(eb.fn.sum<number>('qps_limit'), eb.lit(0)).as('allocated'),
      ])
      .where('builder_id', '=', builderId)
      .where('status', '=', 'active')
      .executeTakeFirstOrThrow();
    return {
      qps_pool: Number(builder?.qps_pool ?? 0),
      end_user_count: Number(sums.users),
      total_allocated_qps: Number(sums.allocated),
    };
  }

  /**
   * Creates the end-user and its API key unless the builder already has an active end-user with this external id
   * (then that one), or unless its qps_limit does not fit in the pool.
   */
  async create(user: BuilderUserRow, key: ApiKeyRow): Promise<CreateOutcome> {
    return this.locked(
      user.builder_id,
      (o) => o.kind === 'created',
      async (tx) => {
        const existing = await tx
          .selectFrom('builder_users')
          .selectAll()
          .where('builder_id', '=', user.builder_id)
          .where('external_id', '=', user.external_id)
          .where('status', '=', 'active')
          .executeTakeFirst();
        if (existing) return { kind: 'existing', user: existing };
        const pool = await this.pool(user.builder_id, tx);
        if (pool.total_allocated_qps + user.qps_limit > pool.qps_pool) return { kind: 'over_pool', pool };
        await tx.insertInto('api_keys').values(key).execute();
        await tx.insertInto('builder_users').values(user).execute();
        return { kind: 'created', user };
      },
    );
  }

  /** Sets an active end-user's qps_limit (and its key's rate) if the pool still holds the sum. */
  async setQps(user: BuilderUserRow, qps: number): Promise<QpsOutcome> {
    return this.locked(
      user.builder_id,
      (o) => o.kind === 'updated',
      async (tx) => {
        const current = await tx
          .selectFrom('builder_users')
          .selectAll()
          .where('customer_id', '=', user.customer_id)
          .executeTakeFirst();
        if (current?.status !== 'active') return { kind: 'inactive' };
        const pool = await this.pool(user.builder_id, tx);
        if (pool.total_allocated_qps - current.qps_limit + qps > pool.qps_pool)
          return { kind: 'over_pool', pool };
        await tx
          .updateTable('builder_users')
          .set({ qps_limit: qps })
          .where('customer_id', '=', user.customer_id)
          .execute();
        await tx.updateTable('api_keys').set({ qps_limit: qps }).where('id', '=', current.key_id).execute();
        return { kind: 'updated', user: { ...current, qps_limit: qps } };
      },
    );
  }

  /**
   * Deactivates an end-user in one transaction: its status, its API key (revoked) and every wallet and credential
   * record it holds. False when it was already deactivated.
   */
  async deactivate(user: BuilderUserRow, at: string): Promise<boolean> {
    return this.locked(
      user.builder_id,
      (done) => done,
      async (tx) => {
        const result = await tx
          .updateTable('builder_users')
          .set({ status: 'deactivated', deactivated_at: at })
          .where('customer_id', '=', user.customer_id)
          .where('status', '=', 'active')
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) === 0) return false;
        await tx
          .updateTable('api_keys')
          .set({ revoked_at: at })
          .where('id', '=', user.key_id)
          .where('revoked_at', 'is', null)
          .execute();
        await tx
          .updateTable('credentials')
          .set({ deactivated_at: at })
          .where('customer_id', '=', user.customer_id)
          .where('deactivated_at', 'is', null)
          .execute();
        return true;
      },
    );
  }

  /**
   * Runs `body` in a transaction holding the builder's lock; commits only when `wrote(outcome)` says it changed
   * something, and otherwise rolls back (so the lock's bump of pool_version goes too) and still returns the outcome.
   */
  private async locked<T>(
    builderId: string,
    wrote: (outcome: T) => boolean,
    body: (tx: Transaction<Database>) => Promise<T>,
  ): Promise<T> {
    try {
      return await this.db.transaction().execute(async (tx) => {
        await lockBuilder(tx, builderId);
        const outcome = await body(tx);
        if (!wrote(outcome)) throw new RolledBack(outcome);
        return outcome;
      });
    } catch (error) {
      if (error instanceof RolledBack) return error.outcome as T;
      throw error;
    }
  }
}

/** Carries a transaction's outcome out of it while rolling it back. */
class RolledBack<T> extends Error {
  constructor(readonly outcome: T) {
    super('rolled back: nothing to change');
  }
}

/** Takes the builder row's write lock for the rest of the transaction. */
async function lockBuilder(tx: Transaction<Database>, builderId: string): Promise<void> {
  await tx
    .updateTable('builders')
    .set((eb) => ({ pool_version: eb('pool_version', '+', 1) }))
    .where('customer_id', '=', builderId)
    .execute();
}
