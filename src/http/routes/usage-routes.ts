// GET /usage: the caller's own tier, limits and consumption; GET /ws/usage: WebSocket usage (own, or everyone's).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { UsageReport, type UsageService } from '../../services/usage-service.js';
import { WsUsageQuery, WsUsageReport, type WsUsageView } from '../../services/ws-usage.js';
import { principalOf } from '../plugins/authenticate.js';
import { AUTHED_ERRORS, ErrorBody } from '../schemas/common.js';

export function usageRoutes(app: FastifyInstance, usage: UsageService, wsUsage?: WsUsageView): void {
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

  if (!wsUsage) return;
  app.get<{ Querystring: WsUsageQuery }>(
    '/ws/usage',
    {
      schema: {
        summary: 'WebSocket usage: connections, subscriptions, messages and bytes sent, top markets',
        description:
          "scope=self (default): your customer's counters. scope=global (admin tier, else 403): everyone's, with " +
          "the top `limit` customers. Without Redis the counters are this server process's since it started; with " +
          "REDIS_URL they are the whole cluster's (totals kept in Redis; another node's latest changes show within " +
          'its flush period, websocket.usageFlushMs).',
        tags: ['account'],
        querystring: WsUsageQuery,
        response: { 200: WsUsageReport, ...AUTHED_ERRORS, 403: ErrorBody },
      },
    },
    async (request) => wsUsage.report(principalOf(request), request.query),
  );
}
