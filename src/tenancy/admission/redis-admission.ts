// Cluster-wide admission over Redis: one Lua script per request checks the month, takes a token and counts the
// request atomically, using Redis's own clock so every node shares one bucket per key. Counters are seeded
// from the database (Redis here keeps nothing on disk) and each node still flushes its own deltas there.
import type { Redis } from 'ioredis';
import { AppError } from '../../errors/app-error.js';
import type { UsageRepo } from '../../store/usage-repo.js';
import type { Principal } from '../principal.js';
import type { AdmissionControl, AdmitResult, BehalfResult, OnBehalf } from './admission.js';
import { UsageLedger } from './usage-ledger.js';

const MONTHLY_TTL_SECONDS = 40 * 24 * 3600;

// Returns {verdict (0 ok, 1 rate, 2 monthly), retryAfterMs, used, tokens}. Floats travel as strings because
// Redis truncates Lua numbers to integers in replies.
const ADMIT_SCRIPT = `
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local mlimit = tonumber(ARGV[3])
local used = tonumber(redis.call('GET', KEYS[2]) or '0')
if mlimit > 0 and used >= mlimit then return {2, 0, tostring(used), '0'} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local b = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(b[1])
local ts = tonumber(b[2])
if tokens == nil or ts == nil then tokens = burst; ts = now end
local elapsed = now - ts
if elapsed < 0 then elapsed = 0 end
tokens = math.min(burst, tokens + elapsed * rate / 1000)
local ttl = math.min(math.ceil(burst * 1000 / rate) + 1000, 3456000000)
if tokens < 1 then
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
  redis.call('PEXPIRE', KEYS[1], ttl)
  return {1, math.ceil((1 - tokens) * 1000 / rate), tostring(used), tostring(tokens)}
end
tokens = tokens - 1
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('PEXPIRE', KEYS[1], ttl)
used = redis.call('INCR', KEYS[2])
redis.call('EXPIRE', KEYS[2], ARGV[4])
return {0, 0, tostring(used), tostring(tokens)}
`;

// Builder impersonation: KEYS user bucket, pool bucket, the builder key's month. Both buckets are refilled, then
// either both give a token or neither does. Returns {verdict (0 ok, 1 user, 2 pool, 3 monthly), retryAfterMs, used,
// user tokens, pool tokens}.
const ADMIT_ON_BEHALF_SCRIPT = `
local mlimit = tonumber(ARGV[5])
local used = tonumber(redis.call('GET', KEYS[3]) or '0')
if mlimit > 0 and used >= mlimit then return {3, 0, tostring(used), '0', '0'} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local function refill(key, rate, burst)
  local b = redis.call('HMGET', key, 'tokens', 'ts')
  local tokens = tonumber(b[1])
  local ts = tonumber(b[2])
  if tokens == nil or ts == nil then tokens = burst; ts = now end
  local elapsed = now - ts
  if elapsed < 0 then elapsed = 0 end
  return math.min(burst, tokens + elapsed * rate / 1000)
end
local function store(key, tokens, rate, burst)
  redis.call('HSET', key, 'tokens', tostring(tokens), 'ts', tostring(now))
  redis.call('PEXPIRE', key, math.min(math.ceil(burst * 1000 / rate) + 1000, 3456000000))
end
local urate = tonumber(ARGV[1])
local uburst = tonumber(ARGV[2])
local prate = tonumber(ARGV[3])
local pburst = tonumber(ARGV[4])
local ut = refill(KEYS[1], urate, uburst)
local pt = refill(KEYS[2], prate, pburst)
local verdict = 0
local retry = 0
if ut < 1 then
  verdict = 1
  retry = math.ceil((1 - ut) * 1000 / urate)
elseif pt < 1 then
  verdict = 2
  retry = math.ceil((1 - pt) * 1000 / prate)
else
  ut = ut - 1
  pt = pt - 1
  used = redis.call('INCR', KEYS[3])
  redis.call('EXPIRE', KEYS[3], ARGV[6])
end
store(KEYS[1], ut, urate, uburst)
store(KEYS[2], pt, prate, pburst)
return {verdict, retry, tostring(used), tostring(ut), tostring(pt)}
`;

type AdmitReply = [number, number, string, string];
type BehalfReply = [number, number, string, string, string];

interface RedisWithAdmit extends Redis {
  omnibookAdmit(bucketKey: string, monthKey: string, ...args: Array<string | number>): Promise<AdmitReply>;
  omnibookAdmitOnBehalf(
    userKey: string,
    poolKey: string,
    monthKey: string,
    ...args: Array<string | number>
  ): Promise<BehalfReply>;
}

export class RedisAdmission implements AdmissionControl {
  readonly backend = 'redis' as const;
  private readonly ledger: UsageLedger;
  private readonly seeded = new Set<string>();
  private readonly redis: RedisWithAdmit;

  constructor(
    redis: Redis,
    repo: UsageRepo,
    private readonly namespace = 'omnibook',
  ) {
    redis.defineCommand('omnibookAdmit', { numberOfKeys: 2, lua: ADMIT_SCRIPT });
    redis.defineCommand('omnibookAdmitOnBehalf', { numberOfKeys: 3, lua: ADMIT_ON_BEHALF_SCRIPT });
    this.redis = redis as RedisWithAdmit;
    this.ledger = new UsageLedger(repo);
  }

  async admit(principal: Principal, periodId: string): Promise<AdmitResult> {
    const entry =
      this.ledger.peek(principal.keyId, periodId) ?? (await this.ledger.load(principal.keyId, periodId));
    const monthKey = this.monthKey(principal.keyId, periodId);
    try {
      if (!this.seeded.has(monthKey)) {
        await this.redis.set(monthKey, String(entry.base), 'EX', MONTHLY_TTL_SECONDS, 'NX');
        this.seeded.add(monthKey);
      }
      const { restQps, restQpsBurst, monthlyRequests } = principal.limits;
      const [verdict, retryAfterMs, used, tokens] = await this.redis.omnibookAdmit(
        this.bucketKey(principal.keyId),
        monthKey,
        restQps,
        restQpsBurst,
        monthlyRequests,
        MONTHLY_TTL_SECONDS,
      );
      const monthlyUsed = Number(used);
      if (verdict === 2) return { allowed: false, reason: 'monthly', monthlyUsed };
      if (verdict === 1)
        return { allowed: false, reason: 'rate', retryAfterMs: Number(retryAfterMs), monthlyUsed };
      this.ledger.count(entry);
      return { allowed: true, monthlyUsed, tokensLeft: Number(tokens) };
    } catch (error) {
      throw new AppError('service_unavailable', 'rate limiter unavailable', { cause: error });
    }
  }

  async admitOnBehalf(principal: Principal, behalf: OnBehalf, periodId: string): Promise<BehalfResult> {
    const entry =
      this.ledger.peek(principal.keyId, periodId) ?? (await this.ledger.load(principal.keyId, periodId));
    const monthKey = this.monthKey(principal.keyId, periodId);
    try {
      if (!this.seeded.has(monthKey)) {
        await this.redis.set(monthKey, String(entry.base), 'EX', MONTHLY_TTL_SECONDS, 'NX');
        this.seeded.add(monthKey);
      }
      const [verdict, retryAfterMs, used, user, pool] = await this.redis.omnibookAdmitOnBehalf(
        this.bucketKey(behalf.user.id),
        `${this.namespace}:pool:{${behalf.pool.id}}`,
        monthKey,
        behalf.user.rate,
        behalf.user.burst,
        behalf.pool.rate,
        behalf.pool.burst,
        principal.limits.monthlyRequests,
        MONTHLY_TTL_SECONDS,
      );
      const monthlyUsed = Number(used);
      if (verdict === 3) return { allowed: false, reason: 'monthly', monthlyUsed };
      const tokens = { userTokens: Number(user), poolTokens: Number(pool) };
      if (verdict === 1 || verdict === 2) {
        const limit = verdict === 1 ? ('user' as const) : ('pool' as const);
        return {
          allowed: false,
          reason: 'rate',
          limit,
          retryAfterMs: Number(retryAfterMs),
          monthlyUsed,
          ...tokens,
        };
      }
      this.ledger.count(entry);
      return { allowed: true, monthlyUsed, ...tokens };
    } catch (error) {
      throw new AppError('service_unavailable', 'rate limiter unavailable', { cause: error });
    }
  }

  async monthlyUsed(keyId: string, periodId: string): Promise<number> {
    const entry = await this.ledger.load(keyId, periodId);
    const raw = await this.redis.get(this.monthKey(keyId, periodId)).catch(() => null);
    return raw === null ? entry.base + entry.local : Number(raw);
  }

  flush(): Promise<void> {
    return this.ledger.flush();
  }

  async close(): Promise<void> {
    await this.flush();
  }

  private bucketKey(keyId: string): string {
    return `${this.namespace}:bucket:{${keyId}}`;
  }

  private monthKey(keyId: string, periodId: string): string {
    return `${this.namespace}:month:{${keyId}}:${periodId}`;
  }
}
