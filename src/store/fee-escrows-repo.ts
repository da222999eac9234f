// SQL of the builder fees held in the FeeEscrow contract (migration 0009-fee-settlement). A row is written `held`
// before its fee is pulled and moved to `settled` once the contract closed the escrow; every move is conditional on
// the row still being held, so a request and the background job (on any node) settling the same fee both finish with
// one row in one final state. The contract itself refuses a second settlement of an escrow id.
import type { Kysely, Selectable } from 'kysely';
import type { Database, FeeEscrowsTable } from './schema.js';

export interface FeeEscrowRow {
  orderId: string;
  customerId: string;
  exchange: string;
  clientOrderId: string;
  state: FeeEscrowsTable['state'];
  /** The fee_auth's deadline, Unix seconds. */
  deadlineS: number;
  filledUnits: bigint | null;
  sizeUnits: bigint | null;
  createdMs: number;
  updatedMs: number;
}

export interface NewFeeEscrow {
  orderId: string;
  customerId: string;
  exchange: string;
  clientOrderId: string;
  deadlineS: number;
  nowMs: number;
}

function toRow(r: Selectable<FeeEscrowsTable>): FeeEscrowRow {
  return {
    orderId: r.order_id,
    customerId: r.customer_id,
    exchange: r.exchange,
    clientOrderId: r.client_order_id,
    state: r.state,
    deadlineS: Number(r.deadline_s),
    filledUnits: r.filled_units === null ? null : BigInt(r.filled_units),
    sizeUnits: r.size_units === null ? null : BigInt(r.size_units),
    createdMs: Number(r.created_ms),
    updatedMs: Number(r.updated_ms),
  };
}

export class FeeEscrowsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  /** Records a fee about to be pulled; false when its escrow id is recorded already (a reused fee_auth). */
  async insert(fee: NewFeeEscrow): Promise<boolean> {
    const res = await this.db
      .insertInto('fee_escrows')
      .values({
        order_id: fee.orderId,
        customer_id: fee.customerId,
        exchange: fee.exchange,
        client_order_id: fee.clientOrderId,
        state: 'held',
        deadline_s: fee.deadlineS,
        created_ms: fee.nowMs,
        updated_ms: fee.nowMs,
      })
      .onConflict((oc) => oc.column('order_id').doNothing())
      .executeTakeFirst();
    return Number(res.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  async byOrderId(orderId: string): Promise<FeeEscrowRow | undefined> {
    const r = await this.db
      .selectFrom('fee_escrows')
      .selectAll()
      .where('order_id', '=', orderId)
      .executeTakeFirst();
    return r ? toRow(r) : undefined;
  }

  /** Forgets a fee whose pull certainly took nothing (the contract holds nothing under its id): it may be used again. */
  async forget(orderId: string): Promise<void> {
    await this.db
      .deleteFrom('fee_escrows')
      .where('order_id', '=', orderId)
      .where('state', '=', 'held')
      .execute();
  }

  /** Held fees nobody tried since `olderThanMs`, least recently tried first (the settlement job's batch). */
  async held(olderThanMs: number, limit: number): Promise<FeeEscrowRow[]> {
    const rows = await this.db
      .selectFrom('fee_escrows')
      .selectAll()
      .where('state', '=', 'held')
      .where('updated_ms', '<=', olderThanMs)
      .orderBy('updated_ms')
      .orderBy('order_id')
      .limit(limit)
      .execute();
    return rows.map(toRow);
  }

  /**
   * Marks the fee settled with the split the contract made (`filled` of `size`; null from a caller that found it
   * settled by someone else). The caller whose settlement went through records its split even when a racing caller
   * marked the row first; false when nothing changed.
   */
  async settled(
    orderId: string,
    split: { filled: bigint; size: bigint } | null,
    nowMs: number,
  ): Promise<boolean> {
    const res = await this.db
      .updateTable('fee_escrows')
      .set({
        state: 'settled',
        filled_units: split ? split.filled.toString() : null,
        size_units: split ? split.size.toString() : null,
        updated_ms: nowMs,
      })
      .where('order_id', '=', orderId)
      .where((eb) =>
        split ? eb.or([eb('state', '=', 'held'), eb('filled_units', 'is', null)]) : eb('state', '=', 'held'),
      )
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  /** Marks an attempt that could not settle yet, so the next batch tries other fees first. */
  async touch(orderId: string, nowMs: number): Promise<void> {
    await this.db
      .updateTable('fee_escrows')
      .set({ updated_ms: nowMs })
      .where('order_id', '=', orderId)
      .where('state', '=', 'held')
      .execute();
  }
}
