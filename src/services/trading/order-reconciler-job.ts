// The background side of the order journal: every interval it takes the unsettled rows nobody touched for a
// while (oldest first) and settles each with its exchange (OrdersService.reconcile). Only customers whose
// credentials are stored can be asked in the background; an order placed with per-request credentials is settled
// when its owner asks for it (GET /orders/:id, a retried POST). Rows the exchange cannot answer for now stay as
// they are and are tried again later. Reconciling only reads, so several nodes may run it at once.
import type { BackgroundJob, JobState } from '../../domain/background-job.js';
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
}

export class OrderReconcilerJob implements BackgroundJob {
  readonly name = 'order-reconciler';
  private current: JobState = { name: this.name, health: 'starting', last_run_at: null, last_error: null };
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;
  private readonly clock: () => number;

  constructor(private readonly options: OrderReconcilerJobOptions) {
    this.clock = options.clock ?? Date.now;
  }

  start(): void {
    if (this.timer || this.stopped) return;
    this.current = { ...this.current, health: 'running' };
    const tick = () => {
      this.running = this.runOnce()
        .then(() => undefined)
        .finally(() => {
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
    this.current = { ...this.current, health: 'stopped' };
  }

  state(): JobState {
    return this.current;
  }

  /** One pass over a batch of unsettled rows; resolves to how many were settled. */
  async runOnce(): Promise<number> {
    const { orders, journal, exchanges, logger } = this.options;
    let settled = 0;
    let lastError: string | null = null;
    const rows = await journal.unsettled(this.clock() - this.options.graceMs, this.options.batch ?? 50);
    for (const row of rows) {
      if (this.stopped) break;
      try {
        const venue = exchanges.venue(row.exchange);
        const session = row.state === 'pending' ? null : await orders.storedSession(row, venue);
        const after = await orders.reconcile(row, venue, session, {
          signal: AbortSignal.timeout(this.options.timeoutMs * 2),
          requestId: `reconcile-${row.id}`,
          logger,
          tenant: row.customerId,
        });
        if (after.state !== row.state) settled++;
      } catch (error) {
        lastError = (error as Error).message;
        logger.warn(
          { err: error, exchange: row.exchange, client_order_id: row.clientOrderId },
          'reconcile failed',
        );
        await journal.touch(row.id, this.clock()).catch(() => undefined);
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
}
