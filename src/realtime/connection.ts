// One client's WebSocket session: `auth` within the deadline, then subscribe / unsubscribe / resync under the
// tier's limits (subscriptions — books and wallet addresses together, counted across all the customer's
// connections — and depth) and at most 3 control messages a second. Book messages come from the book hub, wallet
// activity from the wallet hub, the customer's own fills from its fill feeds (joined to its book subscriptions);
// this class owns the socket's backpressure (a slow client is conflated, a hopeless one dropped) and the errors,
// and reports what happens on it to its usage meter.
// Nothing a client sends makes the server hold memory in proportion: every frame passes the rate limit where it
// arrives (a refused one costs no queued work, and a window's refusals get one answer), a flood is closed, and every
// frame sent, not only books, is held to the hopeless bound.
import { type RawData, WebSocket } from 'ws';
import type { ExchangeId } from '../domain/exchanges.js';
import type { FeedState } from '../domain/stream.js';
import { type Bucket, takeToken } from '../domain/token-bucket.js';
import type { Fill } from '../domain/trading.js';
import { ADDRESS_RULES } from '../domain/wallet-address.js';
import { AppError } from '../errors/app-error.js';
import { isUpstreamFailure } from '../errors/codes.js';
import type { CallerContext } from '../services/caller-context.js';
import type { ArbitrageService } from '../services/crossvenue/arbitrage-service.js';
import type { Twins } from '../services/crossvenue/twins.js';
import type { ExchangesService } from '../services/exchanges-service.js';
import type { MarketTarget, MarketTargets } from '../services/market-data/market-target.js';
import type { ConnectionMeter, WsUsage } from '../services/ws-usage.js';
import type { ApiKeyService } from '../tenancy/api-keys.js';
import type { Principal } from '../tenancy/principal.js';
import { type ArbitrageScanner, ArbitrageSubscription, MAX_WATCHED_PAIRS } from './arbitrage-hub.js';
import type { BookHub, BookSubscription, BookTransport } from './book-hub.js';
import type { ConnectionSeats } from './connection-seats.js';
import { ConsolidatedSubscription } from './consolidated-hub.js';
import { isPoolRefusal } from './fair-pool.js';
import type { FillFeeds, FillListener } from './fill-feeds.js';
import {
  type AddressRef,
  type ArbitrageRef,
  type MarketRef,
  parseClientMessage,
  WS_ERROR,
  type WsErrorName,
} from './protocol.js';
import type { ReplayPacer } from './replay-pacing.js';
import type { CustomerSubscriptions, SubscriptionQuota } from './subscription-quota.js';
import { type WalletHub, type WalletSubscription, walletKey } from './wallet-hub.js';

export interface ConnectionLimits {
  authTimeoutMs: number;
  /** Control messages per second (and burst). */
  controlPerSecond: number;
  /** Frames refused within one second past which the socket is closed (CLOSE_FLOOD). */
  floodCloseAfter: number;
  /** Admitted messages waiting for the one before them to be handled, past which more are refused as rate-limited. */
  maxPending: number;
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
  /** The tier's subscription cap is the customer's, across its connections (and nodes). */
  quota: SubscriptionQuota;
  /** This node's connection counts: the connection holds an unauthenticated seat from its start. */
  seats: ConnectionSeats;
  limits: ConnectionLimits;
  logger: CallerContext['logger'];
  now?: () => number;
  /** The twins of a market (published same_market links): `consolidated: true` subscriptions; absent, refused. */
  twins?: Twins;
  /** The arbitrage channel (`subscribe { arbitrage }`); absent, refused. */
  arbitrage?: { service: ArbitrageService; scanner: ArbitrageScanner };
  /** A replay's pacing (`replay_pace`, `replay_ack`); absent outside a replay, where those messages are refused. */
  pacer?: ReplayPacer;
}

/** Close code when no auth arrived in time, or after an `auth_error` (4000–4999 are the application's own). */
export const CLOSE_AUTH_FAILED = 4001;
/** Close code of a client that kept sending past the rate limit (RFC 6455 policy violation). */
export const CLOSE_FLOOD = 1008;
/** Close code of an authentication its customer has no connection left for (its tier's number on this node). */
export const CLOSE_TOO_MANY_CONNECTIONS = 4008;
/** The window over which refused frames are counted towards floodCloseAfter. */
const FLOOD_WINDOW_MS = 1_000;

export class WsConnection implements BookTransport, FillListener {
  private principal: Principal | null = null;
  private readonly subs = new Map<string, BookSubscription>();
  private readonly consolidated = new Map<string, ConsolidatedSubscription>();
  private readonly wallets = new Map<string, WalletSubscription>();
  /** The connection's one arbitrage subscription (a new subscribe replaces its filter). */
  private arbitrage: ArbitrageSubscription | null = null;
  /** Bumped by each arbitrage subscribe and unsubscribe: a preparation overtaken by a later one is dropped. */
  private arbitrageTurn = 0;
  /** The customer's fill feed per exchange this connection has subscribed books on (null: none to be had). */
  private readonly fillFeeds = new Map<ExchangeId, Promise<(() => void) | null>>();
  private readonly bucket: Bucket;
  private readonly authTimer: NodeJS.Timeout;
  private closed = false;
  /** Whether this connection paces a replay (it sent `replay_pace`). */
  private pacing = false;
  private readonly now: () => number;
  private readonly meter: ConnectionMeter;
  /** Control messages are handled one after another, in the order they arrived. */
  private handling: Promise<void> = Promise.resolve();
  /** Admitted messages not handled yet (bounded by limits.maxPending). */
  private pending = 0;
  /** Whether the refusals since the last admitted frame were answered (once: later ones are dropped unanswered). */
  private refusalAnswered = false;
  /** Start of the current flood window, and the frames refused in it. */
  private refusedSince = Number.NEGATIVE_INFINITY;
  private refused = 0;

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
      this.reject(CLOSE_AUTH_FAILED, 'auth timeout');
    }, deps.limits.authTimeoutMs);
    socket.on('message', (data, isBinary) => this.received(data, isBinary));
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
    return this.subs.size + this.wallets.size + this.consolidated.size + (this.arbitrage ? 1 : 0);
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
    // Every frame, heartbeats and errors too, is held to the bound the books are: a client that does not read
    // cannot make the server queue without end whatever it provokes.
    if (this.socket.bufferedAmount >= this.deps.limits.hopelessBytes) {
      this.drop('the client does not read its messages');
      return;
    }
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
    this.arbitrage?.catchUp();
  }

  /**
   * Closes with a closing handshake; a client too far behind to read the close frame soon (past the slow bound) is
   * terminated after it, as it would hold the socket until the handshake's own timeout.
   */
  close(code: number, reason: string): void {
    if (this.closed) return;
    this.socket.close(code, reason);
    if (this.socket.bufferedAmount >= this.deps.limits.slowBytes) this.socket.terminate();
    this.cleanUp();
  }

  /**
   * Ends a connection the server gives up on (no auth, a refused key, a flood): the close frame, then the socket at
   * once. A client that reads sees the code; one that does not would never complete the closing handshake.
   */
  private reject(code: number, reason: string): void {
    if (this.closed) return;
    this.socket.close(code, reason);
    this.socket.terminate();
    this.cleanUp();
  }

  /**
   * Every frame passes the rate limit (and the bound on waiting messages) as it arrives, binary ones too: a refused
   * frame is dropped here, so a flood queues no work, and it is answered once per window at most.
   */
  private received(data: RawData, isBinary: boolean): void {
    // A replay's acknowledgement pays no token: one comes per replayed step, as fast as the client reads. It is
    // handled at once and keeps nothing (an ack for a step not sent yet counts as the last one sent).
    if (
      this.deps.pacer &&
      this.principal &&
      !isBinary &&
      !this.closed &&
      data.toString().includes('"replay_ack"')
    ) {
      const parsed = parseClientMessage(data.toString());
      if (parsed.ok && parsed.message.type === 'replay_ack') {
        this.deps.pacer.ack(this, parsed.message.step);
        return;
      }
    }
    if (this.closed || !this.admit()) return;
    if (isBinary) {
      this.error('invalid_message', 'messages are JSON text frames');
      return;
    }
    const raw = data.toString();
    this.pending += 1;
    this.handling = this.handling.then(async () => {
      try {
        await this.onMessage(raw);
      } finally {
        this.pending -= 1;
      }
    });
  }

  private admit(): boolean {
    const { controlPerSecond, maxPending, floodCloseAfter } = this.deps.limits;
    const now = this.now();
    let retryAfterMs = FLOOD_WINDOW_MS;
    if (this.pending < maxPending) {
      const taken = takeToken(this.bucket, controlPerSecond, controlPerSecond, now);
      if (taken.allowed) {
        this.refusalAnswered = false;
        return true;
      }
      retryAfterMs = taken.retryAfterMs;
    }
    // One answer per run of refused frames (so at most one per token, 3 a second, however fast the flood):
    // retry_after_ms (ours) says when a frame is taken again, as the rest of the run is dropped unanswered.
    if (!this.refusalAnswered) {
      this.refusalAnswered = true;
      this.send(
        JSON.stringify({
          type: 'error',
          code: WS_ERROR.rate_limited,
          message: `at most ${controlPerSecond} control messages per second`,
          retry_after_ms: retryAfterMs,
        }),
      );
    }
    if (now - this.refusedSince >= FLOOD_WINDOW_MS) {
      this.refusedSince = now;
      this.refused = 0;
    }
    this.refused += 1;
    if (this.refused > floodCloseAfter) {
      this.deps.logger.warn({ connection: this.id }, 'websocket client closed for flooding');
      this.reject(CLOSE_FLOOD, 'too many messages');
    }
    return false;
  }

  private async onMessage(raw: string): Promise<void> {
    if (this.closed) return;
    const parsed = parseClientMessage(raw);
    if (!parsed.ok) {
      this.error('invalid_message', parsed.error);
      return;
    }
    const message = parsed.message;
    if (message.type === 'auth') {
      // Awaited: the messages after an auth (a second auth, a subscribe) are handled once it is settled.
      await this.auth(message.api_key);
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
          await this.subscribeAll(principal, message.markets, message.addresses);
          if (message.arbitrage && !this.closed) await this.subscribeArbitrage(principal, message.arbitrage);
          return;
        case 'unsubscribe':
          this.meter.unsubscribeRequest();
          for (const ref of message.markets) {
            if (ref.consolidated) await this.unsubscribeConsolidated(principal, ref);
            else await this.unsubscribe(principal, ref);
          }
          for (const ref of message.addresses) this.unwatch(ref);
          if (message.arbitrage) this.endArbitrage();
          return;
        case 'replay_pace':
        case 'replay_ack':
          if (!this.deps.pacer) return this.error('invalid_message', `${message.type} is only for a replay`);
          if (message.type === 'replay_pace') {
            this.pacing = true;
            this.deps.pacer.join(this);
          } else {
            this.deps.pacer.ack(this, message.step);
          }
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
    if (this.principal) {
      this.error('auth_invalid', 'already authenticated');
      return;
    }
    const result = await this.deps.keys.authenticate(apiKey);
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
      // Wire contract §6: the server closes the socket after auth_error (a new socket may try another key).
      this.reject(CLOSE_AUTH_FAILED, 'auth failed');
      return;
    }
    const { customerId, tier } = result.principal;
    if (!this.deps.seats.authenticate(customerId, tier)) {
      this.error(
        'rate_limited',
        `your customer already holds ${this.deps.seats.limitFor(tier)} WebSocket connections on this server (its tier's limit)`,
      );
      this.reject(CLOSE_TOO_MANY_CONNECTIONS, 'too many connections');
      return;
    }
    this.principal = result.principal;
    this.meter.authenticated(result.principal.customerId);
    clearTimeout(this.authTimer);
    this.send(JSON.stringify({ type: 'auth_ok', customer_id: result.principal.customerId }));
  }

  /**
   * One subscribe frame under the customer's subscription cap, checked before anything is looked up: the frame opens
   * at most as many new books as the customer has subscriptions left, and the markets past that are refused (3002,
   * one message naming them all) without being resolved, so a frame of unknown ids costs the exchange no more
   * lookups than the cap allows. A market this connection already holds (a new depth) needs no room. Each opening
   * checks the cap again: the customer's other connections subscribe meanwhile.
   */
  private async subscribeAll(principal: Principal, markets: MarketRef[], addresses: AddressRef[]) {
    const max = principal.limits.wsMaxSubscriptions;
    const quota = await this.deps.quota.of(principal.customerId);
    if (this.closed) return;
    let left = max > 0 ? max - quota.used() : Number.POSITIVE_INFINITY;
    const held = new Set([...this.subs.values()].map((sub) => sub.svcId));
    const refused: string[] = [];
    for (const ref of markets) {
      const id = refId(ref);
      // A reference naming no market is refused by the selector itself, before any lookup.
      if (id !== undefined && !held.has(id)) {
        if (left <= 0) {
          refused.push(id);
          continue;
        }
        left -= 1;
      }
      if (ref.consolidated) await this.subscribeConsolidated(principal, ref, quota);
      else await this.subscribe(principal, ref, quota);
      if (this.closed) return;
    }
    if (refused.length > 0) {
      this.send(
        JSON.stringify({
          type: 'error',
          code: WS_ERROR.max_subscriptions,
          message: `${capMessage(max)}: ${refused.length} of this subscribe's markets refused, not looked up`,
          svc_id: refused[0],
          svc_ids: refused,
        }),
      );
    }
    const refusedAddresses: Array<{ exchange: string; address: string }> = [];
    for (const ref of addresses) this.watch(principal, ref, quota, refusedAddresses);
    if (refusedAddresses.length > 0) {
      const [first] = refusedAddresses;
      this.send(
        JSON.stringify({
          type: 'error',
          code: WS_ERROR.max_subscriptions,
          message: `${capMessage(max)}: ${refusedAddresses.length} of this subscribe's addresses refused`,
          ...first,
          addresses: refusedAddresses,
        }),
      );
    }
  }

  private async subscribe(principal: Principal, ref: MarketRef, quota: CustomerSubscriptions): Promise<void> {
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
    if (max > 0 && quota.used() >= max) return this.error('max_subscriptions', capMessage(max), target);
    const sub = this.deps.hub.subscribe(target, depth, this, principal.customerId);
    if (isPoolRefusal(sub)) return this.error('upstream_capacity', sub.message, target);
    this.subs.set(key, sub);
    this.meter.subscriptionOpened(target.market.svc_id);
    this.joinFillFeed(principal, target);
  }

  /** `consolidated: true`: the bet's book merged with its twins' (one subscription, however many venues). */
  private async subscribeConsolidated(
    principal: Principal,
    ref: MarketRef,
    quota: CustomerSubscriptions,
  ): Promise<void> {
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
    // One subscription towards the customer's cap, however many venues it merges (their books are held through
    // the hub, under its per-node pools).
    const max = principal.limits.wsMaxSubscriptions;
    if (max > 0 && quota.used() >= max) return this.error('max_subscriptions', capMessage(max), target);
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

  /**
   * `subscribe { arbitrage }`: one subscription towards the customer's cap (a new one on this connection replaces
   * the old filter); the books it follows are held through the book hub, under its per-node pools.
   */
  private async subscribeArbitrage(principal: Principal, ref: ArbitrageRef): Promise<void> {
    const arb = this.deps.arbitrage;
    if (!arb) return this.error('exchange_unavailable', 'the arbitrage channel is not served here');
    let exchanges: ExchangeId[];
    try {
      exchanges = arb.service.exchangesFor(ref.exchanges?.join(','));
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return this.error(
        error.code === 'not_supported' ? 'exchange_unavailable' : 'invalid_market',
        error.message,
      );
    }
    if (exchanges.length === 0) {
      return this.error('exchange_unavailable', 'no exchange here serves fetch_arbitrage');
    }
    if (!this.arbitrage) {
      const max = principal.limits.wsMaxSubscriptions;
      const quota = await this.deps.quota.of(principal.customerId);
      if (this.closed) return;
      if (max > 0 && quota.used() >= max) return this.error('max_subscriptions', capMessage(max));
    }
    const turn = ++this.arbitrageTurn;
    const scan = await arb.service.prepareWatch(
      exchanges,
      ref.min_tier ?? 'HIGH',
      MAX_WATCHED_PAIRS,
      this.callerOf(principal),
    );
    if (this.closed || turn !== this.arbitrageTurn) return;
    const replaced = this.arbitrage !== null;
    this.arbitrage?.close();
    this.arbitrage = new ArbitrageSubscription(
      this.deps.hub,
      arb.scanner,
      scan,
      { exchanges, minEdgeBps: ref.min_edge_bps ?? null, includeUnsafe: ref.include_unsafe === true },
      this,
      principal.customerId,
      this.now,
    );
    if (!replaced) this.meter.subscriptionOpened();
  }

  private endArbitrage(): void {
    this.arbitrageTurn += 1;
    if (!this.arbitrage) return;
    this.arbitrage.close();
    this.arbitrage = null;
    this.meter.subscriptionClosed();
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
  private watch(
    principal: Principal,
    ref: AddressRef,
    quota: CustomerSubscriptions,
    refused: Array<{ exchange: string; address: string }>,
  ): void {
    const venue = this.addressVenue(ref);
    if (!venue) return;
    const exchange = venue.descriptor.id;
    const address = ref.address.toLowerCase();
    const key = walletKey(exchange, address);
    if (this.wallets.has(key)) return;
    const max = principal.limits.wsMaxSubscriptions;
    if (max > 0 && quota.used() >= max) {
      refused.push({ exchange, address });
      return;
    }
    const sub = this.deps.wallets.subscribe(venue, address, this, principal.customerId);
    if (isPoolRefusal(sub)) {
      this.addressError('upstream_capacity', sub.message, { exchange, address });
      return;
    }
    this.wallets.set(key, sub);
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
      venueLookups: principal.limits,
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
          : error.code === 'rate_limit_exceeded'
            ? 'rate_limited'
            : error.code === 'not_supported' || isUpstreamFailure(error.code)
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
    if (this.pacing) {
      this.pacing = false;
      this.deps.pacer?.leave(this);
    }
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.authTimer);
    this.deps.seats.release(this.principal?.customerId ?? null);
    for (const [key, sub] of [...this.subs]) this.endSubscription(key, sub);
    for (const [key, sub] of [...this.consolidated]) this.endConsolidated(key, sub);
    for (const [key, sub] of [...this.wallets]) this.endWallet(key, sub);
    this.endArbitrage();
    for (const joined of this.fillFeeds.values()) void joined.then((release) => release?.());
    this.fillFeeds.clear();
    this.meter.close();
  }
}

/** The svc_id a market reference names, as the client spelled it (undefined: it names none). */
function refId(ref: MarketRef): string | undefined {
  if (ref.svc_id !== undefined) return ref.svc_id;
  return ref.exchange !== undefined && ref.market_id !== undefined
    ? `${ref.exchange}:${ref.market_id}`
    : undefined;
}

function capMessage(max: number): string {
  return `your tier allows ${max} subscriptions, across all your connections`;
}

function subKey(target: MarketTarget): string {
  return `${target.market.svc_id}\u0000${target.outcome.token_id}`;
}
