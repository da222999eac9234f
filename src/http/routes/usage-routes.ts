// GET /usage: the caller's own tier, limits and consumption; GET /ws/usage: WebSocket usage (own, or everyone's).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { UsageReport, type UsageService } from '../../services/usage-service.js';
import { type WsUsage, WsUsageQuery, WsUsageReport } from '../../services/ws-usage.js';
import { principalOf } from '../plugins/authenticate.js';
import { AUTHED_ERRORS, ErrorBody } from '../schemas/common.js';

export function usageRoutes(app: FastifyInstance, usage: UsageService, wsUsage?: WsUsage): void {
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
          'the top `limit` customers. Counters are those of this server process since it started.',
        tags: ['account'],
        querystring: WsUsageQuery,
        response: { 200: WsUsageReport, ...AUTHED_ERRORS, 403: ErrorBody },
      },
    },
    async (request) => wsUsage.report(principalOf(request), request.query),
  );
}
