// Cluster-wide admission over Redis: one Lua script per request checks the month, takes a token and counts the
// request atomically, using Redis's own clock so every node shares one bucket per key. Counters are seeded
// from the database (Redis here keeps nothing on disk) and each node still flushes its own deltas there.
import type { Redis } from 'ioredis';
import { AppError } from '../../errors/app-error.js';
import type { UsageRepo } from '../../store/usage-repo.js';
import type { Principal } from '../principal.js';
import type { AdmissionControl, AdmitResult } from './admission.js';
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

type AdmitReply = [number, number, string, string];

interface RedisWithAdmit extends Redis {
  omnibookAdmit(bucketKey: string, monthKey: string, ...args: Array<string | number>): Promise<AdmitReply>;
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
        `${this.namespace}:bucket:{${principal.keyId}}`,
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

  private monthKey(keyId: string, periodId: string): string {
    return `${this.namespace}:month:{${keyId}}:${periodId}`;
  }
}
