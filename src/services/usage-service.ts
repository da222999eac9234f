// GET /usage: the caller's tier, limits and consumption for the current billing period.

import { type Static, Type } from 'typebox';
import { billingPeriodOf } from '../domain/billing-period.js';
import { TIER_NAMES } from '../domain/tiers.js';
import type { AdmissionControl } from '../tenancy/admission/admission.js';
import type { Principal } from '../tenancy/principal.js';

export const UsageReport = Type.Object({
  tier: Type.Enum(TIER_NAMES),
  billing_period_start: Type.String({ format: 'date-time' }),
  billing_period_end: Type.String({ format: 'date-time' }),
  limits: Type.Object({
    monthly_requests: Type.Number({ description: '0 = unlimited' }),
    rest_qps: Type.Number(),
    rest_qps_burst: Type.Number(),
    ws_max_subscriptions: Type.Number(),
    ws_max_depth: Type.Number(),
    history_max_age_days: Type.Number({ description: '0 = unlimited' }),
    venue_lookups_per_second: Type.Number({
      description: 'markets not in the catalogue asked of their exchange, refill per second; 0 = unlimited',
    }),
    venue_lookups_burst: Type.Number(),
  }),
  usage: Type.Object({
    monthly_requests: Type.Number(),
    ws_active_connections: Type.Number(),
    ws_active_subscriptions: Type.Number(),
  }),
});
export type UsageReport = Static<typeof UsageReport>;

/**
 * Where the WebSocket counts come from (the gateway's usage meter, or the cluster's totals with Redis); absent: no
 * WebSocket is served.
 */
export interface WsActivity {
  active(
    customerId: string,
  ): { connections: number; subscriptions: number } | Promise<{ connections: number; subscriptions: number }>;
}

export class UsageService {
  constructor(
    private readonly admission: AdmissionControl,
    private readonly ws?: WsActivity,
  ) {}

  async forPrincipal(principal: Principal, now: Date): Promise<UsageReport> {
    const period = billingPeriodOf(now);
    const l = principal.limits;
    const ws = (await this.ws?.active(principal.customerId)) ?? { connections: 0, subscriptions: 0 };
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
        venue_lookups_per_second: l.venueLookupsPerSecond,
        venue_lookups_burst: l.venueLookupsBurst,
      },
      usage: {
        monthly_requests: await this.admission.monthlyUsed(principal.keyId, period.id),
        ws_active_connections: ws.connections,
        ws_active_subscriptions: ws.subscriptions,
      },
    };
  }
}
