// GET /usage: the caller's own tier, limits and consumption.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { UsageReport, type UsageService } from '../../services/usage-service.js';
import { principalOf } from '../plugins/authenticate.js';
import { AUTHED_ERRORS } from '../schemas/common.js';

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
