// GET /exchanges: the runtime capability matrix of what this build serves.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ExchangeCapabilities } from '../../services/exchanges-service.js';
import { AUTHED_ERRORS } from '../schemas/common.js';

/** `matrix` is known once every route is registered (the app is ready); requests arrive only after that. */
export function exchangesRoutes(app: FastifyInstance, matrix: () => ExchangeCapabilities[]): void {
  app.get(
    '/exchanges',
    {
      schema: {
        summary: 'Capability matrix of the enabled exchanges',
        description:
          'A flag is true only when a public route of this server serves that capability for that exchange; ' +
          'a route of a false flag answers 501 not_supported.',
        tags: ['discovery'],
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { 200: Type.Array(ExchangeCapabilities), ...AUTHED_ERRORS },
      },
    },
    async () => matrix(),
  );
}
