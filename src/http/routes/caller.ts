// The caller context services receive from a route: request id, the request's logger, and the customer.
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../errors/app-error.js';
import type { CallerContext } from '../../services/caller-context.js';
import type { TradingCaller } from '../../services/trading/trading-caller.js';
import { principalOf } from '../plugins/authenticate.js';

export function callerOf(request: FastifyRequest): CallerContext {
  const principal = principalOf(request);
  return {
    requestId: request.id,
    logger: request.log,
    tenant: principal.customerId,
    historyMaxAgeDays: principal.limits.historyMaxAgeDays,
    venueLookups: principal.limits,
  };
}

/** The caller of a trading route: per-request credentials from the header or body, or the impersonated end-user. */
export function tradingCaller(request: FastifyRequest, body?: unknown): TradingCaller {
  const caller = callerOf(request);
  const header = request.headers['x-exchange-credentials'];
  const impersonated = request.impersonated;
  if (impersonated && (header !== undefined || body !== undefined)) {
    // The end-user's own stored or managed credentials, or the caller's per-request ones: never a mix.
    throw new AppError(
      'validation_error',
      "X-Builder-Customer-Id trades with the end-user's stored or managed credentials; send no per-request credentials with it",
    );
  }
  return {
    ...caller,
    tenant: impersonated ? impersonated.customerId : (caller.tenant ?? ''),
    credentialsHeader: typeof header === 'string' ? header : undefined,
    credentialsBody: body,
  };
}
