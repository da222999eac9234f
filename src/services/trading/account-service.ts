// GET /fills, /positions and /balance: the exchange's account data read with the caller's session. Balances are
// kept a few seconds per customer, exchange and credentials (a hash of them, never the credentials), because
// clients poll them; `refresh=true` reads the exchange again and asks it to recompute where it can
// (refresh_balance).
import { createHash } from 'node:crypto';
import type { Balance, Fill, Position } from '../../domain/trading.js';
import type { SessionResolver } from '../../vault/session-resolver.js';
import type { VenueAdapter, VenueContext, VenueSession } from '../../venues/port.js';
import type { ExchangesService } from '../exchanges-service.js';
import { sessionOf, type TradingCaller, tradingContext } from './trading-caller.js';

export const FILLS_LIMIT_DEFAULT = 100;
export const FILLS_LIMIT_MAX = 500;

export interface AccountServiceOptions {
  exchanges: ExchangesService;
  sessions: SessionResolver;
  timeoutMs: number;
  balanceTtlMs: number;
  clock?: () => number;
}

/** Bound on cached balances; the oldest entry goes first. */
const BALANCE_CACHE_MAX = 10_000;

export class AccountService {
  private readonly balances = new Map<string, { at: number; value: Balance }>();
  private readonly clock: () => number;

  constructor(private readonly options: AccountServiceOptions) {
    this.clock = options.clock ?? Date.now;
  }

  async fills(
    caller: TradingCaller,
    exchange: string,
    marketId: string | undefined,
    limit: number,
  ): Promise<Fill[]> {
    const venue = this.options.exchanges.venueFor(exchange, 'fetch_fills');
    const session = await this.session(caller, venue);
    const fetch = venue.trading.fetchFills;
    if (!fetch) return [];
    return fetch(this.ctx(caller), session, marketId ?? null, limit);
  }

  async positions(
    caller: TradingCaller,
    exchange: string,
    marketId: string | undefined,
  ): Promise<Position[]> {
    const venue = this.options.exchanges.venueFor(exchange, 'fetch_positions');
    const session = await this.session(caller, venue);
    const fetch = venue.trading.fetchPositions;
    if (!fetch) return [];
    return fetch(this.ctx(caller), session, marketId ?? null);
  }

  async balance(caller: TradingCaller, exchange: string, refresh: boolean): Promise<Balance> {
    // A refresh is its own capability: asked of an exchange that cannot recompute, it is 501, not a silent read.
    const venue = this.options.exchanges.venueFor(exchange, refresh ? 'refresh_balance' : 'fetch_balance');
    const session = await this.session(caller, venue);
    const key = cacheKey(caller.tenant, session);
    const now = this.clock();
    const cached = this.balances.get(key);
    if (!refresh && cached && now - cached.at < this.options.balanceTtlMs) return cached.value;
    const fetch = venue.trading.fetchBalance;
    if (!fetch) return { raw: {} };
    const value = await fetch(this.ctx(caller), session, {
      refresh,
    });
    this.balances.delete(key);
    this.balances.set(key, { at: this.clock(), value });
    if (this.balances.size > BALANCE_CACHE_MAX) {
      const oldest = this.balances.keys().next();
      if (!oldest.done) this.balances.delete(oldest.value);
    }
    return value;
  }

  private session(caller: TradingCaller, venue: VenueAdapter): Promise<VenueSession> {
    return sessionOf(this.options.sessions, caller, venue);
  }

  private ctx(caller: TradingCaller): VenueContext {
    return tradingContext(caller, this.options.timeoutMs);
  }
}

/** One cache entry per customer and credential set; the credentials themselves are only hashed. */
function cacheKey(customerId: string, session: VenueSession): string {
  const creds = Object.entries(session.credentials).sort(([a], [b]) => a.localeCompare(b));
  const digest = createHash('sha256').update(JSON.stringify(creds)).digest('base64url');
  return `${customerId}\u0000${session.exchange}\u0000${digest}`;
}
