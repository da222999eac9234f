// API key administration over HTTP for admin-tier keys (the CLI does the same locally). Other tiers get 403.
import { type Static, Type } from 'typebox';
import { ApiKeyInfo } from '../domain/api-key-info.js';
import { TIER_NAMES } from '../domain/tiers.js';
import { AppError } from '../errors/app-error.js';
import type { ApiKeyService } from '../tenancy/api-keys.js';
import type { Principal } from '../tenancy/principal.js';

export const CreateKeyBody = Type.Object(
  {
    tier: Type.Enum(TIER_NAMES),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    builder: Type.Optional(Type.Boolean({ default: false })),
    qps_limit: Type.Optional(Type.Number({ minimum: 0.001, maximum: 1e9 })),
    burst: Type.Optional(Type.Number({ minimum: 1, maximum: 1e9 })),
    mcp_trading: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Enable the MCP order tools (place_order, cancel_order) for this key; read tools are always on',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateKeyBody = Static<typeof CreateKeyBody>;

/** The creation response: the only place the clear key ever appears. */
export const CreatedKey = Type.Object({ ...ApiKeyInfo.properties, key: Type.String() });
export type CreatedKey = Static<typeof CreatedKey>;

export const RevokedKey = Type.Object({ id: Type.String(), revoked: Type.Literal(true) });
export type RevokedKey = Static<typeof RevokedKey>;

export class KeysAdminService {
  /** `revoked` runs after a revocation, so every node drops the key at once (caches, open WebSockets). */
  constructor(
    private readonly keys: ApiKeyService,
    private readonly revoked: () => void,
  ) {}

  async create(caller: Principal, body: CreateKeyBody): Promise<CreatedKey> {
    assertAdmin(caller);
    const { key, info } = await this.keys.create({
      tier: body.tier,
      name: body.name ?? `${body.tier} key`,
      builder: body.builder ?? false,
      qpsLimit: body.qps_limit,
      burst: body.burst,
      mcpTrading: body.mcp_trading ?? false,
    });
    return { ...info, key };
  }

  /** The caller's own key, for any tier: what a client (the MCP server) may do with it. */
  async self(caller: Principal): Promise<ApiKeyInfo> {
    const info = await this.keys.info(caller.keyId);
    if (!info) throw new AppError('unauthorized', 'API key has been revoked');
    return info;
  }

  async list(caller: Principal): Promise<ApiKeyInfo[]> {
    assertAdmin(caller);
    return this.keys.list();
  }

  async revoke(caller: Principal, id: string): Promise<RevokedKey> {
    assertAdmin(caller);
    if (id === caller.keyId) throw new AppError('conflict', 'a key cannot revoke itself');
    if (!(await this.keys.revoke(id))) throw new AppError('not_found', `no active key with id '${id}'`);
    this.revoked();
    return { id, revoked: true };
  }
}

function assertAdmin(caller: Principal): void {
  if (caller.tier !== 'admin') throw new AppError('forbidden', 'key administration needs an admin-tier key');
}
