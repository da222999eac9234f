// SQL of routed orders and paired executions (migration 0012-route-orders): the parent row of legs that live in the
// order journal. The row is committed before any leg is sent, with the legs as planned (each names the
// Idempotency-Key of its journal row), so whoever drives the route again (a retry after a crash, a concurrent
// retry) finds each leg's row by that key and never sends one twice. Changes to the legs are compare-and-set on the
// legs as read: two drivers of one route agree on one plan.
import type { Kysely, Selectable } from 'kysely';
import type { Database, RouteOrdersTable } from './schema.js';

export type RouteKind = 'route' | 'arbitrage';

export interface RouteRow {
  seq: number;
  id: string;
  kind: RouteKind;
  customerId: string;
  idempotencyKey: string;
  requestHash: string;
  request: string;
  plan: string;
  legs: string;
  round: number;
  createdMs: number;
  updatedMs: number;
}

export type NewRoute = Omit<RouteRow, 'seq' | 'createdMs' | 'updatedMs'> & { nowMs: number };

function toRow(r: Selectable<RouteOrdersTable>): RouteRow {
  return {
    seq: Number(r.seq),
    id: r.id,
    kind: r.kind as RouteKind,
    customerId: r.customer_id,
    idempotencyKey: r.idempotency_key,
    requestHash: r.request_hash,
    request: r.request,
    plan: r.plan,
    legs: r.legs,
    round: Number(r.round),
    createdMs: Number(r.created_ms),
    updatedMs: Number(r.updated_ms),
  };
}

export class RouteOrdersRepo {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Writes a new route, or returns the one already holding this customer's Idempotency-Key (then nothing is
   * written: the caller answers with that route).
   */
  async insert(route: NewRoute): Promise<{ row: RouteRow; created: boolean }> {
    const inserted = await this.db
      .insertInto('route_orders')
      .values({
        id: route.id,
        kind: route.kind,
        customer_id: route.customerId,
        idempotency_key: route.idempotencyKey,
        request_hash: route.requestHash,
        request: route.request,
        plan: route.plan,
        legs: route.legs,
        round: route.round,
        created_ms: route.nowMs,
        updated_ms: route.nowMs,
      })
      .onConflict((oc) => oc.columns(['customer_id', 'idempotency_key']).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (inserted) return { row: toRow(inserted), created: true };
    const existing = await this.byKey(route.customerId, route.idempotencyKey);
    if (!existing) throw new Error('route insert conflicted without an existing row');
    return { row: existing, created: false };
  }

  async byKey(customerId: string, idempotencyKey: string): Promise<RouteRow | undefined> {
    const r = await this.db
      .selectFrom('route_orders')
      .selectAll()
      .where('customer_id', '=', customerId)
      .where('idempotency_key', '=', idempotencyKey)
      .executeTakeFirst();
    return r ? toRow(r) : undefined;
  }

  /** A customer's route by its public id (another customer's is not found). */
  async byId(customerId: string, kind: RouteKind, id: string): Promise<RouteRow | undefined> {
    const r = await this.db
      .selectFrom('route_orders')
      .selectAll()
      .where('customer_id', '=', customerId)
      .where('kind', '=', kind)
      .where('id', '=', id)
      .executeTakeFirst();
    return r ? toRow(r) : undefined;
  }

  /** A customer's routes of one kind, newest first, those before `beforeSeq` when given. */
  async list(
    customerId: string,
    kind: RouteKind,
    options: { beforeSeq?: number; limit: number },
  ): Promise<RouteRow[]> {
    let q = this.db
      .selectFrom('route_orders')
      .selectAll()
      .where('customer_id', '=', customerId)
      .where('kind', '=', kind);
    if (options.beforeSeq !== undefined) q = q.where('seq', '<', options.beforeSeq);
    const rows = await q.orderBy('seq', 'desc').limit(options.limit).execute();
    return rows.map(toRow);
  }

  /**
   * Replaces the legs (and the round count) if they are still `expectedLegs`: false when another driver of the
   * route changed them first (the caller reads the row again and follows that plan).
   */
  async replaceLegs(
    seq: number,
    expectedLegs: string,
    legs: string,
    round: number,
    nowMs: number,
  ): Promise<boolean> {
    const res = await this.db
      .updateTable('route_orders')
      .set({ legs, round, updated_ms: nowMs })
      .where('seq', '=', seq)
      .where('legs', '=', expectedLegs)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  async bySeq(seq: number): Promise<RouteRow | undefined> {
    const r = await this.db.selectFrom('route_orders').selectAll().where('seq', '=', seq).executeTakeFirst();
    return r ? toRow(r) : undefined;
  }
}
