// The caller context services receive from a route: request id, the request's logger, and the customer.
import type { FastifyRequest } from 'fastify';
import type { CallerContext } from '../../services/caller-context.js';
import { principalOf } from '../plugins/authenticate.js';

export function callerOf(request: FastifyRequest): CallerContext {
  const principal = principalOf(request);
  return {
    requestId: request.id,
    logger: request.log,
    tenant: principal.customerId,
    historyMaxAgeDays: principal.limits.historyMaxAgeDays,
  };
}
