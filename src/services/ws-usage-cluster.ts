// WebSocket usage across every node that shares one Redis. Each node meters its own sockets in-process (WsUsage: the
// hot path never waits on Redis) and, every `flushMs` and once more at shutdown, adds what changed since its last
// flush to the cluster's counters in one MULTI:
//   <p>:ws:totals                 hash   cumulative totals (HINCRBY)
//   <p>:ws:customers              set    customers that ever had a connection
//   <p>:ws:customer:<id>          hash   a customer's cumulative totals
//   <p>:ws:markets[:<id>]         zset   subscriptions ever opened per svc_id (everyone's, a customer's)
//   <p>:ws:nodes                  set    nodes that published live counts
//   <p>:ws:live:<node>            hash   that node's open connections and subscriptions, whole and per customer,
//                                        rewritten on every flush and expiring after `liveTtlMs` (a dead node's live
//                                        counts vanish; its cumulative totals stay)
// A report adds the reading node's own not-yet-flushed changes and its current live counts to what Redis holds, so a
// node always sees its own sockets at once and another node's within one flush period. A failed flush keeps its
// changes for the next one (they are diffed against the last snapshot that reached Redis).
import type { Redis } from 'ioredis';
import type { BackgroundJob, JobState } from '../domain/background-job.js';
import { ownValue } from '../domain/own-key.js';
import { AppError } from '../errors/app-error.js';
import type { Principal } from '../tenancy/principal.js';
import type { LoggerLike } from '../venues/port.js';
import {
  type Account,
  buildWsUsageReport,
  CUMULATIVE_FIELDS,
  newAccount,
  type UsageAccounts,
  WS_USAGE_LIMIT_DEFAULT,
  type WsUsage,
  type WsUsageQuery,
  type WsUsageReport,
  type WsUsageView,
} from './ws-usage.js';

export interface ClusterWsUsageOptions {
  redis: Redis;
  local: WsUsage;
  /** Key prefix (config.redisPrefix). */
  prefix: string;
  /** This process's id in the cluster (unique per start). */
  nodeId: string;
  flushMs: number;
  logger: LoggerLike;
  now?: () => number;
}

const CONN = 'connections';
const SUBS = 'subscriptions';

export class ClusterWsUsage implements WsUsageView, BackgroundJob {
  readonly name = 'ws-usage-sync';
  private readonly redis: Redis;
  private readonly local: WsUsage;
  private readonly keys: ReturnType<typeof keysOf>;
  private readonly liveTtlMs: number;
  private readonly now: () => number;
  /** The counters as they stood at the last flush that reached Redis. */
  private flushed: UsageAccounts = { global: newAccount(), customers: new Map() };
  private flushing: Promise<void> | null = null;
  /**
   * Reports between taking this node's unflushed changes and reading Redis. A flush waits for them: one landing in
   * that window would put the same changes in Redis and in the report's own part, counting them twice.
   */
  private reading: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private current: JobState = { name: this.name, health: 'starting', last_run_at: null, last_error: null };

  constructor(private readonly options: ClusterWsUsageOptions) {
    this.redis = options.redis;
    this.local = options.local;
    this.keys = keysOf(options.prefix);
    this.liveTtlMs = Math.max(10 * options.flushMs, 2_000);
    this.now = options.now ?? Date.now;
  }

  start(): void {
    if (this.timer) return;
    this.current = { ...this.current, health: 'running' };
    this.timer = setInterval(() => void this.flush().catch(() => undefined), this.options.flushMs);
    this.timer.unref();
  }

  /** Flushes what is left and withdraws this node's live counts (its sockets are closed by now). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    try {
      await this.flush();
      await this.redis
        .multi()
        .del(this.keys.live(this.options.nodeId))
        .srem(this.keys.nodes, this.options.nodeId)
        .exec();
    } catch (error) {
      this.options.logger.warn({ err: error }, 'final WebSocket usage flush failed');
    }
    this.current = { ...this.current, health: 'stopped' };
  }

  state(): JobState {
    return this.current;
  }

  /** Adds this node's changes since the last flush to the cluster's counters (one at a time). */
  flush(): Promise<void> {
    this.flushing ??= this.reading
      .then(() => this.flushOnce())
      .finally(() => {
        this.flushing = null;
      });
    return this.flushing;
  }

  private async flushOnce(): Promise<void> {
    const snapshot = this.local.snapshot();
    const k = this.keys;
    const node = this.options.nodeId;
    const tx = this.redis.multi();
    addDelta(tx, k.totals, k.markets, snapshot.global, this.flushed.global);
    for (const [id, account] of snapshot.customers) {
      const before = this.flushed.customers.get(id);
      if (!before) tx.sadd(k.customers, id);
      addDelta(tx, k.customer(id), k.customerMarkets(id), account, before ?? newAccount());
    }
    const live: Array<string | number> = [
      CONN,
      snapshot.global.totals.active_connections,
      SUBS,
      snapshot.global.totals.active_subscriptions,
    ];
    for (const [id, a] of snapshot.customers) {
      if (a.totals.active_connections === 0 && a.totals.active_subscriptions === 0) continue;
      live.push(`${CONN}:${id}`, a.totals.active_connections, `${SUBS}:${id}`, a.totals.active_subscriptions);
    }
    tx.del(k.live(node))
      .hset(k.live(node), ...live)
      .pexpire(k.live(node), this.liveTtlMs)
      .sadd(k.nodes, node);
    try {
      const results = await tx.exec();
      const failed = results?.find(([error]) => error);
      if (!results || failed) throw failed?.[0] ?? new Error('the transaction was discarded');
      this.flushed = snapshot;
      this.current = {
        ...this.current,
        health: this.timer ? 'running' : this.current.health,
        last_run_at: new Date(this.now()).toISOString(),
        last_error: null,
      };
    } catch (error) {
      this.current = { ...this.current, health: 'degraded', last_error: (error as Error).message };
      throw error;
    }
  }

  async active(customerId: string): Promise<{ connections: number; subscriptions: number }> {
    const mine = this.local.active(customerId);
    const others = await this.othersActive(customerId);
    return {
      connections: mine.connections + others.connections,
      subscriptions: mine.subscriptions + others.subscriptions,
    };
  }

  /** The customer's subscriptions on other nodes (the cluster-wide tier cap: subscription-quota.ts). */
  async elsewhere(customerId: string): Promise<number> {
    return (await this.othersActive(customerId)).subscriptions;
  }

  /** Open sockets and subscriptions of one customer on the other nodes, as they last published them. */
  private async othersActive(customerId: string): Promise<{ connections: number; subscriptions: number }> {
    const others = await this.otherNodes();
    const tx = this.redis.multi();
    for (const node of others)
      tx.hmget(this.keys.live(node), `${CONN}:${customerId}`, `${SUBS}:${customerId}`);
    const rows = await this.exec(tx);
    let connections = 0;
    let subscriptions = 0;
    for (const row of rows) {
      const [c, s] = row as Array<string | null>;
      connections += Number(c ?? 0);
      subscriptions += Number(s ?? 0);
    }
    return { connections, subscriptions };
  }

  async report(principal: Principal, query: WsUsageQuery): Promise<WsUsageReport> {
    const scope = query.scope ?? 'self';
    if (scope === 'global' && principal.tier !== 'admin') {
      // Decided before any Redis read, with the same words as the in-process report.
      return buildWsUsageReport(principal, query, { global: newAccount(), customers: new Map() }, this.now());
    }
    // A flush in flight has reached Redis or not; waiting for it, then holding the next one off until Redis is read,
    // keeps this node's changes from counting twice or not at all.
    await this.flushing?.catch(() => undefined);
    let release = () => {};
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.reading = Promise.all([this.reading, done]);
    try {
      return await this.readReport(principal, query, scope);
    } finally {
      release();
    }
  }

  private async readReport(
    principal: Principal,
    query: WsUsageQuery,
    scope: 'self' | 'global',
  ): Promise<WsUsageReport> {
    const limit = query.limit ?? WS_USAGE_LIMIT_DEFAULT;
    const pending = this.pending();
    const others = await this.otherNodes();
    const k = this.keys;
    if (scope === 'global') {
      const ids = (await this.redis.smembers(k.customers)).sort();
      for (const id of pending.customers.keys()) if (!ids.includes(id)) ids.push(id);
      const tx = this.redis.multi().hgetall(k.totals);
      for (const id of ids) tx.hgetall(k.customer(id));
      for (const node of others) tx.hgetall(k.live(node));
      const rows = await this.exec(tx);
      const global = accountFrom(rows[0] as Record<string, string>);
      const customers = new Map<string, Account>();
      ids.forEach((id, i) => {
        customers.set(id, accountFrom(rows[1 + i] as Record<string, string>));
      });
      const lives = rows.slice(1 + ids.length) as Array<Record<string, string>>;
      this.addLive(global, customers, lives);
      addPending(global, customers, pending);
      global.markets = await this.topMarkets(k.markets, pending.global.markets, limit);
      return buildWsUsageReport(principal, query, { global, customers }, this.now());
    }
    const id = principal.customerId;
    const tx = this.redis.multi().hgetall(k.customer(id));
    for (const node of others) tx.hgetall(k.live(node));
    const rows = await this.exec(tx);
    const account = accountFrom(rows[0] as Record<string, string>);
    const customers = new Map([[id, account]]);
    this.addLive(newAccount(), customers, rows.slice(1) as Array<Record<string, string>>);
    addPending(newAccount(), customers, pending);
    account.markets = await this.topMarkets(
      k.customerMarkets(id),
      pending.customers.get(id)?.markets ?? new Map(),
      limit,
    );
    return buildWsUsageReport(principal, query, { global: newAccount(), customers }, this.now());
  }

  /**
   * Enough of a market ranking for the top `limit` to be exact: every market scoring at least the limit-th in Redis
   * (ties included), and every market this node has unflushed subscriptions to, with those added.
   */
  private async topMarkets(
    key: string,
    pending: ReadonlyMap<string, number>,
    limit: number,
  ): Promise<Map<string, number>> {
    const top = await this.redis.zrevrange(key, 0, limit - 1, 'WITHSCORES');
    const out = new Map<string, number>();
    if (top.length > 0) {
      const floor = top[top.length - 1] ?? '0';
      const tied = await this.redis.zrangebyscore(key, floor, '+inf', 'WITHSCORES');
      for (let i = 0; i + 1 < tied.length; i += 2) out.set(tied[i] ?? '', Number(tied[i + 1]));
    }
    const missing = [...pending.keys()].filter((svc) => !out.has(svc));
    const scores = missing.length > 0 ? await this.redis.zmscore(key, ...missing) : [];
    missing.forEach((svc, i) => {
      out.set(svc, Number(scores[i] ?? 0));
    });
    for (const [svc, n] of pending) out.set(svc, (out.get(svc) ?? 0) + n);
    return out;
  }

  /** Other nodes whose live counts have not expired (an expired one is forgotten). */
  private async otherNodes(): Promise<string[]> {
    const nodes = (await this.redis.smembers(this.keys.nodes)).filter((n) => n !== this.options.nodeId);
    if (nodes.length === 0) return [];
    const tx = this.redis.multi();
    for (const node of nodes) tx.exists(this.keys.live(node));
    const alive = await this.exec(tx);
    const gone = nodes.filter((_, i) => alive[i] === 0);
    if (gone.length > 0) await this.redis.srem(this.keys.nodes, ...gone);
    return nodes.filter((_, i) => alive[i] !== 0);
  }

  /** Sums other nodes' live hashes and this node's own live counts into the accounts. */
  private addLive(
    global: Account,
    customers: Map<string, Account>,
    lives: ReadonlyArray<Record<string, string>>,
  ): void {
    const add = (account: Account, connections: number, subscriptions: number) => {
      account.totals.active_connections += connections;
      account.totals.active_subscriptions += subscriptions;
    };
    for (const live of lives) {
      for (const [field, raw] of Object.entries(live)) {
        const value = Number(raw);
        const [kind, id] = splitField(field);
        const account = id === null ? global : customers.get(id);
        if (!account) continue;
        if (kind === CONN) add(account, value, 0);
        else if (kind === SUBS) add(account, 0, value);
      }
    }
    const snapshot = this.local.snapshot();
    add(global, snapshot.global.totals.active_connections, snapshot.global.totals.active_subscriptions);
    for (const [id, account] of customers) {
      const mine = snapshot.customers.get(id)?.totals;
      if (mine) add(account, mine.active_connections, mine.active_subscriptions);
    }
  }

  /** This node's changes not in Redis yet. */
  private pending(): UsageAccounts {
    const now = this.local.snapshot();
    const customers = new Map<string, Account>();
    for (const [id, account] of now.customers) {
      customers.set(id, diff(account, this.flushed.customers.get(id) ?? newAccount()));
    }
    return { global: diff(now.global, this.flushed.global), customers };
  }

  private async exec(tx: ReturnType<Redis['multi']>): Promise<unknown[]> {
    try {
      const results = await tx.exec();
      if (!results) throw new Error('the transaction was discarded');
      return results.map(([error, value]) => {
        if (error) throw error;
        return value;
      });
    } catch (error) {
      throw new AppError('service_unavailable', 'WebSocket usage counters unavailable', { cause: error });
    }
  }
}

function keysOf(prefix: string) {
  const p = `${prefix}:ws`;
  return {
    totals: `${p}:totals`,
    customers: `${p}:customers`,
    markets: `${p}:markets`,
    nodes: `${p}:nodes`,
    customer: (id: string) => `${p}:customer:${id}`,
    customerMarkets: (id: string) => `${p}:markets:${id}`,
    live: (node: string) => `${p}:live:${node}`,
  };
}

/** Queues the increments from `before` to `now` of one account. */
function addDelta(
  tx: ReturnType<Redis['multi']>,
  totalsKey: string,
  marketsKey: string,
  now: Account,
  before: Account,
): void {
  for (const field of CUMULATIVE_FIELDS) {
    const delta = now.totals[field] - before.totals[field];
    if (delta !== 0) tx.hincrby(totalsKey, field, delta);
  }
  for (const [svc, n] of now.markets) {
    const delta = n - (before.markets.get(svc) ?? 0);
    if (delta !== 0) tx.zincrby(marketsKey, delta, svc);
  }
}

function diff(now: Account, before: Account): Account {
  const out = newAccount();
  for (const field of CUMULATIVE_FIELDS) out.totals[field] = now.totals[field] - before.totals[field];
  for (const [svc, n] of now.markets) {
    const delta = n - (before.markets.get(svc) ?? 0);
    if (delta !== 0) out.markets.set(svc, delta);
  }
  return out;
}

function addPending(global: Account, customers: Map<string, Account>, pending: UsageAccounts): void {
  const add = (into: Account, from: Account) => {
    for (const field of CUMULATIVE_FIELDS) into.totals[field] += from.totals[field];
  };
  add(global, pending.global);
  for (const [id, account] of customers) {
    const mine = pending.customers.get(id);
    if (mine) add(account, mine);
  }
}

/** A cumulative-totals hash read back (fields never written read as zero). */
function accountFrom(hash: Record<string, string> | null): Account {
  const account = newAccount();
  if (!hash) return account;
  for (const field of CUMULATIVE_FIELDS) {
    const raw = ownValue(hash, field);
    if (raw !== undefined) account.totals[field] = Number(raw);
  }
  return account;
}

/** `connections` → [connections, null]; `connections:<customer>` → [connections, customer]. */
function splitField(field: string): [string, string | null] {
  const at = field.indexOf(':');
  return at < 0 ? [field, null] : [field.slice(0, at), field.slice(at + 1)];
}
