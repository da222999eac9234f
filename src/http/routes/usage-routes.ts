// GET /usage: the caller's own tier, limits and consumption.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { UsageService } from '../../services/usage-service.js';
import { principalOf } from '../plugins/authenticate.js';
import { AUTHED_ERRORS } from '../schemas/common.js';

const UsageReport = Type.Object({
  tier: Type.String(),
  billing_period_start: Type.String({ format: 'date-time' }),
  billing_period_end: Type.String({ format: 'date-time' }),
  limits: Type.Object({
    monthly_requests: Type.Number({ description: '0 = unlimited' }),
    rest_qps: Type.Number(),
    rest_qps_burst: Type.Number(),
    ws_max_subscriptions: Type.Number(),
    ws_max_depth: Type.Number(),
    history_max_age_days: Type.Number({ description: '0 = unlimited' }),
  }),
  usage: Type.Object({
    monthly_requests: Type.Number(),
    ws_active_connections: Type.Number(),
    ws_active_subscriptions: Type.Number(),
  }),
});

export function usageRoutes(app: FastifyInstance, usage: UsageService): void {
  app.get(
    '/usage',
    {
      schema: {
        summary: 'Your tier, limits and usage this billing period',
        tags: ['account'],
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { 200: UsageReport, ...AUTHED_ERRORS },
      },
    },
    async (request) => usage.forPrincipal(principalOf(request), new Date()),
  );
}
