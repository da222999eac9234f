// The background side of fee escrow: settles every builder fee still held once its order is closed, so a fee is
// distributed (pro rata to the filled share) or refunded even when nobody reads the order again after it filled,
// was cancelled at the exchange or expired. Every interval the node holding the `fee-settlement` lease (the same
// lease table the catalogue sync uses, so one node settles when several share a database) takes the held fees
// nobody tried for a while, least recently tried first, and for each:
// - no journal row `graceMs` after the fee was recorded: the order was never sent (the process stopped between the
//   pull and the send): refunded, or forgotten when the chain holds nothing under its id once the fee_auth's
//   deadline has passed (until then a pull whose outcome was unknown may still be mined);
// - the row rejected (the exchange refused it, or had no record of it): refunded;
// - the row still unsettled (sent, outcome unknown): left for the order reconciler to settle first;
// - accepted: the order's last known state if closed, else the exchange's answer asked with the customer's stored
//   or managed credentials (an impersonated order's are the end-user's); closed → settled with its split.
// An order placed with per-request credentials (never stored) cannot be asked about in the background: its fee is
// settled when the order is next read with its credentials (GET or DELETE /orders/:id), and otherwise stays held
// until the payer takes it back with the contract's reclaim after its delay (FeeEscrow.RECLAIM_DELAY, 30 days).
// Exactly once: the contract closes an escrow id once, FeeEscrowService.settle reads the chain again when its own
// call fails, and the row moves to settled only from held. A node that crashes after the chain settled and before
// the row was marked finds the escrow closed on its next pass and marks it; the lease only keeps nodes from doing
// the same work twice, correctness does not depend on it.
import { randomBytes } from 'node:crypto';
import type { Hex } from 'viem';
import type { BackgroundJob, JobState } from '../../domain/background-job.js';
import type { FeeEscrowRow, FeeEscrowsRepo } from '../../store/fee-escrows-repo.js';
import type { OrderJournalRepo } from '../../store/order-journal-repo.js';
import { UNSETTLED } from '../../store/order-journal-repo.js';
import type { SyncStateRepo } from '../../store/sync-state-repo.js';
import type { LoggerLike, VenueContext } from '../../venues/port.js';
import type { ExchangesService } from '../exchanges-service.js';
import { type OrdersService, orderOfRow } from '../trading/orders-service.js';
import { CLOSED, type FeeEscrowService, type FeeSplit, REFUND, splitOf } from './fee-escrow-service.js';

export const FEE_SETTLEMENT_LEASE = 'fee-settlement';
const DEADLINE_MARGIN_S = 60;

export interface FeeSettlementJobOptions {
  escrow: FeeEscrowService;
  fees: FeeEscrowsRepo;
  journal: OrderJournalRepo;
  orders: OrdersService;
  exchanges: ExchangesService;
  leases: SyncStateRepo;
  logger: LoggerLike;
  intervalMs: number;
  leaseTtlMs: number;
  /**
   * A fee with no journal row this long after it was recorded belongs to an order that was never sent (until then
   * the request that pulled it may still be sending it).
   */
  graceMs: number;
  /** Deadline of one trading call to an exchange. */
  timeoutMs: number;
  batch?: number;
  nodeId?: string;
  clock?: () => number;
}

/** What one pass did with one fee. */
export type FeeOutcome = 'settled' | 'forgotten' | 'waiting' | 'no_credentials' | 'failed';

export class FeeSettlementJob implements BackgroundJob {
  readonly name = 'fee-settlement';
  readonly nodeId: string;
  private current: JobState = { name: this.name, health: 'starting', last_run_at: null, last_error: null };
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;
  private leader = false;
  private leaseRenewedAt = 0;
  private passes = 0;
  private inPass = false;
  private waiters: Array<{ target: number; resolve: () => void }> = [];
  private readonly clock: () => number;

  constructor(private readonly options: FeeSettlementJobOptions) {
    this.nodeId = options.nodeId ?? `node-${randomBytes(6).toString('hex')}`;
    this.clock = options.clock ?? Date.now;
  }

  get isLeader(): boolean {
    return this.leader;
  }

  /** Resolves once a pass that starts after this call has completed (or the job stops). */
  nextPass(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    // A pass running now started before this call: the one after it is the first to start after.
    const target = this.passes + (this.inPass ? 2 : 1);
    return new Promise((resolve) => this.waiters.push({ target, resolve }));
  }

  start(): void {
    if (this.timer || this.stopped) return;
    this.current = { ...this.current, health: 'running' };
    const tick = () => {
      this.inPass = true;
      this.running = this.runOnce()
        .then(() => undefined)
        .catch((error) => {
          this.current = { ...this.current, health: 'degraded', last_error: (error as Error).message };
          this.options.logger.warn({ err: error }, 'fee settlement pass failed');
        })
        .finally(() => {
          this.inPass = false;
          this.passes++;
          this.settleWaiters(false);
          if (!this.stopped) {
            this.timer = setTimeout(tick, this.options.intervalMs);
            this.timer.unref();
          }
        });
    };
    this.timer = setTimeout(tick, 0);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
    if (this.leader) {
      this.leader = false;
      await this.options.leases
        .releaseLease(FEE_SETTLEMENT_LEASE, this.nodeId)
        .catch((err) => this.options.logger.warn({ err }, 'could not release the fee settlement lease'));
    }
    this.current = { ...this.current, health: 'stopped' };
    this.settleWaiters(true);
  }

  state(): JobState {
    return this.current;
  }

  /** One pass: takes or renews the lease, then settles a batch of held fees; resolves to how many it settled. */
  async runOnce(): Promise<number> {
    if (!(await this.holdLease())) {
      // A standby is healthy; it takes over within about one lease ttl of the leader's last renewal.
      this.current = {
        ...this.current,
        health: 'running',
        last_run_at: new Date(this.clock()).toISOString(),
      };
      return 0;
    }
    const { fees, logger } = this.options;
    let settled = 0;
    let lastError: string | null = null;
    // A fee tried within the last interval waits for the next pass, so an open order is asked about once a pass.
    const rows = await fees.held(this.clock() - this.options.intervalMs, this.options.batch ?? 50);
    for (const fee of rows) {
      if (this.stopped) break;
      // Renewed as the batch goes: a pass that outlives its lease stops, and the new holder goes on.
      if (this.clock() - this.leaseRenewedAt >= this.options.leaseTtlMs / 3 && !(await this.holdLease()))
        break;
      const outcome = await this.settleOne(fee).catch((error: unknown) => {
        lastError = (error as Error).message;
        logger.warn(
          { err: error, fee_order_id: fee.orderId, exchange: fee.exchange },
          'fee settlement failed',
        );
        return 'failed' as const;
      });
      if (outcome === 'settled') settled++;
      if (outcome !== 'settled' && outcome !== 'forgotten') {
        await fees.touch(fee.orderId, this.clock()).catch(() => undefined);
      }
    }
    this.current = {
      name: this.name,
      health: lastError ? 'degraded' : 'running',
      last_run_at: new Date(this.clock()).toISOString(),
      last_error: lastError,
    };
    return settled;
  }

  /** Settles one held fee if its order is closed (see the file comment for each case). */
  async settleOne(fee: FeeEscrowRow): Promise<FeeOutcome> {
    const { journal, orders, exchanges } = this.options;
    const row = await journal.find(fee.customerId, fee.exchange, fee.clientOrderId);
    if (!row) {
      if (this.clock() - fee.createdMs < this.options.graceMs) return 'waiting';
      // Never sent: whatever the pull took goes back.
      return this.close(fee, REFUND);
    }
    if (row.state === 'rejected') return this.close(fee, REFUND);
    if (UNSETTLED.includes(row.state)) return 'waiting';
    let order = orderOfRow(row);
    if (!CLOSED.has(order.status)) {
      const venue = exchanges.venue(row.exchange);
      const session = await orders.storedSession(row, venue);
      if (session === null) return 'no_credentials';
      order = await orders.refresh(row, venue, session, this.ctx(row.customerId, fee.orderId));
      if (!CLOSED.has(order.status)) return 'waiting';
    }
    return this.close(fee, splitOf(order));
  }

  private async close(fee: FeeEscrowRow, split: FeeSplit): Promise<FeeOutcome> {
    const done = await this.options.escrow.settle(fee.orderId as Hex, split, this.options.logger);
    if (done !== 'none') return 'settled';
    // Nothing on chain under this id: a pull whose outcome was unknown may still be mined until the fee_auth's
    // deadline (with a minute's margin for the chain's clock); after it, nothing ever will be.
    if (this.clock() < (fee.deadlineS + DEADLINE_MARGIN_S) * 1000) return 'waiting';
    await this.options.fees.forget(fee.orderId);
    return 'forgotten';
  }

  private ctx(tenant: string, orderId: string): VenueContext {
    return {
      signal: AbortSignal.timeout(this.options.timeoutMs * 2),
      requestId: `fee-settlement-${orderId.slice(2, 14)}`,
      logger: this.options.logger,
      tenant,
    };
  }

  private async holdLease(): Promise<boolean> {
    const now = this.clock();
    try {
      const held = await this.options.leases.acquireLease(
        FEE_SETTLEMENT_LEASE,
        this.nodeId,
        now,
        this.options.leaseTtlMs,
      );
      if (held) this.leaseRenewedAt = now;
      if (held !== this.leader) {
        this.options.logger.info({ node: this.nodeId, leader: held }, 'fee settlement lease');
      }
      this.leader = held;
    } catch (error) {
      this.options.logger.warn({ err: error }, 'could not renew the fee settlement lease');
      if (now - this.leaseRenewedAt >= this.options.leaseTtlMs) this.leader = false;
    }
    return this.leader;
  }

  private settleWaiters(all: boolean): void {
    const keep: typeof this.waiters = [];
    for (const w of this.waiters) {
      if (all || this.passes >= w.target) w.resolve();
      else keep.push(w);
    }
    this.waiters = keep;
  }
}
