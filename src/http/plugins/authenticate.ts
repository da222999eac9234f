// The /api/v1 guard: X-API-Key → principal (401 when missing, unknown or revoked), then admission control
// (429 with Retry-After), then the quota headers every authenticated response carries.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type BillingPeriod, billingPeriodOf } from '../../domain/billing-period.js';
import { AppError } from '../../errors/app-error.js';
import type { AdmissionControl } from '../../tenancy/admission/admission.js';
import type { ApiKeyService } from '../../tenancy/api-keys.js';
import type { Principal } from '../../tenancy/principal.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export interface AuthDeps {
  keys: ApiKeyService;
  admission: AdmissionControl;
}

export function installAuthentication(app: FastifyInstance, deps: AuthDeps): void {
  // Recomputing the period per request costs a Date; caching it per second keeps the hot path lean.
  let period: BillingPeriod = billingPeriodOf(new Date());
  let periodCheckedAt = 0;
  const currentPeriod = (nowMs: number): BillingPeriod => {
    if (nowMs - periodCheckedAt > 1000) {
      period = billingPeriodOf(new Date(nowMs));
      periodCheckedAt = nowMs;
    }
    return period;
  };

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const presented = request.headers['x-api-key'];
    if (typeof presented !== 'string' || presented.length === 0) {
      throw new AppError('unauthorized', 'missing X-API-Key header');
    }
    if (presented.length > 512) throw new AppError('unauthorized', 'invalid API key');
    const auth = await deps.keys.authenticate(presented);
    if (!auth.ok) {
      throw new AppError(
        'unauthorized',
        auth.reason === 'revoked' ? 'API key has been revoked' : 'invalid API key',
      );
    }
    const principal = auth.principal;
    const p = currentPeriod(Date.now());
    const verdict = await deps.admission.admit(principal, p.id);
    const monthlyLimit = principal.limits.monthlyRequests;
    const resetS = Math.floor(p.end.getTime() / 1000);
    reply.header('x-svc-tier', principal.tier);
    reply.header('x-ratelimit-monthly-limit', String(monthlyLimit));
    reply.header(
      'x-ratelimit-monthly-remaining',
      String(monthlyLimit === 0 ? 0 : Math.max(0, monthlyLimit - verdict.monthlyUsed)),
    );
    reply.header('x-ratelimit-monthly-reset', String(resetS));
    reply.header('x-ratelimit-limit', String(principal.limits.restQps));
    if (!verdict.allowed) {
      if (verdict.reason === 'rate') {
        reply.header('x-ratelimit-remaining', '0');
        throw new AppError(
          'rate_limit_exceeded',
          `rate limit of ${principal.limits.restQps} requests/s exceeded`,
          {
            headers: { 'retry-after': String(Math.max(1, Math.ceil(verdict.retryAfterMs / 1000))) },
            extra: { tier: principal.tier, limit_qps: principal.limits.restQps },
          },
        );
      }
      throw new AppError('monthly_limit_exceeded', `monthly limit of ${monthlyLimit} requests reached`, {
        headers: { 'retry-after': String(Math.max(1, resetS - Math.floor(Date.now() / 1000))) },
        extra: { tier: principal.tier },
      });
    }
    reply.header('x-ratelimit-remaining', String(Math.floor(verdict.tokensLeft)));
    request.principal = principal;
  });
}

/** The principal of an authenticated route; the guard guarantees it is set. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('route reached without authentication');
  return request.principal;
}
