// WebSocket usage, metered in this process: per connection as it happens, summed per customer and for everyone.
// GET /ws/usage reports it (scope self: the caller's customer; global: everyone, admin tier), GET /usage takes its
// active connection and subscription counts. A connection belongs to no customer until it authenticates; what it
// did before (messages it was sent, failed auth attempts) is then counted to that customer too, so a customer's
// totals add up to the global ones for every connection that ever authenticated.
//
// This class is the hot path and stays in-process: a frame sent is a few additions. With REDIS_URL,
// `ClusterWsUsage` (ws-usage-cluster.ts) adds each node's counters to the cluster's totals in Redis periodically and
// answers the reports from there; `snapshot()` and `buildWsUsageReport` are what it uses.
import { type Static, Type } from 'typebox';
import { AppError } from '../errors/app-error.js';
import type { Principal } from '../tenancy/principal.js';

export const WS_USAGE_LIMIT_DEFAULT = 20;
export const WS_USAGE_LIMIT_MAX = 100;

export const WsUsageQuery = Type.Object(
  {
    scope: Type.Optional(
      Type.Union([Type.Literal('self'), Type.Literal('global')], {
        description: "self (default): your customer's usage; global: every customer's (admin tier, else 403)",
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: WS_USAGE_LIMIT_MAX,
        description: `Length of customers and top_markets, 1 to ${WS_USAGE_LIMIT_MAX} (default ${WS_USAGE_LIMIT_DEFAULT})`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type WsUsageQuery = Static<typeof WsUsageQuery>;

const Totals = Type.Object({
  active_connections: Type.Integer({ description: 'Open sockets (authenticated or not, for global)' }),
  active_subscriptions: Type.Integer(),
  connections_opened_total: Type.Integer(),
  connections_closed_total: Type.Integer(),
  auth_failures_total: Type.Integer({ description: 'auth messages answered with auth_error' }),
  subscribe_requests_total: Type.Integer({ description: 'subscribe control messages received' }),
  unsubscribe_requests_total: Type.Integer({ description: 'unsubscribe control messages received' }),
  messages_sent_total: Type.Integer({
    description: 'every frame the server sent, heartbeats and errors included',
  }),
  bytes_sent_total: Type.Integer({ description: 'UTF-8 bytes of those frames' }),
});

const CustomerActive = {
  customer_id: Type.String(),
  active_connections: Type.Integer(),
  active_subscriptions: Type.Integer(),
};

export const WsUsageReport = Type.Object({
  scope: Type.Union([Type.Literal('self'), Type.Literal('global')]),
  updated_at_ms: Type.Integer({ description: 'When these counters were read (Unix ms)' }),
  totals: Totals,
  customer: Type.Optional(Type.Object(CustomerActive, { description: 'scope self: your customer' })),
  customers: Type.Optional(
    Type.Array(
      Type.Object({
        ...CustomerActive,
        messages_sent_total: Type.Integer(),
        bytes_sent_total: Type.Integer(),
      }),
      {
        description:
          'scope global: customers by active subscriptions, then messages sent (most first), `limit` of them',
      },
    ),
  ),
  top_markets: Type.Array(
    Type.Object({
      svc_id: Type.String(),
      subscriptions_total: Type.Integer({
        description: 'subscriptions ever opened to the market (any outcome)',
      }),
    }),
    { description: 'Most subscribed markets first (scope self: by your customer), `limit` of them' },
  ),
});
export type WsUsageReport = Static<typeof WsUsageReport>;

export type TotalsRecord = Static<typeof Totals>;

/** The counters that only grow (everything but the two live gauges). */
export const CUMULATIVE_FIELDS = [
  'connections_opened_total',
  'connections_closed_total',
  'auth_failures_total',
  'subscribe_requests_total',
  'unsubscribe_requests_total',
  'messages_sent_total',
  'bytes_sent_total',
] as const satisfies ReadonlyArray<keyof TotalsRecord>;

export function zeroTotals(): TotalsRecord {
  return {
    active_connections: 0,
    active_subscriptions: 0,
    connections_opened_total: 0,
    connections_closed_total: 0,
    auth_failures_total: 0,
    subscribe_requests_total: 0,
    unsubscribe_requests_total: 0,
    messages_sent_total: 0,
    bytes_sent_total: 0,
  };
}

export interface Account {
  totals: TotalsRecord;
  /** Subscriptions ever opened, per svc_id. */
  markets: Map<string, number>;
}

export function newAccount(): Account {
  return { totals: zeroTotals(), markets: new Map() };
}

/** Everyone's account and each customer's: what a report is built from. */
export interface UsageAccounts {
  global: Account;
  customers: ReadonlyMap<string, Account>;
}

/** What the routes read: this process's meters, or the cluster's totals in Redis. */
export interface WsUsageView {
  report(principal: Principal, query: WsUsageQuery): WsUsageReport | Promise<WsUsageReport>;
  /** Open sockets and subscriptions of one customer (GET /usage). */
  active(
    customerId: string,
  ): { connections: number; subscriptions: number } | Promise<{ connections: number; subscriptions: number }>;
}

function copyAccount(a: Account): Account {
  return { totals: { ...a.totals }, markets: new Map(a.markets) };
}

/** One socket's meter: the gateway calls it as things happen; it keeps the global and customer sums current. */
export class ConnectionMeter {
  /** What this connection did before it authenticated, handed to its customer when it does. */
  private own: Account | null = newAccount();
  private customer: Account | null = null;
  private done = false;

  constructor(
    private readonly global: Account,
    private readonly accounts: (customerId: string) => Account,
  ) {
    global.totals.active_connections += 1;
    global.totals.connections_opened_total += 1;
  }

  authenticated(customerId: string): void {
    if (this.customer || this.done) return;
    const account = this.accounts(customerId);
    const before = this.own;
    this.customer = account;
    this.own = null;
    account.totals.active_connections += 1;
    account.totals.connections_opened_total += 1;
    if (!before) return;
    account.totals.auth_failures_total += before.totals.auth_failures_total;
    account.totals.messages_sent_total += before.totals.messages_sent_total;
    account.totals.bytes_sent_total += before.totals.bytes_sent_total;
  }

  authFailed(): void {
    this.global.totals.auth_failures_total += 1;
    const mine = this.customer ?? this.own;
    if (mine) mine.totals.auth_failures_total += 1;
  }

  subscribeRequest(): void {
    this.count('subscribe_requests_total');
  }

  unsubscribeRequest(): void {
    this.count('unsubscribe_requests_total');
  }

  /** `svcId` for a book (it counts towards top_markets); none for a wallet address. */
  subscriptionOpened(svcId?: string): void {
    for (const a of this.both()) {
      a.totals.active_subscriptions += 1;
      if (svcId !== undefined) a.markets.set(svcId, (a.markets.get(svcId) ?? 0) + 1);
    }
  }

  subscriptionClosed(): void {
    for (const a of this.both()) a.totals.active_subscriptions -= 1;
  }

  sent(bytes: number): void {
    const g = this.global.totals;
    g.messages_sent_total += 1;
    g.bytes_sent_total += bytes;
    const mine = (this.customer ?? this.own)?.totals;
    if (!mine) return;
    mine.messages_sent_total += 1;
    mine.bytes_sent_total += bytes;
  }

  /** The socket is gone (its subscriptions must have been closed first). */
  close(): void {
    if (this.done) return;
    this.done = true;
    for (const a of this.both()) {
      a.totals.active_connections -= 1;
      a.totals.connections_closed_total += 1;
    }
    this.own = null;
  }

  private count(field: 'subscribe_requests_total' | 'unsubscribe_requests_total'): void {
    for (const a of this.both()) a.totals[field] += 1;
  }

  private both(): Account[] {
    return this.customer ? [this.global, this.customer] : [this.global];
  }
}

export class WsUsage implements WsUsageView {
  private readonly global = newAccount();
  private readonly customers = new Map<string, Account>();

  constructor(private readonly now: () => number = Date.now) {}

  open(): ConnectionMeter {
    return new ConnectionMeter(this.global, (id) => {
      let account = this.customers.get(id);
      if (!account) {
        account = newAccount();
        this.customers.set(id, account);
      }
      return account;
    });
  }

  active(customerId: string): { connections: number; subscriptions: number } {
    const t = this.customers.get(customerId)?.totals;
    return { connections: t?.active_connections ?? 0, subscriptions: t?.active_subscriptions ?? 0 };
  }

  /** A copy of every counter as it stands (the cluster sync diffs two of them). */
  snapshot(): UsageAccounts {
    return {
      global: copyAccount(this.global),
      customers: new Map([...this.customers].map(([id, a]) => [id, copyAccount(a)])),
    };
  }

  report(principal: Principal, query: WsUsageQuery): WsUsageReport {
    return buildWsUsageReport(
      principal,
      query,
      { global: this.global, customers: this.customers },
      this.now(),
    );
  }
}

/** The report for one caller (scope global: admin tier only, else 403) from a set of accounts. */
export function buildWsUsageReport(
  principal: Principal,
  query: WsUsageQuery,
  accounts: UsageAccounts,
  updated_at_ms: number,
): WsUsageReport {
  const scope = query.scope ?? 'self';
  const limit = query.limit ?? WS_USAGE_LIMIT_DEFAULT;
  if (scope === 'global') {
    if (principal.tier !== 'admin') {
      throw new AppError(
        'forbidden',
        'scope=global needs an admin-tier key; scope=self shows your own usage',
      );
    }
    const customers = [...accounts.customers.entries()]
      .map(([customer_id, a]) => ({
        customer_id,
        active_connections: a.totals.active_connections,
        active_subscriptions: a.totals.active_subscriptions,
        messages_sent_total: a.totals.messages_sent_total,
        bytes_sent_total: a.totals.bytes_sent_total,
      }))
      .sort(
        (x, y) =>
          y.active_subscriptions - x.active_subscriptions ||
          y.messages_sent_total - x.messages_sent_total ||
          (x.customer_id < y.customer_id ? -1 : 1),
      )
      .slice(0, limit);
    return {
      scope,
      updated_at_ms,
      totals: { ...accounts.global.totals },
      customers,
      top_markets: topMarkets(accounts.global, limit),
    };
  }
  const account = accounts.customers.get(principal.customerId) ?? newAccount();
  return {
    scope,
    updated_at_ms,
    totals: { ...account.totals },
    customer: {
      customer_id: principal.customerId,
      active_connections: account.totals.active_connections,
      active_subscriptions: account.totals.active_subscriptions,
    },
    top_markets: topMarkets(account, limit),
  };
}

function topMarkets(account: Account, limit: number): WsUsageReport['top_markets'] {
  return [...account.markets.entries()]
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
    .slice(0, limit)
    .map(([svc_id, subscriptions_total]) => ({ svc_id, subscriptions_total }));
}
