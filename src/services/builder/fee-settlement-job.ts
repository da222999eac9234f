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
// the same work twice, correctness does not depend on it. The timing, the lease and the state are `PeriodicJob`'s.
import type { Hex } from 'viem';
import { type PassReport, PeriodicJob, type Schedule } from '../../domain/periodic-job.js';
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
  schedule?: Schedule;
}

/** What one pass did with one fee. */
export type FeeOutcome = 'settled' | 'forgotten' | 'waiting' | 'no_credentials' | 'failed';

export class FeeSettlementJob extends PeriodicJob {
  constructor(private readonly options: FeeSettlementJobOptions) {
    super({
      name: 'fee-settlement',
      label: 'fee settlement',
      logger: options.logger,
      intervalMs: options.intervalMs,
      lease: { store: options.leases, name: FEE_SETTLEMENT_LEASE, ttlMs: options.leaseTtlMs },
      nodeId: options.nodeId,
      clock: options.clock,
      schedule: options.schedule,
    });
  }

  /** One pass over a batch of held fees, on the node holding the lease. */
  protected async runPass(signal: AbortSignal): Promise<PassReport> {
    const { fees, logger } = this.options;
    let lastError: string | null = null;
    // A fee tried within the last interval waits for the next pass, so an open order is asked about once a pass.
    const rows = await fees.held(this.clock() - this.options.intervalMs, this.options.batch ?? 50);
    for (const fee of rows) {
      // Stopped, or the lease lost mid-batch: the new holder goes on with the rest.
      if (signal.aborted) break;
      const outcome = await this.settleOne(fee).catch((error: unknown) => {
        lastError = (error as Error).message;
        logger.warn(
          { err: error, fee_order_id: fee.orderId, exchange: fee.exchange },
          'fee settlement failed',
        );
        return 'failed' as const;
      });
      if (outcome !== 'settled' && outcome !== 'forgotten') {
        await fees.touch(fee.orderId, this.clock()).catch(() => undefined);
      }
    }
    return { error: lastError };
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
}
