// Who a service call is for, as the HTTP edge knows it: the request id and logger to attribute venue calls and
// logs, the customer, and the tier's history window (0 = unlimited) that market-data history is held to.
import type { LoggerLike } from '../venues/port.js';

export interface CallerContext {
  requestId: string;
  logger: LoggerLike;
  tenant: string | null;
  /** How far back the caller's tier may read history, in days; 0 = unlimited. */
  historyMaxAgeDays: number;
}
