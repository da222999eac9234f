// One client's WebSocket session: `auth` within the deadline, then subscribe / unsubscribe / resync under the
// tier's limits (subscriptions — books and wallet addresses together — and depth) and at most 3 control messages a
// second. Book messages come from the book hub, wallet activity from the wallet hub, the customer's own fills from
// its fill feeds (joined to its book subscriptions); this class owns the socket's backpressure (a slow client is
// conflated, a hopeless one dropped) and the errors, and reports what happens on it to its usage meter.
import { WebSocket } from 'ws';
import type { ExchangeId } from '../domain/exchanges.js';
import type { FeedState } from '../domain/stream.js';
import { type Bucket, takeToken } from '../domain/token-bucket.js';
import type { Fill } from '../domain/trading.js';
import { ADDRESS_RULES } from '../domain/wallet-address.js';
import { AppError } from '../errors/app-error.js';
import type { CallerContext } from '../services/caller-context.js';
import type { Twins } from '../services/crossvenue/twins.js';
import type { ExchangesService } from '../services/exchanges-service.js';
import type { MarketTarget, MarketTargets } from '../services/market-data/market-target.js';
import type { ConnectionMeter, WsUsage } from '../services/ws-usage.js';
import type { ApiKeyService } from '../tenancy/api-keys.js';
import type { Principal } from '../tenancy/principal.js';
import type { BookHub, BookSubscription, BookTransport } from './book-hub.js';
import { ConsolidatedSubscription } from './consolidated-hub.js';
import type { FillFeeds, FillListener } from './fill-feeds.js';
import {
  type AddressRef,
  type MarketRef,
  parseClientMessage,
  WS_ERROR,
  type WsErrorName,
} from './protocol.js';
import { type WalletHub, type WalletSubscription, walletKey } from './wallet-hub.js';

export interface ConnectionLimits {
  authTimeoutMs: number;
  /** Control messages per second (and burst). */
  controlPerSecond: number;
  /** Unsent bytes past which a client is slow: its books are conflated to the latest snapshot. */
  slowBytes: number;
  /** Unsent bytes past which a client is dropped. */
  hopelessBytes: number;
  /** Depth when a subscription names none (then held to the tier's maximum). */
  defaultDepth: number;
}

export interface ConnectionDeps {
  keys: ApiKeyService;
  targets: MarketTargets;
  hub: BookHub;
  wallets: WalletHub;
  fills: FillFeeds;
  exchanges: ExchangesService;
  usage: WsUsage;
  limits: ConnectionLimits;
  logger: CallerContext['logger'];
  now?: () => number;
  /** The twins of a market (published same_market links): `consolidated: true` subscriptions; absent, refused. */
  twins?: Twins;
}

/** Close code when no auth arrived in time (4000–4999 are the application's own). */
const CLOSE_AUTH_TIMEOUT = 4001;

export class WsConnection implements BookTransport, FillListener {
  private principal: Principal | null = null;
  private authenticating = false;
  private readonly subs = new Map<string, BookSubscription>();
  private readonly consolidated = new Map<string, ConsolidatedSubscription>();
  private readonly wallets = new Map<string, WalletSubscription>();
  /** The customer's fill feed per exchange this connection has subscribed books on (null: none to be had). */
  private readonly fillFeeds = new Map<ExchangeId, Promise<(() => void) | null>>();
  private readonly bucket: Bucket;
  private readonly authTimer: NodeJS.Timeout;
  private closed = false;
  private readonly now: () => number;
  private readonly meter: ConnectionMeter;
  /** Control messages are handled one after another, in the order they arrived. */
  private handling: Promise<void> = Promise.resolve();

  constructor(
    private readonly socket: WebSocket,
    readonly id: string,
    private readonly deps: ConnectionDeps,
  ) {
    this.now = deps.now ?? Date.now;
    this.meter = deps.usage.open();
    this.bucket = { tokens: deps.limits.controlPerSecond, updatedAt: this.now() };
    this.authTimer = setTimeout(() => {
      if (this.principal) return;
      this.error('auth_required', `send auth {api_key} within ${deps.limits.authTimeoutMs} ms`);
      this.socket.close(CLOSE_AUTH_TIMEOUT, 'auth timeout');
    }, deps.limits.authTimeoutMs);
    socket.on('message', (data, isBinary) => {
      if (isBinary) {
        this.error('invalid_message', 'messages are JSON text frames');
        return;
      }
      const raw = data.toString();
      this.handling = this.handling.then(() => this.onMessage(raw));
    });
    socket.on('close', () => this.cleanUp());
    socket.on('error', () => this.cleanUp());
  }

  get authenticated(): boolean {
    return this.principal !== null;
  }

  /** The id of the API key this connection authenticated with; null before auth. */
  get keyId(): string | null {
    return this.principal?.keyId ?? null;
  }

  get subscriptionCount(): number {
    return this.subs.size + this.wallets.size + this.consolidated.size;
  }

  // BookTransport
  congestion(): 'ok' | 'slow' | 'hopeless' {
    const queued = this.socket.bufferedAmount;
    if (queued >= this.deps.limits.hopelessBytes) return 'hopeless';
    if (queued >= this.deps.limits.slowBytes) return 'slow';
    return 'ok';
  }

  send(frame: string): void {
    // A closing socket drops what it is given: only what really goes out is metered.
    if (this.closed || this.socket.readyState !== WebSocket.OPEN) return;
    this.meter.sent(Buffer.byteLength(frame));
    this.socket.send(frame);
  }

  drop(reason: string): void {
    if (this.closed) return;
    this.deps.logger.warn({ connection: this.id, reason }, 'websocket client dropped');
    // terminate(): a client that does not read would never complete a closing handshake.
    this.socket.terminate();
    this.cleanUp();
  }

  // FillListener: the customer's own fills go to this connection's subscription of the book they happened on.
  fill(exchange: ExchangeId, fill: Fill): void {
    if (this.closed) return;
    const outcome = fill.outcome.toLowerCase();
    for (const sub of this.subs.values()) {
      const t = sub.channel.target;
      if (t.venue.descriptor.id !== exchange || t.market.exchange_market_id !== fill.market_id) continue;
      if (t.outcome.name.toLowerCase() !== outcome) continue;
      sub.fillSeen(sub.channel.fillRest(fill, `${exchange}_user_stream`));
    }
  }

  fillFeed(exchange: ExchangeId, state: FeedState, reason: string | null): void {
    if (this.closed) return;
    this.send(
      JSON.stringify({ type: 'fill_feed', exchange, feed_state: state, ...(reason ? { reason } : {}) }),
    );
  }

  heartbeat(): void {
    if (this.closed || !this.principal) return;
    this.send(`{"type":"heartbeat","ts_ms":${this.now()}}`);
    for (const sub of this.subs.values()) sub.catchUp();
    for (const sub of this.consolidated.values()) sub.catchUp();
  }

  close(code: number, reason: string): void {
    this.socket.close(code, reason);
    this.cleanUp();
  }

  private async onMessage(raw: string): Promise<void> {
    if (this.closed) return;
    const { controlPerSecond } = this.deps.limits;
    if (!takeToken(this.bucket, controlPerSecond, controlPerSecond, this.now()).allowed) {
      return this.error('rate_limited', `at most ${controlPerSecond} control messages per second`);
    }
    const parsed = parseClientMessage(raw);
    if (!parsed.ok) {
      this.error('invalid_message', parsed.error);
      return;
    }
    const message = parsed.message;
    if (message.type === 'auth') {
      this.auth(message.api_key);
      return;
    }
    const principal = this.principal;
    if (!principal) {
      this.error('auth_required', 'send auth {api_key} first');
      return;
    }
    try {
      switch (message.type) {
        case 'subscribe':
          this.meter.subscribeRequest();
          for (const ref of message.markets) {
            if (ref.consolidated) await this.subscribeConsolidated(principal, ref);
            else await this.subscribe(principal, ref);
          }
          for (const ref of message.addresses) this.watch(principal, ref);
          return;
        case 'unsubscribe':
          this.meter.unsubscribeRequest();
          for (const ref of message.markets) {
            if (ref.consolidated) await this.unsubscribeConsolidated(principal, ref);
            else await this.unsubscribe(principal, ref);
          }
          for (const ref of message.addresses) this.unwatch(ref);
          return;
        case 'resync': {
          if (message.market.consolidated) {
            const target = await this.target(principal, message.market);
            if (!target) return;
            const sub = this.consolidated.get(subKey(target));
            if (!sub) {
              return this.error('invalid_market', 'resync names a book this connection is not subscribed to');
            }
            sub.snapshot();
            return;
          }
          const target = await this.target(principal, message.market);
          if (!target) return;
          const sub = this.subs.get(subKey(target));
          if (!sub)
            return this.error('invalid_market', 'resync names a book this connection is not subscribed to');
          sub.snapshot();
          return;
        }
      }
    } catch (error) {
      this.deps.logger.error({ err: error, connection: this.id }, 'websocket message failed');
      this.error('exchange_unavailable', 'the request could not be served');
    }
  }

  private async auth(apiKey: string): Promise<void> {
    if (this.principal || this.authenticating) {
      this.error('auth_invalid', 'already authenticated');
      return;
    }
    this.authenticating = true;
    const result = await this.deps.keys.authenticate(apiKey);
    this.authenticating = false;
    if (this.closed) return;
    if (!result.ok) {
      this.meter.authFailed();
      this.send(
        JSON.stringify({
          type: 'auth_error',
          code: WS_ERROR.auth_invalid,
          message: result.reason === 'revoked' ? 'API key has been revoked' : 'invalid API key',
        }),
      );
      return;
    }
    this.principal = result.principal;
    this.meter.authenticated(result.principal.customerId);
    clearTimeout(this.authTimer);
    this.send(JSON.stringify({ type: 'auth_ok', customer_id: result.principal.customerId }));
  }

  private async subscribe(principal: Principal, ref: MarketRef): Promise<void> {
    const target = await this.target(principal, ref);
    if (!target || this.closed) return;
    const key = subKey(target);
    const maxDepth = principal.limits.wsMaxDepth;
    const depth = Math.min(ref.depth ?? this.deps.limits.defaultDepth, maxDepth > 0 ? maxDepth : Infinity);
    const existing = this.subs.get(key);
    if (existing) {
      if (existing.depth === depth) return existing.snapshot();
      this.endSubscription(key, existing);
    }
    const max = principal.limits.wsMaxSubscriptions;
    if (max > 0 && this.subscriptionCount >= max) {
      return this.error('max_subscriptions', `your tier allows ${max} subscriptions per connection`, target);
    }
    this.subs.set(key, this.deps.hub.subscribe(target, depth, this));
    this.meter.subscriptionOpened(target.market.svc_id);
    this.joinFillFeed(principal, target);
  }

  /** `consolidated: true`: the bet's book merged with its twins' (one subscription, however many venues). */
  private async subscribeConsolidated(principal: Principal, ref: MarketRef): Promise<void> {
    const twins = this.deps.twins;
    if (!twins) return this.error('exchange_unavailable', 'consolidated books are not served here');
    const target = await this.target(principal, ref);
    if (!target || this.closed) return;
    const key = subKey(target);
    const maxDepth = principal.limits.wsMaxDepth;
    const depth = Math.min(ref.depth ?? this.deps.limits.defaultDepth, maxDepth > 0 ? maxDepth : Infinity);
    const existing = this.consolidated.get(key);
    if (existing) {
      if (existing.depth === depth) return existing.snapshot();
      this.endConsolidated(key, existing);
    }
    const max = principal.limits.wsMaxSubscriptions;
    if (max > 0 && this.subscriptionCount >= max) {
      return this.error('max_subscriptions', `your tier allows ${max} subscriptions per connection`, target);
    }
    const venues = await twins.of(
      { svc_id: target.market.svc_id, outcome: target.outcome.name },
      'websocket',
      this.callerOf(principal),
    );
    if (this.closed || this.consolidated.has(key)) return;
    const resolved = venues.flatMap((v) => (v.ok ? [v] : []));
    const failed = venues.flatMap((v) => (v.ok ? [] : [v]));
    const sub = new ConsolidatedSubscription(
      this.deps.hub,
      target.market.svc_id,
      target.outcome.name,
      failed,
      resolved,
      depth,
      this,
    );
    this.consolidated.set(key, sub);
    this.meter.subscriptionOpened(target.market.svc_id);
  }

  private async unsubscribeConsolidated(principal: Principal, ref: MarketRef): Promise<void> {
    const target = await this.target(principal, ref);
    if (!target) return;
    const sub = this.consolidated.get(subKey(target));
    if (sub) this.endConsolidated(subKey(target), sub);
  }

  private endConsolidated(key: string, sub: ConsolidatedSubscription): void {
    this.consolidated.delete(key);
    sub.close();
    this.meter.subscriptionClosed();
  }

  private callerOf(principal: Principal): CallerContext {
    return {
      requestId: `ws:${this.id}`,
      logger: this.deps.logger,
      tenant: principal.customerId,
      historyMaxAgeDays: principal.limits.historyMaxAgeDays,
    };
  }

  /** The customer's own fills on this exchange, from the first book subscribed there on (when it has credentials). */
  private joinFillFeed(principal: Principal, target: MarketTarget): void {
    const exchange = target.venue.descriptor.id;
    if (this.fillFeeds.has(exchange)) return;
    const joined = this.deps.fills
      .acquire(principal.customerId, target.venue, this)
      .catch((error: unknown) => {
        this.deps.logger.warn({ err: error, connection: this.id, exchange }, 'fill feed unavailable');
        this.fillFeed(
          exchange,
          'disconnected',
          `${exchange} fills are unavailable: stored credentials unreadable`,
        );
        return null;
      });
    this.fillFeeds.set(exchange, joined);
    // A connection that closed while the feed was being joined leaves it at once.
    void joined.then((release) => {
      if (this.closed) release?.();
    });
  }

  /** `subscribe { addresses }`: a wallet on an exchange with watch_address, spelled as that exchange wants it. */
  private watch(principal: Principal, ref: AddressRef): void {
    const venue = this.addressVenue(ref);
    if (!venue) return;
    const exchange = venue.descriptor.id;
    const address = ref.address.toLowerCase();
    const key = walletKey(exchange, address);
    if (this.wallets.has(key)) return;
    const max = principal.limits.wsMaxSubscriptions;
    if (max > 0 && this.subscriptionCount >= max) {
      this.addressError('max_subscriptions', `your tier allows ${max} subscriptions per connection`, {
        exchange,
        address,
      });
      return;
    }
    this.wallets.set(key, this.deps.wallets.subscribe(venue, address, this));
    this.meter.subscriptionOpened();
  }

  private unwatch(ref: AddressRef): void {
    const venue = this.addressVenue(ref);
    if (!venue) return;
    const key = walletKey(venue.descriptor.id, ref.address.toLowerCase());
    const sub = this.wallets.get(key);
    if (sub) this.endWallet(key, sub);
  }

  /**
   * The venue an address reference names, checked: 2001 for an unknown exchange or an address its rule refuses (the
   * address is not repeated: a string pasted by mistake may be a private key), 2003 for one without watch_address.
   */
  private addressVenue(ref: AddressRef) {
    let venue: ReturnType<ExchangesService['venue']>;
    try {
      venue = this.deps.exchanges.venueFor(ref.exchange, 'watch_address');
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const name: WsErrorName = error.code === 'not_supported' ? 'exchange_unavailable' : 'invalid_market';
      const message =
        error.code === 'not_supported'
          ? `${ref.exchange} has no wallet address subscriptions (watch_address)`
          : error.message;
      this.addressError(name, message, { exchange: ref.exchange });
      return null;
    }
    const rule = ADDRESS_RULES[venue.descriptor.id];
    const problem = rule ? rule.problem(ref.address) : 'cannot be checked';
    if (problem) {
      this.addressError(
        'invalid_market',
        `address ${problem}: ${venue.descriptor.id} needs ${rule?.describe ?? 'an address'}`,
        { exchange: venue.descriptor.id },
      );
      return null;
    }
    return venue;
  }

  private endWallet(key: string, sub: WalletSubscription): void {
    this.wallets.delete(key);
    this.deps.wallets.unsubscribe(sub);
    this.meter.subscriptionClosed();
  }

  private addressError(
    name: WsErrorName,
    message: string,
    about: { exchange: string; address?: string },
  ): void {
    this.send(JSON.stringify({ type: 'error', code: WS_ERROR[name], message, ...about }));
  }

  private async unsubscribe(principal: Principal, ref: MarketRef): Promise<void> {
    const target = await this.target(principal, ref);
    if (!target) return;
    const sub = this.subs.get(subKey(target));
    if (!sub) return;
    this.endSubscription(subKey(target), sub);
  }

  private endSubscription(key: string, sub: BookSubscription): void {
    this.subs.delete(key);
    this.deps.hub.unsubscribe(sub);
    this.meter.subscriptionClosed();
  }

  /** The book a market reference names, or null after telling the client why not. */
  private async target(principal: Principal, ref: MarketRef): Promise<MarketTarget | null> {
    const caller: CallerContext = {
      requestId: `ws:${this.id}`,
      logger: this.deps.logger,
      tenant: principal.customerId,
      historyMaxAgeDays: principal.limits.historyMaxAgeDays,
    };
    let outcomes: MarketTarget[];
    try {
      outcomes = await this.deps.targets.resolveOutcomes(ref, 'websocket', caller);
    } catch (error) {
      const svcId =
        ref.svc_id ?? (ref.exchange && ref.market_id ? `${ref.exchange}:${ref.market_id}` : undefined);
      if (!(error instanceof AppError)) throw error;
      const name: WsErrorName =
        error.code === 'market_not_found'
          ? 'market_not_found'
          : error.code === 'not_supported' || error.code === 'service_unavailable'
            ? 'exchange_unavailable'
            : 'invalid_market';
      this.error(name, error.message, undefined, svcId);
      return null;
    }
    const wanted = (ref.outcome ?? 'yes').trim().toLowerCase();
    const target = outcomes.find((t) => t.outcome.name.toLowerCase() === wanted);
    if (!target) {
      const valid = outcomes.map((t) => t.outcome.name).join(', ');
      const svcId = outcomes[0]?.market.svc_id;
      this.error(
        'invalid_outcome',
        `no outcome '${ref.outcome ?? 'yes'}' (outcomes: ${valid})`,
        undefined,
        svcId,
      );
      return null;
    }
    return target;
  }

  private error(name: WsErrorName, message: string, target?: MarketTarget, svcId?: string): void {
    const id = target?.market.svc_id ?? svcId;
    this.send(
      JSON.stringify({ type: 'error', code: WS_ERROR[name], message, ...(id ? { svc_id: id } : {}) }),
    );
  }

  private cleanUp(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.authTimer);
    for (const [key, sub] of [...this.subs]) this.endSubscription(key, sub);
    for (const [key, sub] of [...this.consolidated]) this.endConsolidated(key, sub);
    for (const [key, sub] of [...this.wallets]) this.endWallet(key, sub);
    for (const joined of this.fillFeeds.values()) void joined.then((release) => release?.());
    this.fillFeeds.clear();
    this.meter.close();
  }
}

function subKey(target: MarketTarget): string {
  return `${target.market.svc_id}\u0000${target.outcome.token_id}`;
}
