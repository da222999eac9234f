// Unauthenticated operational routes at the root: /healthz, /metrics, /openapi.json.
import type { FastifyInstance } from 'fastify';
import { HealthReport, type HealthService } from '../../services/health-service.js';
import type { HttpMetrics } from '../plugins/metrics.js';

export function systemRoutes(app: FastifyInstance, health: HealthService, metrics: HttpMetrics): void {
  app.get(
    '/healthz',
    {
      schema: {
        summary: 'Health of the database, background jobs and venues (no key needed)',
        description: '503 when the database is down; `degraded` when a background job is.',
        tags: ['operations'],
        security: [],
        response: { 200: HealthReport, 503: HealthReport },
      },
    },
    async (_request, reply) => {
      const report = await health.report();
      return reply.code(report.status === 'down' ? 503 : 200).send(report);
    },
  );
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    return reply.type(metrics.contentType).send(await metrics.render());
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
