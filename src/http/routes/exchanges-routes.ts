// GET /exchanges: the runtime capability matrix.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { CAPABILITIES } from '../../domain/capabilities.js';
import type { ExchangesService } from '../../services/exchanges-service.js';
import { AUTHED_ERRORS } from '../schemas/common.js';

const Capabilities = Type.Object(
  Object.fromEntries(CAPABILITIES.map((c) => [c, Type.Boolean()])) as Record<
    (typeof CAPABILITIES)[number],
    ReturnType<typeof Type.Boolean>
  >,
  { additionalProperties: false },
);

const ExchangeCapabilities = Type.Object({
  id: Type.String(),
  name: Type.String(),
  has: Capabilities,
});

export function exchangesRoutes(app: FastifyInstance, exchanges: ExchangesService): void {
  app.get(
    '/exchanges',
    {
      schema: {
        summary: 'Capability matrix of the enabled exchanges',
        tags: ['discovery'],
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { 200: Type.Array(ExchangeCapabilities), ...AUTHED_ERRORS },
      },
    },
    async () => exchanges.list(),
  );
}
