// The caller context services receive from a route: request id, the request's logger, and the customer.
import type { FastifyRequest } from 'fastify';
import type { CallerContext } from '../../services/catalogue/markets-service.js';
import { principalOf } from '../plugins/authenticate.js';

export function callerOf(request: FastifyRequest): CallerContext {
  return { requestId: request.id, logger: request.log, tenant: principalOf(request).customerId };
}
