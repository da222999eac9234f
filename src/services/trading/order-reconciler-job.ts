// The background side of the order journal: every interval it takes the unsettled rows nobody touched for a
// while (oldest first) and settles each with its exchange (OrdersService.reconcile). Only customers whose
// credentials are stored can be asked in the background; an order placed with per-request credentials is settled
// when its owner asks for it (GET /orders/:id, a retried POST). Rows the exchange cannot answer for now stay as
// they are and are tried again later. Reconciling only reads, so several nodes may run it at once (no lease). The
// timing and the state are `PeriodicJob`'s.
import { type PassReport, PeriodicJob, type Schedule } from '../../domain/periodic-job.js';
import type { OrderJournalRepo } from '../../store/order-journal-repo.js';
import type { LoggerLike } from '../../venues/port.js';
import type { ExchangesService } from '../exchanges-service.js';
import type { OrdersService } from './orders-service.js';

export interface OrderReconcilerJobOptions {
  orders: OrdersService;
  journal: OrderJournalRepo;
  exchanges: ExchangesService;
  logger: LoggerLike;
  intervalMs: number;
  /** A row touched (sent, or tried) less than this long ago is left to the request that has it in hand. */
  graceMs: number;
  timeoutMs: number;
  batch?: number;
  clock?: () => number;
  schedule?: Schedule;
}

export class OrderReconcilerJob extends PeriodicJob {
  constructor(private readonly options: OrderReconcilerJobOptions) {
    super({
      name: 'order-reconciler',
      label: 'order reconciler',
      logger: options.logger,
      intervalMs: options.intervalMs,
      clock: options.clock,
      schedule: options.schedule,
    });
  }

  /** One pass over a batch of unsettled rows. */
  protected async runPass(signal: AbortSignal): Promise<PassReport> {
    const { orders, journal, exchanges, logger } = this.options;
    let lastError: string | null = null;
    const rows = await journal.unsettled(this.clock() - this.options.graceMs, this.options.batch ?? 50);
    for (const row of rows) {
      if (signal.aborted) break;
      try {
        const venue = exchanges.venue(row.exchange);
        const session = row.state === 'pending' ? null : await orders.storedSession(row, venue);
        await orders.reconcile(row, venue, session, {
          signal: AbortSignal.timeout(this.options.timeoutMs * 2),
          requestId: `reconcile-${row.id}`,
          logger,
          tenant: row.customerId,
        });
      } catch (error) {
        lastError = (error as Error).message;
        logger.warn(
          { err: error, exchange: row.exchange, client_order_id: row.clientOrderId },
          'reconcile failed',
        );
        await journal.touch(row.id, this.clock()).catch(() => undefined);
      }
    }
    return { error: lastError };
  }
}
