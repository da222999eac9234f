// API key lifecycle (create, list, revoke, ensure) and authentication of a presented key, with a short-lived
// in-memory cache so the hot path does not hit the database. The cache TTL bounds how late a revocation bites.

import type { ApiKeyInfo } from '../domain/api-key-info.js';
import { TIER_NAMES, TIERS, type TierName, withoutAdmin } from '../domain/tiers.js';
import { AppError } from '../errors/app-error.js';
import type { ApiKeyRow, ApiKeysRepo } from '../store/api-keys-repo.js';
import { digestsEqual, displayPrefix, generateApiKey, hashApiKey, randomId } from './key-material.js';
import type { Principal } from './principal.js';

export interface CreateKeyInput {
  name: string;
  tier: TierName;
  builder?: boolean;
  /** Overrides the tier's sustained requests per second. */
  qpsLimit?: number | undefined;
  /** Overrides the tier's burst; defaults to qpsLimit × the tier's burst/rate (at least 1) when qpsLimit is set. */
  burst?: number | undefined;
  customerId?: string | undefined;
  /** The MCP order tools (place_order, cancel_order) are enabled for this key; off by default. */
  mcpTrading?: boolean | undefined;
}

export type AuthResult = { ok: true; principal: Principal } | { ok: false; reason: 'unknown' | 'revoked' };

interface CacheEntry {
  result: AuthResult;
  expiresAt: number;
}

const MAX_CACHE_ENTRIES = 50_000;
const MIN_QPS = 0.001;
const MAX_RATE = 1e9;

export class ApiKeyService {
  private readonly cache = new Map<string, CacheEntry>();

  constructor(
    private readonly repo: ApiKeysRepo,
    private readonly cacheTtlMs: number,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async create(input: CreateKeyInput): Promise<{ key: string; info: ApiKeyInfo }> {
    const key = generateApiKey();
    const info = await this.insert(key, input);
    return { key, info };
  }

  /**
   * Makes sure a key with exactly this value exists, unrevoked, at the given tier (OMNIBOOK_ADMIN_KEY).
   * Idempotent, so every node of a cluster may call it at start.
   */
  async ensure(key: string, input: CreateKeyInput): Promise<ApiKeyInfo> {
    const existing = await this.repo.findByHash(hashApiKey(key));
    if (!existing) {
      try {
        return await this.insert(key, input);
      } catch (error) {
        // Another node inserted it between our read and write: fall through to the update below.
        const raced = await this.repo.findByHash(hashApiKey(key));
        if (!raced) throw error;
        await this.repo.restore(raced.id, input.tier);
        return toInfo({ ...raced, tier: input.tier, revoked_at: null });
      }
    }
    if (existing.revoked_at !== null || existing.tier !== input.tier) {
      await this.repo.restore(existing.id, input.tier);
    }
    this.cache.clear();
    return toInfo({ ...existing, tier: input.tier, revoked_at: null });
  }

  /** One key as an administrator sees it (GET /keys/self answers the caller's own); null when there is none. */
  async info(id: string): Promise<ApiKeyInfo | null> {
    const row = await this.repo.findById(id);
    return row ? toInfo(row) : null;
  }

  async list(): Promise<ApiKeyInfo[]> {
    return (await this.repo.list()).map(toInfo);
  }

  async revoke(id: string): Promise<boolean> {
    const done = await this.repo.revoke(id, this.now().toISOString());
    this.cache.clear();
    return done;
  }

  /** Synchronous on a cache hit, so the request hot path costs no promise. */
  authenticate(presented: string): AuthResult | Promise<AuthResult> {
    const now = this.now().getTime();
    // Keyed by the presented value so a cache hit costs no hashing; the map lives only in this process's memory.
    const cached = this.cache.get(presented);
    if (cached && cached.expiresAt > now) return cached.result;
    return this.lookup(presented, now);
  }

  private async lookup(presented: string, now: number): Promise<AuthResult> {
    const digest = hashApiKey(presented);
    const row = await this.repo.findByHash(digest);
    let result: AuthResult;
    if (!row || !digestsEqual(row.key_hash, digest)) result = { ok: false, reason: 'unknown' };
    else if (row.revoked_at !== null) result = { ok: false, reason: 'revoked' };
    else result = { ok: true, principal: toPrincipal(row) };
    if (this.cacheTtlMs > 0) {
      if (this.cache.size >= MAX_CACHE_ENTRIES) this.cache.clear();
      this.cache.set(presented, { result, expiresAt: now + this.cacheTtlMs });
    }
    return result;
  }

  /**
   * A new key and the row that stores it, not yet inserted: the builder program inserts it in the same transaction
   * as the end-user it belongs to.
   */
  prepare(input: CreateKeyInput): { key: string; row: ApiKeyRow } {
    const key = generateApiKey();
    return { key, row: this.rowFor(key, input) };
  }

  /** Which of these key ids exist and are not revoked (read from the database, never the cache). */
  activeIds(ids: readonly string[]): Promise<Set<string>> {
    return this.repo.activeIds(ids);
  }

  /**
   * Drops every cached verdict (after a key was revoked or its limits changed elsewhere), so the next request of any
   * key is checked against the database again.
   */
  forget(): void {
    this.cache.clear();
  }

  private async insert(key: string, input: CreateKeyInput): Promise<ApiKeyInfo> {
    const row = this.rowFor(key, input);
    await this.repo.insert(row);
    return toInfo(row);
  }

  private rowFor(key: string, input: CreateKeyInput): ApiKeyRow {
    // A builder creates end-user keys at its own tier: an admin builder could mint admin keys through them.
    if (input.builder && input.tier === 'admin') {
      throw new AppError('validation_error', 'a builder key cannot be admin tier (use scale or lower)', {
        validationErrors: ['body.builder: a builder key cannot have tier admin'],
      });
    }
    // Bounds keep the limiter's arithmetic finite (Retry-After, Redis key lifetimes) for any accepted key.
    if (input.qpsLimit !== undefined && !(input.qpsLimit >= MIN_QPS && input.qpsLimit <= MAX_RATE)) {
      throw new AppError('validation_error', `qps limit must be between ${MIN_QPS} and ${MAX_RATE}`);
    }
    if (input.burst !== undefined && !(input.burst >= 1 && input.burst <= MAX_RATE)) {
      throw new AppError('validation_error', `burst must be between 1 and ${MAX_RATE}`);
    }
    const row: ApiKeyRow = {
      id: randomId('key'),
      key_hash: hashApiKey(key),
      prefix: displayPrefix(key),
      name: input.name,
      tier: input.tier,
      is_builder: input.builder ? 1 : 0,
      customer_id: input.customerId ?? randomId('cus'),
      qps_limit: input.qpsLimit ?? null,
      burst: input.burst ?? null,
      created_at: this.now().toISOString(),
      revoked_at: null,
      mcp_trading: input.mcpTrading ? 1 : 0,
    };
    return row;
  }
}

function toInfo(row: ApiKeyRow): ApiKeyInfo {
  return {
    id: row.id,
    prefix: row.prefix,
    name: row.name,
    tier: row.tier as TierName,
    builder: row.is_builder === 1,
    customer_id: row.customer_id,
    qps_limit: row.qps_limit,
    burst: row.burst,
    created_at: row.created_at,
    revoked_at: row.revoked_at,
    mcp_trading: row.mcp_trading === 1,
  };
}

export function toPrincipal(row: ApiKeyRow): Principal {
  const stored = (TIER_NAMES as readonly string[]).includes(row.tier) ? (row.tier as TierName) : 'free';
  // A builder row stored admin before that was refused (migration 0010 demotes them too) still never acts as admin.
  const tier = row.is_builder === 1 ? withoutAdmin(stored) : stored;
  const base = TIERS[tier];
  const restQps = row.qps_limit ?? base.restQps;
  // A qps_limit scales the tier's burst with it (burst/rate of the tier, at least one request). It used to be
  // max(qps_limit, tier burst): 500 builder end-users at 1 QPS could then burst 400 each against a 500 QPS pool.
  const restQpsBurst =
    row.burst ??
    (row.qps_limit !== null
      ? Math.max(1, row.qps_limit * (base.restQpsBurst / base.restQps))
      : base.restQpsBurst);
  return {
    keyId: row.id,
    customerId: row.customer_id,
    tier,
    isBuilder: row.is_builder === 1,
    mcpTrading: row.mcp_trading === 1,
    limits: { ...base, restQps, restQpsBurst },
  };
}
