// API key administration over HTTP for admin-tier keys (the CLI does the same locally). Other tiers get 403.
import { AppError } from '../errors/app-error.js';
import type { ApiKeyInfo, ApiKeyService, CreateKeyInput } from '../tenancy/api-keys.js';
import type { Principal } from '../tenancy/principal.js';

export class KeysAdminService {
  constructor(private readonly keys: ApiKeyService) {}

  async create(caller: Principal, input: CreateKeyInput): Promise<ApiKeyInfo & { key: string }> {
    assertAdmin(caller);
    const { key, info } = await this.keys.create(input);
    return { ...info, key };
  }

  async list(caller: Principal): Promise<ApiKeyInfo[]> {
    assertAdmin(caller);
    return this.keys.list();
  }

  async revoke(caller: Principal, id: string): Promise<{ id: string; revoked: true }> {
    assertAdmin(caller);
    if (id === caller.keyId) throw new AppError('conflict', 'a key cannot revoke itself');
    if (!(await this.keys.revoke(id))) throw new AppError('not_found', `no active key with id '${id}'`);
    return { id, revoked: true };
  }
}

function assertAdmin(caller: Principal): void {
  if (caller.tier !== 'admin') throw new AppError('forbidden', 'key administration needs an admin-tier key');
}
