// What routed orders (route-orders-service.ts) and paired executions (arbitrage-execution-service.ts) share as
// parents of legs (route-legs.ts) stored in route_orders (store/route-orders-repo.ts), one kind each: the
// Idempotency-Key's rules (a stored parent under the key is driven again, the same request already in flight on
// this node is joined, a different request under the key is 409), the commit of a new parent (another node's commit
// under the key first: that one is driven), the re-read when another driver changed the legs first, and the
// read-back of a customer's parents (by id, or newest first by cursor) with their legs as the journal has them.
import { AppError, validationError } from '../../errors/app-error.js';
import type { RouteKind, RouteOrdersRepo, RouteRow } from '../../store/route-orders-repo.js';
import type { TradingCaller } from '../trading/trading-caller.js';
import { type LegOutcome, type LegSpec, legCaller, type RouteLegs } from './route-legs.js';

const LIST_LIMIT_DEFAULT = 50;

/** Drives a parent's legs from its stored row (`depth`: how many times it was re-read after losing a race). */
export type Drive<T> = (row: RouteRow, depth: number) => Promise<T>;

export function keyReused(): AppError {
  return new AppError('conflict', 'this Idempotency-Key was already used for a different request');
}

export interface ParentPage {
  rows: RouteRow[];
  has_more: boolean;
  next_cursor?: string;
}

export class LegParents<T> {
  private readonly inFlight = new Map<string, { requestHash: string; answer: Promise<T> }>();

  constructor(
    private readonly repo: RouteOrdersRepo,
    private readonly legs: RouteLegs,
    private readonly kind: RouteKind,
    /** What the parent is called in errors: 'route', 'execution'. */
    private readonly noun: string,
  ) {}

  /** The answer under `key`: the stored parent driven again, the one in flight joined, or `place()` run once. */
  async act(
    caller: TradingCaller,
    key: string,
    requestHash: string,
    drive: Drive<T>,
    place: () => Promise<T>,
  ): Promise<T> {
    const existing = await this.repo.byKey(caller.tenant, key);
    if (existing) return this.replay(existing, requestHash, drive);
    const flightKey = `${caller.tenant}\n${key}`;
    const flying = this.inFlight.get(flightKey);
    if (flying) {
      if (flying.requestHash !== requestHash) throw keyReused();
      return flying.answer;
    }
    const answer = place();
    this.inFlight.set(flightKey, { requestHash, answer });
    try {
      return await answer;
    } finally {
      this.inFlight.delete(flightKey);
    }
  }

  /**
   * Writes a new parent (its first round: the terms, the plan and the legs as planned, as JSON) before any leg is
   * sent, then drives it, or the one another node committed under the key first.
   */
  async commit(
    caller: TradingCaller,
    parent: { id: string; key: string; requestHash: string; terms: unknown; plan: unknown; legs: unknown },
    nowMs: number,
    drive: Drive<T>,
  ): Promise<T> {
    const { row, created } = await this.repo.insert({
      id: parent.id,
      kind: this.kind,
      customerId: caller.tenant,
      idempotencyKey: parent.key,
      requestHash: parent.requestHash,
      request: JSON.stringify(parent.terms),
      plan: JSON.stringify(parent.plan),
      legs: JSON.stringify(parent.legs),
      round: 1,
      nowMs,
    });
    if (!created) return this.replay(row, parent.requestHash, drive);
    return drive(row, 0);
  }

  /** Another driver changed the legs first: the row read again, driven by its plan (a few times at most). */
  async again(row: RouteRow, depth: number, drive: Drive<T>): Promise<T> {
    const reread = await this.repo.bySeq(row.seq);
    if (!reread || depth >= 3) {
      throw new AppError('service_unavailable', `the ${this.noun} is being changed; retry`);
    }
    return drive(reread, depth + 1);
  }

  /** The customer's parent by its public id (another customer's is not found). */
  async byId(caller: TradingCaller, id: string, what: string): Promise<RouteRow> {
    const row = await this.repo.byId(caller.tenant, this.kind, id);
    if (!row) throw new AppError('not_found', `no ${what} ${id}`);
    return row;
  }

  /** A page of the customer's parents, newest first. */
  async page(caller: TradingCaller, q: { limit?: number; cursor?: string }): Promise<ParentPage> {
    const limit = q.limit ?? LIST_LIMIT_DEFAULT;
    const beforeSeq = q.cursor === undefined ? undefined : this.cursorSeq(q.cursor);
    const rows = await this.repo.list(caller.tenant, this.kind, {
      ...(beforeSeq !== undefined ? { beforeSeq } : {}),
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    const more = rows.length > limit;
    return {
      rows: page,
      has_more: more,
      ...(more && last ? { next_cursor: Buffer.from(`${this.kind}:${last.seq}`).toString('base64url') } : {}),
    };
  }

  /** Every leg as the journal has it (reconciled with its exchange first when `reconcile`). */
  read(caller: TradingCaller, specs: readonly LegSpec[], reconcile: boolean): Promise<LegOutcome[]> {
    return Promise.all(
      specs.map((l) => this.legs.read(legCaller(caller, new Map(), l.exchange), l, reconcile)),
    );
  }

  private replay(row: RouteRow, requestHash: string, drive: Drive<T>): Promise<T> {
    if (row.kind !== this.kind || row.requestHash !== requestHash) throw keyReused();
    return drive(row, 0);
  }

  private cursorSeq(cursor: string): number {
    const m = new RegExp(`^${this.kind}:(\\d{1,15})$`).exec(Buffer.from(cursor, 'base64url').toString());
    if (!m) throw validationError(['cursor is not one this server gave']);
    return Number(m[1]);
  }
}
