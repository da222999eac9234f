// GET /exchanges: the runtime capability matrix of what this build serves.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ExchangeCapabilities } from '../../services/exchanges-service.js';
import { AUTHED_ERRORS } from '../schemas/common.js';

/**
 * `matrix` is known once every route is registered (the app is ready); requests arrive only after that. It never
 * changes afterwards, so it is serialized once and every request sends the same bytes.
 */
export function exchangesRoutes(app: FastifyInstance, matrix: () => ExchangeCapabilities[]): void {
  let body: Buffer | null = null;
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
    (_request, reply) => {
      body ??= Buffer.from(JSON.stringify(matrix()));
      return reply.type('application/json; charset=utf-8').send(body);
    },
  );
}
