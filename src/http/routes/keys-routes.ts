// /keys: create, list and revoke API keys (admin tier). The clear key appears only in the creation response.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ApiKeyInfo } from '../../domain/api-key-info.js';
import {
  CreatedKey,
  CreateKeyBody,
  type KeysAdminService,
  RevokedKey,
} from '../../services/keys-admin-service.js';
import { principalOf } from '../plugins/authenticate.js';
import { AUTHED_ERRORS, ErrorBody } from '../schemas/common.js';

const ADMIN_ERRORS = { ...AUTHED_ERRORS, 403: ErrorBody } as const;

export function keysRoutes(app: FastifyInstance, admin: KeysAdminService): void {
  app.post<{ Body: CreateKeyBody }>(
    '/keys',
    {
      schema: {
        summary: 'Create an API key (admin tier)',
        description: 'The response is the only place the clear key ever appears; only its hash is stored.',
        tags: ['admin'],
        body: CreateKeyBody,
        response: { 201: CreatedKey, ...ADMIN_ERRORS },
      },
    },
    async (request, reply) => reply.code(201).send(await admin.create(principalOf(request), request.body)),
  );

  app.get(
    '/keys',
    {
      schema: {
        summary: 'List API keys (admin tier)',
        tags: ['admin'],
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { 200: Type.Array(ApiKeyInfo), ...ADMIN_ERRORS },
      },
    },
    async (request) => admin.list(principalOf(request)),
  );

  app.get(
    '/keys/self',
    {
      schema: {
        summary: "The calling key's own record (any tier)",
        description:
          'Tier, limits and flags of the key in X-API-Key, never the key itself; `omnibook mcp` reads `mcp_trading` here.',
        tags: ['admin'],
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { 200: ApiKeyInfo, ...AUTHED_ERRORS },
      },
    },
    async (request) => admin.self(principalOf(request)),
  );

  app.delete(
    '/keys/:key_id',
    {
      schema: {
        summary: 'Revoke an API key (admin tier)',
        tags: ['admin'],
        params: Type.Object({
          key_id: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$' }),
        }),
        querystring: Type.Object({}, { additionalProperties: false }),
        response: {
          200: RevokedKey,
          404: ErrorBody,
          409: ErrorBody,
          ...ADMIN_ERRORS,
        },
      },
    },
    async (request) => admin.revoke(principalOf(request), (request.params as { key_id: string }).key_id),
  );
}
