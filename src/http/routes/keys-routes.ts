// /keys: create, list and revoke API keys (admin tier). The clear key appears only in the creation response.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { TIER_NAMES, type TierName } from '../../domain/tiers.js';
import type { KeysAdminService } from '../../services/keys-admin-service.js';
import { principalOf } from '../plugins/authenticate.js';
import { AUTHED_ERRORS, ErrorBody } from '../schemas/common.js';

const KeyInfo = Type.Object({
  id: Type.String(),
  prefix: Type.String({ description: 'The first characters of the key, for recognising it' }),
  name: Type.String(),
  tier: Type.String(),
  builder: Type.Boolean(),
  customer_id: Type.String(),
  qps_limit: Type.Union([Type.Number(), Type.Null()]),
  burst: Type.Union([Type.Number(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  revoked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

const CreateKeyBody = Type.Object(
  {
    tier: Type.Enum(TIER_NAMES),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    builder: Type.Optional(Type.Boolean({ default: false })),
    qps_limit: Type.Optional(Type.Number({ minimum: 0.001, maximum: 1e9 })),
    burst: Type.Optional(Type.Number({ minimum: 1, maximum: 1e9 })),
  },
  { additionalProperties: false },
);

const ADMIN_ERRORS = { ...AUTHED_ERRORS, 403: ErrorBody } as const;

export function keysRoutes(app: FastifyInstance, admin: KeysAdminService): void {
  app.post(
    '/keys',
    {
      schema: {
        summary: 'Create an API key (admin tier)',
        description: 'The response is the only place the clear key ever appears; only its hash is stored.',
        tags: ['admin'],
        body: CreateKeyBody,
        response: { 201: Type.Intersect([KeyInfo, Type.Object({ key: Type.String() })]), ...ADMIN_ERRORS },
      },
    },
    async (request, reply) => {
      const body = request.body as {
        tier: TierName;
        name?: string;
        builder?: boolean;
        qps_limit?: number;
        burst?: number;
      };
      const created = await admin.create(principalOf(request), {
        tier: body.tier,
        name: body.name ?? `${body.tier} key`,
        builder: body.builder ?? false,
        qpsLimit: body.qps_limit,
        burst: body.burst,
      });
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/keys',
    {
      schema: {
        summary: 'List API keys (admin tier)',
        tags: ['admin'],
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { 200: Type.Array(KeyInfo), ...ADMIN_ERRORS },
      },
    },
    async (request) => admin.list(principalOf(request)),
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
          200: Type.Object({ id: Type.String(), revoked: Type.Boolean() }),
          404: ErrorBody,
          409: ErrorBody,
          ...ADMIN_ERRORS,
        },
      },
    },
    async (request) => admin.revoke(principalOf(request), (request.params as { key_id: string }).key_id),
  );
}
