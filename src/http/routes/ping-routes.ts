// GET /ping: per exchange reachability and whether the caller's credentials authenticate.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { PingResult, type PingService } from '../../services/ping-service.js';
import { principalOf } from '../plugins/authenticate.js';
import { AUTHED_ERRORS, ErrorBody, ExchangeIdParam } from '../schemas/common.js';

export function pingRoutes(app: FastifyInstance, ping: PingService): void {
  app.get(
    '/ping',
    {
      schema: {
        summary: 'Check exchange connectivity and credentials',
        description:
          'Without `exchange`, every enabled exchange is checked. With `X-Exchange-Credentials` (and `exchange`), ' +
          'the credentials are tried without being stored.',
        tags: ['discovery'],
        querystring: Type.Object(
          { exchange: Type.Optional(ExchangeIdParam) },
          { additionalProperties: false },
        ),
        response: { 200: Type.Array(PingResult), 404: ErrorBody, ...AUTHED_ERRORS },
      },
    },
    async (request) => {
      const header = request.headers['x-exchange-credentials'];
      return ping.ping({
        exchange: (request.query as { exchange?: string }).exchange,
        credentialsHeader: typeof header === 'string' ? header : undefined,
        requestId: request.id,
        logger: request.log,
        tenant: principalOf(request).customerId,
      });
    },
  );
}
