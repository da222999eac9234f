// One client's WebSocket session: `auth` within the deadline, then subscribe / unsubscribe / resync under the
// tier's limits (subscriptions, depth) and at most 3 control messages a second. Book messages come from the hub;
// this class owns the socket's backpressure (a slow client is conflated, a hopeless one dropped) and the errors.
import type { WebSocket } from 'ws';
import { type Bucket, takeToken } from '../domain/token-bucket.js';
import { AppError } from '../errors/app-error.js';
import type { CallerContext } from '../services/caller-context.js';
import type { MarketTarget, MarketTargets } from '../services/market-data/market-target.js';
import type { ApiKeyService } from '../tenancy/api-keys.js';
import type { Principal } from '../tenancy/principal.js';
import type { BookHub, BookSubscription, BookTransport } from './book-hub.js';
import { type MarketRef, parseClientMessage, WS_ERROR, type WsErrorName } from './protocol.js';

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
  limits: ConnectionLimits;
  logger: CallerContext['logger'];
  now?: () => number;
}

/** Close code when no auth arrived in time (4000–4999 are the application's own). */
const CLOSE_AUTH_TIMEOUT = 4001;

export class WsConnection implements BookTransport {
  private principal: Principal | null = null;
  private authenticating = false;
  private readonly subs = new Map<string, BookSubscription>();
  private readonly bucket: Bucket;
  private readonly authTimer: NodeJS.Timeout;
  private closed = false;
  private readonly now: () => number;
  /** Control messages are handled one after another, in the order they arrived. */
  private handling: Promise<void> = Promise.resolve();

  constructor(
    private readonly socket: WebSocket,
    readonly id: string,
    private readonly deps: ConnectionDeps,
  ) {
    this.now = deps.now ?? Date.now;
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

  get subscriptionCount(): number {
    return this.subs.size;
  }

  // BookTransport
  congestion(): 'ok' | 'slow' | 'hopeless' {
    const queued = this.socket.bufferedAmount;
    if (queued >= this.deps.limits.hopelessBytes) return 'hopeless';
    if (queued >= this.deps.limits.slowBytes) return 'slow';
    return 'ok';
  }

  send(frame: string): void {
    if (this.closed) return;
    this.socket.send(frame);
  }

  drop(reason: string): void {
    if (this.closed) return;
    this.deps.logger.warn({ connection: this.id, reason }, 'websocket client dropped');
    // terminate(): a client that does not read would never complete a closing handshake.
    this.socket.terminate();
    this.cleanUp();
  }

  heartbeat(): void {
    if (this.closed || !this.principal) return;
    this.send(`{"type":"heartbeat","ts_ms":${this.now()}}`);
    for (const sub of this.subs.values()) sub.catchUp();
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
          if (message.addresses.length > 0) {
            this.error('exchange_unavailable', 'wallet address subscriptions (watch_address) are not served');
          }
          for (const ref of message.markets) await this.subscribe(principal, ref);
          return;
        case 'unsubscribe':
          for (const ref of message.markets) await this.unsubscribe(principal, ref);
          return;
        case 'resync': {
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
      this.deps.hub.unsubscribe(existing);
      this.subs.delete(key);
    }
    const max = principal.limits.wsMaxSubscriptions;
    if (max > 0 && this.subs.size >= max) {
      return this.error('max_subscriptions', `your tier allows ${max} subscriptions per connection`, target);
    }
    this.subs.set(key, this.deps.hub.subscribe(target, depth, this));
  }

  private async unsubscribe(principal: Principal, ref: MarketRef): Promise<void> {
    const target = await this.target(principal, ref);
    if (!target) return;
    const sub = this.subs.get(subKey(target));
    if (!sub) return;
    this.subs.delete(subKey(target));
    this.deps.hub.unsubscribe(sub);
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
    for (const sub of this.subs.values()) this.deps.hub.unsubscribe(sub);
    this.subs.clear();
  }
}

function subKey(target: MarketTarget): string {
  return `${target.market.svc_id}\u0000${target.outcome.token_id}`;
}
