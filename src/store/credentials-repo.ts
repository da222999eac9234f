// SQL for the credentials table. It moves sealed text and metadata only: sealing and opening are the vault's, so
// nothing here ever sees a secret in the clear.
import type { Kysely } from 'kysely';
import type { CredentialKind, CredentialsTable, Database } from './schema.js';
import type { SqliteReader } from './sqlite-reader.js';

export type CredentialRow = CredentialsTable;
export type RecordKey = Pick<CredentialRow, 'customer_id' | 'exchange' | 'kind'>;

export class CredentialsRepo {
  /**
   * `reader` (SQLite): the read-only connection with cached statements, for the read before every private call
   * made with stored credentials; it sees committed rows only, which is all a session may be built from.
   */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly reader: SqliteReader | null = null,
  ) {}

  async get(customerId: string, exchange: string, kind: CredentialKind): Promise<CredentialRow | undefined> {
    return (await this.liveOfKinds(customerId, exchange, [kind]))[0];
  }

  /** The customer's live records of those kinds for one exchange, in one query (at most one per kind). */
  async liveOfKinds(
    customerId: string,
    exchange: string,
    kinds: readonly CredentialKind[],
  ): Promise<CredentialRow[]> {
    const query = this.db
      .selectFrom('credentials')
      .selectAll()
      .where('customer_id', '=', customerId)
      .where('exchange', '=', exchange)
      .where('kind', 'in', kinds)
      .where('deactivated_at', 'is', null);
    return this.reader ? this.reader.all<CredentialRow>(query.compile()) : query.execute();
  }

  /** Every live record of one customer, oldest first. */
  async listFor(customerId: string): Promise<CredentialRow[]> {
    return this.db
      .selectFrom('credentials')
      .selectAll()
      .where('customer_id', '=', customerId)
      .where('deactivated_at', 'is', null)
      .orderBy('created_at')
      .orderBy('exchange')
      .orderBy('kind')
      .execute();
  }

  /**
   * Inserts the record or replaces its sealed text and metadata; `created_at` of an existing row is kept, and a
   * deactivated record stays deactivated (deactivation is irreversible).
   */
  async upsert(row: CredentialRow): Promise<void> {
    const { customer_id: _c, exchange: _e, kind: _k, created_at: _t, deactivated_at: _d, ...changes } = row;
    await this.db
      .insertInto('credentials')
      .values(row)
      .onConflict((oc) =>
        oc
          .columns(['customer_id', 'exchange', 'kind'])
          .doUpdateSet(changes)
          .where('credentials.deactivated_at', 'is', null),
      )
      .execute();
  }

  /** Inserts the record unless one exists for its key; true when this call inserted it. */
  async insertIfAbsent(row: CredentialRow): Promise<boolean> {
    const result = await this.db
      .insertInto('credentials')
      .values(row)
      .onConflict((oc) => oc.columns(['customer_id', 'exchange', 'kind']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  /**
   * Up to `limit` records sealed under any master key but `currentKeyId` (what a rotation has left), in key order
   * after `after` (a keyset, so a record that cannot be rewrapped is passed over, not met again).
   */
  async notUnder(currentKeyId: string, after: RecordKey | null, limit: number): Promise<CredentialRow[]> {
    let query = this.db.selectFrom('credentials').selectAll().where('master_key_id', '<>', currentKeyId);
    if (after) {
      query = query.where((eb) =>
        eb(
          eb.refTuple('customer_id', 'exchange', 'kind'),
          '>',
          eb.tuple(after.customer_id, after.exchange, after.kind),
        ),
      );
    }
    return query.orderBy('customer_id').orderBy('exchange').orderBy('kind').limit(limit).execute();
  }

  /** How many records each master key wraps. */
  async countByMasterKey(): Promise<Array<{ master_key_id: string; records: number }>> {
    const rows = await this.db
      .selectFrom('credentials')
      .select(['master_key_id', (eb) => eb.fn.countAll<number>().as('records')])
      .groupBy('master_key_id')
      .orderBy('master_key_id')
      .execute();
    return rows.map((r) => ({ master_key_id: r.master_key_id, records: Number(r.records) }));
  }

  /**
   * Replaces one record's sealed text in its own transaction, only if it still holds `expected`: a record the
   * server rewrote meanwhile (a new onboarding) is left alone and reported false, so a rotation never overwrites
   * newer credentials with older ones.
   */
  async replaceSealed(
    key: RecordKey,
    expected: string,
    sealed: string,
    masterKeyId: string,
  ): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const result = await tx
        .updateTable('credentials')
        .set({ sealed, master_key_id: masterKeyId })
        .where('customer_id', '=', key.customer_id)
        .where('exchange', '=', key.exchange)
        .where('kind', '=', key.kind)
        .where('sealed', '=', expected)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    });
  }
}
