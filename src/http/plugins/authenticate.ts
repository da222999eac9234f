// The /api/v1 guard: X-API-Key → principal (401 when missing, unknown or revoked), then admission control
// (429 with Retry-After), then the quota headers every authenticated response carries. Written in callback
// style with synchronous fast paths: on a warm cache a request passes without allocating a promise.
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { type BillingPeriod, billingPeriodOf } from '../../domain/billing-period.js';
import { AppError } from '../../errors/app-error.js';
import type { ImpersonationTarget } from '../../services/builder/impersonation.js';
import type { AdmissionControl, AdmitResult, BehalfResult } from '../../tenancy/admission/admission.js';
import type { ApiKeyService, AuthResult } from '../../tenancy/api-keys.js';
import type { Principal } from '../../tenancy/principal.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
    /** The builder's end-user this request acts as (X-Builder-Customer-Id), or null. */
    impersonated: ImpersonationTarget | null;
  }
  interface FastifyContextConfig {
    /** The route takes X-Builder-Customer-Id (the order endpoints). */
    impersonable?: boolean;
  }
}

export interface AuthDeps {
  keys: ApiKeyService;
  admission: AdmissionControl;
  impersonation: {
    resolve(builder: Principal, customerId: string): ImpersonationTarget | Promise<ImpersonationTarget>;
  };
}

const IMPERSONATION_HEADER = 'x-builder-customer-id';

const MAX_KEY_LENGTH = 512;

export function installAuthentication(app: FastifyInstance, deps: AuthDeps): void {
  // Recomputing the period per request costs a Date; refreshing it once a second keeps the hot path lean.
  let period: BillingPeriod = billingPeriodOf(new Date());
  let periodCheckedAt = 0;
  const currentPeriod = (nowMs: number): BillingPeriod => {
    if (nowMs - periodCheckedAt > 1000) {
      period = billingPeriodOf(new Date(nowMs));
      periodCheckedAt = nowMs;
    }
    return period;
  };

  const admitted = (
    reply: FastifyReply,
    request: FastifyRequest,
    principal: Principal,
    p: BillingPeriod,
    verdict: AdmitResult,
    done: HookHandlerDoneFunction,
  ) => {
    const error = applyVerdict(reply, principal, p, verdict);
    if (error) return done(error);
    request.principal = principal;
    done();
  };

  const authenticated = (
    request: FastifyRequest,
    reply: FastifyReply,
    auth: AuthResult,
    done: HookHandlerDoneFunction,
  ) => {
    if (!auth.ok) {
      return done(
        new AppError(
          'unauthorized',
          auth.reason === 'revoked' ? 'API key has been revoked' : 'invalid API key',
        ),
      );
    }
    const p = currentPeriod(Date.now());
    const asUser = request.headers[IMPERSONATION_HEADER];
    if (asUser !== undefined) return impersonating(request, reply, auth.principal, asUser, p, done);
    const verdict = deps.admission.admit(auth.principal, p.id);
    if (verdict instanceof Promise) {
      verdict.then((v) => admitted(reply, request, auth.principal, p, v, done), done);
    } else admitted(reply, request, auth.principal, p, verdict, done);
  };

  // A builder acting for its end-user: the end-user is checked first (403/404 before any token is spent), then the
  // request draws on the end-user's bucket and the builder's pool, and the builder's month.
  const impersonating = (
    request: FastifyRequest,
    reply: FastifyReply,
    builder: Principal,
    header: string | string[],
    p: BillingPeriod,
    done: HookHandlerDoneFunction,
  ) => {
    if (typeof header !== 'string' || header.length === 0 || header.length > 200) {
      return done(new AppError('validation_error', 'X-Builder-Customer-Id must be one customer id'));
    }
    if (request.routeOptions.config.impersonable !== true) {
      return done(
        new AppError('validation_error', 'X-Builder-Customer-Id applies to the order endpoints only', {
          validationErrors: ['headers.x-builder-customer-id is taken by /orders routes only'],
        }),
      );
    }
    const onTarget = (target: ImpersonationTarget) => {
      const verdict = deps.admission.admitOnBehalf(builder, target.behalf, p.id);
      const finish = (v: BehalfResult) => {
        const error = applyBehalfVerdict(reply, builder, target, p, v);
        if (error) return done(error);
        request.principal = builder;
        request.impersonated = target;
        done();
      };
      if (verdict instanceof Promise) verdict.then(finish, done);
      else finish(verdict);
    };
    let target: ImpersonationTarget | Promise<ImpersonationTarget>;
    try {
      target = deps.impersonation.resolve(builder, header);
    } catch (error) {
      return done(error as Error);
    }
    if (target instanceof Promise) target.then(onTarget, done);
    else onTarget(target);
  };

  app.addHook('onRequest', (request, reply, done) => {
    const presented = request.headers['x-api-key'];
    if (typeof presented !== 'string' || presented.length === 0) {
      return done(new AppError('unauthorized', 'missing X-API-Key header'));
    }
    if (presented.length > MAX_KEY_LENGTH) return done(new AppError('unauthorized', 'invalid API key'));
    const auth = deps.keys.authenticate(presented);
    if (auth instanceof Promise) auth.then((a) => authenticated(request, reply, a, done), done);
    else authenticated(request, reply, auth, done);
  });
}

/** Sets the quota headers; returns the 429 to answer when the request is not admitted. */
function applyVerdict(
  reply: FastifyReply,
  principal: Principal,
  p: BillingPeriod,
  verdict: AdmitResult,
): AppError | null {
  const { monthlyRequests } = principal.limits;
  const resetS = Math.floor(p.end.getTime() / 1000);
  reply.header('x-svc-tier', principal.tier);
  reply.header('x-ratelimit-monthly-limit', String(monthlyRequests));
  reply.header(
    'x-ratelimit-monthly-remaining',
    String(monthlyRequests === 0 ? 0 : Math.max(0, monthlyRequests - verdict.monthlyUsed)),
  );
  reply.header('x-ratelimit-monthly-reset', String(resetS));
  return admissionRefusal(principal, resetS, verdict);
}

/**
 * The 429 of a request admission control did not let through, or null. Also used by the MCP endpoint for a tool
 * call it answers without calling a route.
 */
export function admissionRefusal(
  principal: Principal,
  resetS: number,
  verdict: AdmitResult,
): AppError | null {
  const { monthlyRequests, restQps } = principal.limits;
  if (verdict.allowed) return null;
  if (verdict.reason === 'rate') {
    return new AppError('rate_limit_exceeded', `rate limit of ${restQps} requests/s exceeded`, {
      headers: { 'retry-after': String(retryAfterSeconds(verdict.retryAfterMs)) },
      extra: { tier: principal.tier, limit_qps: restQps },
    });
  }
  return new AppError('monthly_limit_exceeded', `monthly limit of ${monthlyRequests} requests reached`, {
    headers: { 'retry-after': String(Math.max(1, resetS - Math.floor(Date.now() / 1000))) },
    extra: { tier: principal.tier },
  });
}

/** The quota headers plus the impersonation headers (wire contract §1); the 429 when not admitted. */
function applyBehalfVerdict(
  reply: FastifyReply,
  builder: Principal,
  target: ImpersonationTarget,
  p: BillingPeriod,
  verdict: BehalfResult,
): AppError | null {
  const { user, pool } = target.behalf;
  if (!verdict.allowed && verdict.reason === 'monthly') return applyVerdict(reply, builder, p, verdict);
  if (!('userTokens' in verdict)) return null;
  reply.header('x-ratelimit-user-limit', String(user.rate));
  reply.header('x-ratelimit-user-remaining', String(Math.max(0, Math.floor(verdict.userTokens))));
  reply.header('x-ratelimit-pool-limit', String(pool.rate));
  reply.header('x-ratelimit-pool-remaining', String(Math.max(0, Math.floor(verdict.poolTokens))));
  if (verdict.allowed) {
    return applyVerdict(reply, builder, p, {
      allowed: true,
      monthlyUsed: verdict.monthlyUsed,
      tokensLeft: 0,
    });
  }
  applyVerdict(reply, builder, p, { allowed: true, monthlyUsed: verdict.monthlyUsed, tokensLeft: 0 });
  const limit = verdict.limit === 'user' ? user.rate : pool.rate;
  const what =
    verdict.limit === 'user'
      ? `end-user qps_limit of ${limit} requests/s`
      : `builder QPS pool of ${limit} requests/s`;
  return new AppError('rate_limit_exceeded', `${what} exceeded`, {
    headers: { 'retry-after': String(retryAfterSeconds(verdict.retryAfterMs)) },
    extra: { tier: builder.tier, limit_qps: limit },
  });
}

/** Whole seconds, at least 1 and at most a day, whatever the limiter computed. */
function retryAfterSeconds(ms: number): number {
  return Number.isFinite(ms) ? Math.min(86_400, Math.max(1, Math.ceil(ms / 1000))) : 86_400;
}

/** The principal of an authenticated route; the guard guarantees it is set. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('route reached without authentication');
  return request.principal;
}
