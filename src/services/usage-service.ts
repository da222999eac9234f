// GET /usage: the caller's tier, limits and consumption for the current billing period.

import { billingPeriodOf } from '../domain/billing-period.js';
import type { AdmissionControl } from '../tenancy/admission/admission.js';
import type { Principal } from '../tenancy/principal.js';

export class UsageService {
  constructor(private readonly admission: AdmissionControl) {}

  async forPrincipal(principal: Principal, now: Date) {
    const period = billingPeriodOf(now);
    const l = principal.limits;
    return {
      tier: principal.tier,
      billing_period_start: period.start.toISOString(),
      billing_period_end: period.end.toISOString(),
      limits: {
        monthly_requests: l.monthlyRequests,
        rest_qps: l.restQps,
        rest_qps_burst: l.restQpsBurst,
        ws_max_subscriptions: l.wsMaxSubscriptions,
        ws_max_depth: l.wsMaxDepth,
        history_max_age_days: l.historyMaxAgeDays,
      },
      usage: {
        monthly_requests: await this.admission.monthlyUsed(principal.keyId, period.id),
        // The WebSocket gateway is a later capability; until then no connections can exist.
        ws_active_connections: 0,
        ws_active_subscriptions: 0,
      },
    };
  }
}
