// The builder routes (spec §4 builder endpoints, wire contract §5): builder keys only (403 for any other key); every
// route on an end-user checks that it is the calling builder's (403 otherwise, 404 for an id that exists nowhere).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  BuilderOnboardBody,
  BuilderOnboardResult,
  BuilderPool,
  BuilderUser,
  BuilderUsersPage,
  CreateBuilderUserBody,
  CustomerIdParams,
  EscrowConfig,
  ListBuilderUsersQuery,
  PatchBuilderUserBody,
} from '../../services/builder/builder-schema.js';
import type { BuilderService } from '../../services/builder/builder-service.js';
import { principalOf } from '../plugins/authenticate.js';
import { AUTHED_ERRORS, ErrorBody } from '../schemas/common.js';

const BUILDER_ERRORS = { ...AUTHED_ERRORS, 403: ErrorBody } as const;
const USER_ERRORS = { ...BUILDER_ERRORS, 404: ErrorBody } as const;
const NoQuery = Type.Object({}, { additionalProperties: false });

export function builderRoutes(app: FastifyInstance, builder: BuilderService): void {
  app.post<{ Body: CreateBuilderUserBody }>(
    '/builder/users',
    {
      schema: {
        summary: 'Create an end-user (idempotent on external_id)',
        description:
          'Creates the end-user with its own API key: 201. An active end-user of this builder with the same ' +
          'external_id is answered as it is: 200. qps_limit (default from configuration) must fit in the QPS pool: ' +
          'the sum of the active end-users’ qps_limit may not exceed qps_pool (409 conflict).',
        tags: ['builder'],
        body: CreateBuilderUserBody,
        response: { 200: BuilderUser, 201: BuilderUser, 409: ErrorBody, ...BUILDER_ERRORS },
      },
    },
    async (request, reply) => {
      const { created, user } = await builder.create(principalOf(request), request.body);
      return reply.code(created ? 201 : 200).send(user);
    },
  );

  app.get<{ Querystring: ListBuilderUsersQuery }>(
    '/builder/users',
    {
      schema: {
        summary: "The builder's end-users, oldest first",
        description:
          'Deactivated end-users are listed with status deactivated. next_cursor is omitted on the last page.',
        tags: ['builder'],
        querystring: ListBuilderUsersQuery,
        response: { 200: BuilderUsersPage, ...BUILDER_ERRORS },
      },
    },
    async (request) => builder.list(principalOf(request), request.query),
  );

  app.get<{ Params: { customer_id: string } }>(
    '/builder/users/:customer_id',
    {
      schema: {
        summary: 'One end-user',
        tags: ['builder'],
        params: CustomerIdParams,
        querystring: NoQuery,
        response: { 200: BuilderUser, ...USER_ERRORS },
      },
    },
    async (request) => builder.get(principalOf(request), request.params.customer_id),
  );

  app.patch<{ Params: { customer_id: string }; Body: PatchBuilderUserBody }>(
    '/builder/users/:customer_id',
    {
      schema: {
        summary: "Change an end-user's qps_limit",
        description:
          'qps_limit at least 1, and the pool must hold the new sum (409 conflict otherwise, or for a deactivated ' +
          'end-user). Takes effect on the next request.',
        tags: ['builder'],
        params: CustomerIdParams,
        body: PatchBuilderUserBody,
        response: { 200: BuilderUser, 409: ErrorBody, ...USER_ERRORS },
      },
    },
    async (request) =>
      builder.setQps(principalOf(request), request.params.customer_id, request.body.qps_limit),
  );

  app.delete<{ Params: { customer_id: string } }>(
    '/builder/users/:customer_id',
    {
      schema: {
        summary: 'Deactivate an end-user (irreversible)',
        description:
          "Revokes the end-user's API key at once and retires its wallets and credentials; impersonating it is " +
          'refused from then on. To trade again the person needs a new end-user (the external_id may be reused) and ' +
          'a new onboarding. 204 with no body, also when it was already deactivated.',
        tags: ['builder'],
        params: CustomerIdParams,
        querystring: NoQuery,
        response: { 204: Type.Null({ description: 'No body' }), ...USER_ERRORS },
      },
    },
    async (request, reply) => {
      await builder.deactivate(principalOf(request), request.params.customer_id);
      return reply.code(204).send();
    },
  );

  app.post<{ Body: BuilderOnboardBody }>(
    '/builder/onboard',
    {
      schema: {
        summary: 'Link one of your end-users to an exchange (managed or self)',
        description:
          'POST /onboard on behalf of the end-user `customer_id`: the same body and rules (managed: polymarket; self: ' +
          'the exchange credential fields), stored for the end-user. 409 for a deactivated end-user.',
        tags: ['builder'],
        body: BuilderOnboardBody,
        response: { 200: BuilderOnboardResult, 409: ErrorBody, 501: ErrorBody, ...USER_ERRORS },
      },
    },
    async (request) => builder.onboard(principalOf(request), accountCaller(request), request.body),
  );

  app.get(
    '/builder/pool',
    {
      schema: {
        summary: "The builder's QPS pool",
        tags: ['builder'],
        querystring: NoQuery,
        response: { 200: BuilderPool, ...BUILDER_ERRORS },
      },
    },
    async (request) => builder.pool(principalOf(request)),
  );

  app.get(
    '/builder/escrow/config',
    {
      schema: {
        summary: 'Fee escrow configuration of this builder',
        description:
          "The fee and shares of the builder's tier (Iron..Platinum) from the server's configuration; " +
          'escrow_contract_address is null and fee_escrow_enabled false while no FeeEscrow is deployed.',
        tags: ['builder'],
        querystring: NoQuery,
        response: { 200: EscrowConfig, ...BUILDER_ERRORS },
      },
    },
    async (request) => builder.escrowConfig(principalOf(request)),
  );
}

function accountCaller(request: FastifyRequest) {
  return { customerId: principalOf(request).customerId, requestId: request.id, logger: request.log };
}
