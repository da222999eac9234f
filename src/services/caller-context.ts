// Who a service call is for, as the HTTP edge knows it: the request id and logger to attribute venue calls and
// logs, the customer, the tier's history window (0 = unlimited) that market-data history is held to, and the tier's
// budget of on-demand venue lookups.
import type { LoggerLike } from '../venues/port.js';
import type { LookupRate } from './catalogue/lookup-budget.js';

export interface CallerContext {
  requestId: string;
  logger: LoggerLike;
  tenant: string | null;
  /** How far back the caller's tier may read history, in days; 0 = unlimited. */
  historyMaxAgeDays: number;
  /** The customer's budget of on-demand venue lookups; absent (the server's own work): not budgeted. */
  venueLookups?: LookupRate;
}
