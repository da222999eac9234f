// One WebSocket per client, carrying every book and wallet it watches. It authenticates, keeps within the server's
// control-message rate (3 a second: this client sends at most 2, batching subscriptions into one frame), confirms
// each subscription by its first snapshot or fails it on the server's error for it — or after subscribeTimeoutMs,
// so an unknown id never hangs —, asks for a fresh snapshot when server_seq skips (`resync`), and when the
// connection drops or falls silent (no message, heartbeats included, for twice stale_after_ms) marks every book stale,
// reconnects with jittered backoff and subscribes everything still live again.
//
// Errors name a market only by svc_id (and a wallet only by exchange), so at most one subscription per svc_id (per
// exchange for wallets) is awaiting its confirmation at a time; the server handles frames in order, so the error
// that names it is its own.

import { type BookRef, LiveBook } from './book.js';
import { Emitter } from './emitter.js';
import {
  type ActivityMessage,
  type DeltaMessage,
  type ErrorMessage,
  errorFromMessage,
  type FeedState,
  OmnibookStreamError,
  type SnapshotMessage,
  type WalletActivityMessage,
} from './messages.js';
import { type WalletRef, WatchedWallet } from './wallet.js';

/** The part of the WebSocket interface this client uses: the browser's, Node 22's global, or the `ws` package. */
export interface WebSocketLike {
  readonly readyState: number;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}
export type WebSocketConstructor = new (url: string) => WebSocketLike;

export interface StreamOptions {
  /** `ws://host:port/ws`. */
  url: string;
  apiKey: string;
  /** A WebSocket implementation; default the global one, else the `ws` package. */
  WebSocket?: WebSocketConstructor;
  /** A subscription not confirmed (snapshot) or refused within this is rejected with code `timeout` (15 s). */
  subscribeTimeoutMs?: number;
  /** auth_ok must come within this, else the connection is replaced (10 s). */
  authTimeoutMs?: number;
  /** The server's stale_after_ms until it announces its own (30 s); silence for twice it ends the connection. */
  staleAfterMs?: number;
  /** Reconnect backoff: full jitter between 0 and min(maxDelayMs, minDelayMs·2^attempt). false: never reconnect. */
  reconnect?: { minDelayMs?: number; maxDelayMs?: number } | false;
  /** Control frames per second this client allows itself (2; the server takes 3). */
  controlRate?: number;
}

export type ConnectionState = 'idle' | 'connecting' | 'authenticating' | 'open' | 'reconnecting' | 'closed';

export interface StreamEvents {
  state: [ConnectionState];
  /** Anything that went wrong that no subscription's promise reports. */
  error: [OmnibookStreamError];
  reconnecting: [{ attempt: number; delayMs: number; code: number | null; reason: string }];
  open: [{ customer_id: string }];
  heartbeat: [{ ts_ms: number }];
  fill_feed: [{ exchange: string; feed_state: FeedState; reason?: string }];
}

type Sub = LiveBook | WatchedWallet;

interface Waiting {
  resolve: () => void;
  reject: (error: OmnibookStreamError) => void;
  timer: ReturnType<typeof setTimeout>;
  promise: Promise<Sub>;
}

/** Fatal close codes: the key is wrong or revoked, trying again cannot help. */
const CLOSE_REVOKED = 4003;
const MAX_REFS_PER_FRAME = 500;

export class OmnibookStream extends Emitter<StreamEvents> {
  state: ConnectionState = 'idle';
  private socket: WebSocketLike | null = null;
  private readonly books = new Map<string, LiveBook>();
  private readonly wallets = new Map<string, WatchedWallet>();
  private readonly waiting = new Map<Sub, Waiting>();
  private readonly toSubscribe = new Set<Sub>();
  /** Sent, not yet confirmed; the timer bounds a resubscription's wait (a first one's is in `waiting`). */
  private readonly inFlight = new Map<Sub, ReturnType<typeof setTimeout>>();
  private readonly locks = new Map<string, Sub>();
  private readonly toUnsubscribe = new Map<string, { book?: BookRef; wallet?: WalletRef }>();
  private readonly toResync = new Set<LiveBook>();
  /** Frames sent lately that a 3001 (frame refused) may have been about; repeating them is harmless. */
  private recentFrames: Array<{ at: number; frame: string }> = [];
  private tokens: number;
  private tokensAt = Date.now();
  private pausedUntil = 0;
  private flushTimer: ReturnType<typeof setTimeout> | null = null;
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  private authTimer: ReturnType<typeof setTimeout> | null = null;
  private watchdog: ReturnType<typeof setInterval> | null = null;
  private lastMessageAt = 0;
  private staleAfterMs: number;
  private attempt = 0;
  private fatal: OmnibookStreamError | null = null;
  private connected: Promise<void> | null = null;
  private readonly options: Required<Omit<StreamOptions, 'WebSocket' | 'reconnect'>> & {
    WebSocket?: WebSocketConstructor;
    reconnect: { minDelayMs: number; maxDelayMs: number } | false;
  };

  constructor(options: StreamOptions) {
    super();
    this.options = {
      url: options.url,
      apiKey: options.apiKey,
      subscribeTimeoutMs: options.subscribeTimeoutMs ?? 15_000,
      authTimeoutMs: options.authTimeoutMs ?? 10_000,
      staleAfterMs: options.staleAfterMs ?? 30_000,
      controlRate: options.controlRate ?? 2,
      reconnect:
        options.reconnect === false
          ? false
          : { minDelayMs: 250, maxDelayMs: 30_000, ...(options.reconnect ?? {}) },
      ...(options.WebSocket ? { WebSocket: options.WebSocket } : {}),
    };
    this.staleAfterMs = this.options.staleAfterMs;
    this.tokens = this.options.controlRate;
  }

  /** Opens and authenticates the connection (subscribing does it too); resolves once auth_ok came. */
  connect(): Promise<void> {
    if (this.state === 'closed') return Promise.reject(this.fatal ?? closedError());
    if (!this.connected) {
      this.connected = new Promise<void>((resolve, reject) => {
        const offOpen = this.once('open', () => {
          offError();
          resolve();
        });
        const offError = this.on('state', (s) => {
          if (s === 'closed') {
            offOpen();
            offError();
            reject(this.fatal ?? closedError());
          }
        });
      });
      this.connected.catch(() => undefined);
      if (this.state === 'idle') void this.open();
    }
    return this.connected;
  }

  /**
   * Subscribes one book; resolves with it once its first snapshot arrived, rejects with the server's error for it
   * (`market_not_found`, `invalid_outcome`, `max_subscriptions`, …) or `timeout`. The same book twice is one
   * subscription.
   */
  subscribeBook(ref: BookRef): Promise<LiveBook> {
    if (typeof ref.svc_id !== 'string' || ref.svc_id.length === 0) {
      return Promise.reject(new OmnibookStreamError('invalid_market', 'subscribeBook needs a svc_id'));
    }
    const key = LiveBook.key(ref.svc_id, ref.outcome ?? 'yes');
    const existing = this.books.get(key);
    if (existing)
      return (this.waiting.get(existing)?.promise as Promise<LiveBook>) ?? Promise.resolve(existing);
    const book = new LiveBook(ref, (b) => this.release(b));
    this.books.set(key, book);
    return this.enlist(book) as Promise<LiveBook>;
  }

  /** Watches a wallet; resolves once its first `wallet_activity` (the snapshot) arrived. */
  watchWallet(ref: WalletRef): Promise<WatchedWallet> {
    const key = WatchedWallet.key(ref.exchange, ref.address);
    const existing = this.wallets.get(key);
    if (existing)
      return (this.waiting.get(existing)?.promise as Promise<WatchedWallet>) ?? Promise.resolve(existing);
    const wallet = new WatchedWallet(ref, (w) => this.release(w));
    this.wallets.set(key, wallet);
    return this.enlist(wallet) as Promise<WatchedWallet>;
  }

  /** Every live book and wallet. */
  get subscriptions(): { books: LiveBook[]; wallets: WatchedWallet[] } {
    return { books: [...this.books.values()], wallets: [...this.wallets.values()] };
  }

  /** Closes the connection for good: pending subscriptions are rejected, books and wallets closed. */
  close(): void {
    if (this.state === 'closed') return;
    this.shutDown(null);
  }

  // -----------------------------------------------------------------------------------------------------------
  // Subscriptions

  private enlist(sub: Sub): Promise<Sub> {
    if (this.state === 'closed') {
      this.forget(sub);
      return Promise.reject(this.fatal ?? closedError());
    }
    let resolve!: () => void;
    let reject!: (error: OmnibookStreamError) => void;
    const promise = new Promise<Sub>((res, rej) => {
      resolve = () => res(sub);
      reject = rej;
    });
    const timer = setTimeout(() => {
      const what =
        sub instanceof LiveBook ? `${sub.svcId} (${sub.outcome})` : `${sub.exchange} ${sub.address}`;
      this.fail(
        sub,
        new OmnibookStreamError(
          'timeout',
          `no snapshot or error for ${what} within ${this.options.subscribeTimeoutMs} ms`,
          sub instanceof LiveBook ? { svcId: sub.svcId } : { exchange: sub.exchange },
        ),
      );
    }, this.options.subscribeTimeoutMs);
    this.waiting.set(sub, { resolve, reject, timer, promise });
    this.toSubscribe.add(sub);
    if (this.state === 'idle') void this.connect();
    else this.flush();
    return promise;
  }

  private lockOf(sub: Sub): string {
    return sub instanceof LiveBook ? `b:${sub.svcId}` : `w:${sub.exchange}`;
  }

  /** The subscription is live: its first message came. */
  private confirm(sub: Sub): void {
    this.settle(sub);
    const waiting = this.waiting.get(sub);
    if (waiting) {
      clearTimeout(waiting.timer);
      this.waiting.delete(sub);
      waiting.resolve();
    }
  }

  /** Ends the in-flight state of a subscription (confirmed or failed) and lets the next of its lock go. */
  private settle(sub: Sub): void {
    const timer = this.inFlight.get(sub);
    if (timer !== undefined) clearTimeout(timer);
    if (this.inFlight.delete(sub) && this.locks.get(this.lockOf(sub)) === sub) {
      this.locks.delete(this.lockOf(sub));
      this.flush();
    }
  }

  /** The server refused the subscription, or it timed out: reject its promise, or close it with the error. */
  private fail(sub: Sub, error: OmnibookStreamError): void {
    const wasSent = this.inFlight.has(sub);
    this.settle(sub);
    this.toSubscribe.delete(sub);
    this.forget(sub);
    // A timed-out subscription may still be set up by the server later: take it back.
    if (error.code === 'timeout' && wasSent) this.queueUnsubscribe(sub);
    const waiting = this.waiting.get(sub);
    if (waiting) {
      clearTimeout(waiting.timer);
      this.waiting.delete(sub);
      waiting.reject(error);
      sub.close();
    } else {
      sub.close(error);
      this.emit('error', error);
    }
    this.flush();
  }

  private forget(sub: Sub): void {
    if (sub instanceof LiveBook) {
      if (this.books.get(sub.key) === sub) this.books.delete(sub.key);
      this.toResync.delete(sub);
    } else if (this.wallets.get(sub.key) === sub) this.wallets.delete(sub.key);
  }

  private async release(sub: Sub): Promise<void> {
    if (sub.state === 'closed') return;
    const sent = !this.toSubscribe.has(sub);
    this.settle(sub);
    this.toSubscribe.delete(sub);
    this.forget(sub);
    if (sent && this.state === 'open') this.queueUnsubscribe(sub);
    const waiting = this.waiting.get(sub);
    if (waiting) {
      clearTimeout(waiting.timer);
      this.waiting.delete(sub);
      waiting.reject(new OmnibookStreamError('closed', 'unsubscribed before it was confirmed'));
    }
    sub.close();
    this.flush();
  }

  private queueUnsubscribe(sub: Sub): void {
    if (sub instanceof LiveBook) {
      this.toUnsubscribe.set(`b:${sub.key}`, { book: { svc_id: sub.svcId, outcome: sub.outcome } });
    } else {
      this.toUnsubscribe.set(`w:${sub.key}`, { wallet: { exchange: sub.exchange, address: sub.address } });
    }
  }

  // -----------------------------------------------------------------------------------------------------------
  // Control frames, paced

  private takeToken(): number {
    const now = Date.now();
    if (now < this.pausedUntil) return this.pausedUntil - now;
    const rate = this.options.controlRate;
    this.tokens = Math.min(rate, this.tokens + ((now - this.tokensAt) / 1000) * rate);
    this.tokensAt = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - this.tokens) / rate) * 1000);
  }

  private hasWork(): boolean {
    return this.toUnsubscribe.size > 0 || this.toResync.size > 0 || this.sendable().length > 0;
  }

  /** Queued subscriptions whose lock is free, at most one per lock. */
  private sendable(): Sub[] {
    const out: Sub[] = [];
    const taken = new Set(this.locks.keys());
    for (const sub of this.toSubscribe) {
      const lock = this.lockOf(sub);
      if (taken.has(lock)) continue;
      taken.add(lock);
      out.push(sub);
      if (out.length >= MAX_REFS_PER_FRAME) break;
    }
    return out;
  }

  private flush(): void {
    if (this.state !== 'open' || this.flushTimer) return;
    while (this.hasWork()) {
      const wait = this.takeToken();
      if (wait > 0) {
        this.flushTimer = setTimeout(() => {
          this.flushTimer = null;
          this.flush();
        }, wait);
        return;
      }
      this.sendFrame(this.nextFrame());
    }
  }

  private nextFrame(): Record<string, unknown> {
    if (this.toUnsubscribe.size > 0) {
      const entries = [...this.toUnsubscribe].slice(0, MAX_REFS_PER_FRAME);
      for (const [key] of entries) this.toUnsubscribe.delete(key);
      const markets = entries.flatMap(([, v]) => (v.book ? [v.book] : []));
      const addresses = entries.flatMap(([, v]) => (v.wallet ? [v.wallet] : []));
      return { type: 'unsubscribe', markets, addresses };
    }
    const batch = this.sendable();
    if (batch.length > 0) {
      const markets: BookRef[] = [];
      const addresses: WalletRef[] = [];
      for (const sub of batch) {
        this.toSubscribe.delete(sub);
        this.locks.set(this.lockOf(sub), sub);
        const timer = setTimeout(() => this.resubscriptionTimedOut(sub), this.options.subscribeTimeoutMs);
        this.inFlight.set(sub, timer);
        if (sub instanceof LiveBook) {
          markets.push({
            svc_id: sub.svcId,
            outcome: sub.outcome,
            ...(sub.depth !== undefined ? { depth: sub.depth } : {}),
          });
        } else addresses.push({ exchange: sub.exchange, address: sub.address });
      }
      return { type: 'subscribe', markets, addresses };
    }
    const [book] = this.toResync;
    this.toResync.delete(book as LiveBook);
    return { type: 'resync', svc_id: book?.svcId, outcome: book?.outcome };
  }

  private resubscriptionTimedOut(sub: Sub): void {
    if (!this.inFlight.has(sub) || this.waiting.has(sub)) return; // a first subscription's own timer decides
    this.settle(sub);
    this.toSubscribe.add(sub);
    const what = sub instanceof LiveBook ? sub.svcId : `${sub.exchange} ${sub.address}`;
    this.emit(
      'error',
      new OmnibookStreamError('timeout', `resubscribing ${what}: no answer yet, trying again`),
    );
    this.flush();
  }

  private sendFrame(frame: Record<string, unknown>): void {
    const text = JSON.stringify(frame);
    const now = Date.now();
    this.recentFrames = this.recentFrames.filter((f) => now - f.at < 2_000);
    if (frame.type !== 'auth') this.recentFrames.push({ at: now, frame: text });
    this.socket?.send(text);
  }

  // -----------------------------------------------------------------------------------------------------------
  // Connection

  private setState(state: ConnectionState): void {
    if (this.state === state) return;
    this.state = state;
    this.emit('state', state);
  }

  private async open(): Promise<void> {
    this.setState('connecting');
    let WS: WebSocketConstructor;
    try {
      WS = await webSocketConstructor(this.options.WebSocket);
    } catch (error) {
      this.shutDown(
        new OmnibookStreamError('unavailable', `no WebSocket implementation: ${(error as Error).message}`),
      );
      return;
    }
    if (this.state !== 'connecting') return;
    let socket: WebSocketLike;
    try {
      socket = new WS(this.options.url);
    } catch (error) {
      this.shutDown(new OmnibookStreamError('invalid_url', (error as Error).message));
      return;
    }
    this.socket = socket;
    socket.onopen = () => {
      if (this.socket !== socket) return;
      this.setState('authenticating');
      this.lastMessageAt = Date.now();
      this.tokens = this.options.controlRate;
      this.tokensAt = Date.now();
      this.takeToken();
      this.sendFrame({ type: 'auth', api_key: this.options.apiKey });
      this.authTimer = setTimeout(() => {
        this.emit('error', new OmnibookStreamError('timeout', 'no auth_ok within authTimeoutMs'));
        this.drop(socket);
      }, this.options.authTimeoutMs);
      this.startWatchdog(socket);
    };
    socket.onmessage = (event) => {
      if (this.socket !== socket) return;
      this.lastMessageAt = Date.now();
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(String(event.data)) as Record<string, unknown>;
      } catch {
        return;
      }
      this.route(message);
    };
    socket.onerror = () => undefined; // the close event that follows says what happened
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.lost(event.code, event.reason);
    };
  }

  private startWatchdog(socket: WebSocketLike): void {
    if (this.watchdog) clearInterval(this.watchdog);
    const tick = Math.max(50, Math.floor(this.staleAfterMs / 4));
    this.watchdog = setInterval(() => {
      if (this.socket !== socket) return;
      // Twice the server's own bound: a busy client (a long synchronous handler) is not taken for a dead socket.
      const silentMs = 2 * this.staleAfterMs;
      if (Date.now() - this.lastMessageAt <= silentMs) return;
      for (const book of this.books.values()) book.connectionLost('silent');
      this.emit('error', new OmnibookStreamError('disconnected', `nothing heard for ${silentMs} ms`));
      this.drop(socket);
    }, tick);
    (this.watchdog as { unref?: () => void }).unref?.();
  }

  /** Abandons a socket that misbehaves and reconnects. */
  private drop(socket: WebSocketLike): void {
    if (this.socket !== socket) return;
    const terminate = (socket as { terminate?: () => void }).terminate;
    if (terminate) terminate.call(socket);
    else socket.close(4000, 'client gave up on the connection');
    this.lost(null, 'client gave up on the connection');
  }

  private lost(code: number | null, reason: string): void {
    this.socket = null;
    this.clearConnectionTimers();
    if (this.state === 'closed') return;
    if (code === CLOSE_REVOKED) {
      this.shutDown(new OmnibookStreamError('revoked', 'the API key was revoked'));
      return;
    }
    if (this.fatal) {
      this.shutDown(this.fatal);
      return;
    }
    // The server forgot everything: every live subscription is sent again on the next connection.
    for (const sub of this.inFlight.keys()) this.toSubscribe.add(sub);
    for (const timer of this.inFlight.values()) clearTimeout(timer);
    this.inFlight.clear();
    this.locks.clear();
    this.toUnsubscribe.clear();
    this.toResync.clear();
    for (const book of this.books.values()) {
      book.connectionLost('disconnected');
      this.toSubscribe.add(book);
    }
    for (const wallet of this.wallets.values()) {
      wallet.connectionLost();
      this.toSubscribe.add(wallet);
    }
    if (this.options.reconnect === false) {
      this.shutDown(new OmnibookStreamError('disconnected', `connection closed (${code ?? '-'}) ${reason}`));
      return;
    }
    const { minDelayMs, maxDelayMs } = this.options.reconnect;
    const delayMs = Math.round(Math.random() * Math.min(maxDelayMs, minDelayMs * 2 ** this.attempt));
    this.attempt += 1;
    this.setState('reconnecting');
    this.emit('reconnecting', { attempt: this.attempt, delayMs, code, reason });
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      void this.open();
    }, delayMs);
  }

  private clearConnectionTimers(): void {
    if (this.authTimer) clearTimeout(this.authTimer);
    if (this.flushTimer) clearTimeout(this.flushTimer);
    if (this.watchdog) clearInterval(this.watchdog);
    this.authTimer = null;
    this.flushTimer = null;
    this.watchdog = null;
  }

  private shutDown(error: OmnibookStreamError | null): void {
    if (error) this.fatal = error;
    const socket = this.socket;
    this.socket = null;
    this.clearConnectionTimers();
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    socket?.close(1000, 'client closed');
    const why = error ?? closedError();
    for (const [sub, waiting] of [...this.waiting]) {
      clearTimeout(waiting.timer);
      waiting.reject(why);
      sub.close();
    }
    this.waiting.clear();
    for (const timer of this.inFlight.values()) clearTimeout(timer);
    this.inFlight.clear();
    for (const sub of [...this.books.values(), ...this.wallets.values()]) sub.close(error ?? undefined);
    this.books.clear();
    this.wallets.clear();
    this.toSubscribe.clear();
    this.setState('closed');
    if (error) this.emit('error', error);
  }

  // -----------------------------------------------------------------------------------------------------------
  // What the server sends

  private route(m: Record<string, unknown>): void {
    switch (m.type) {
      case 'auth_ok':
        if (this.authTimer) clearTimeout(this.authTimer);
        this.authTimer = null;
        this.attempt = 0;
        this.setState('open');
        this.emit('open', { customer_id: String(m.customer_id) });
        this.flush();
        return;
      case 'auth_error':
        // The server closes the socket next; this key will not work on another one either.
        this.fatal = new OmnibookStreamError('auth_failed', String(m.message ?? 'invalid API key'));
        return;
      case 'heartbeat':
        this.emit('heartbeat', { ts_ms: Number(m.ts_ms) });
        return;
      case 'fill_feed':
        this.emit('fill_feed', m as unknown as StreamEvents['fill_feed'][0]);
        return;
      case 'error':
        this.routeError(m as unknown as ErrorMessage);
        return;
      case 'wallet_activity': {
        const w = m as unknown as WalletActivityMessage;
        const wallet = this.wallets.get(WatchedWallet.key(w.exchange, w.address));
        if (!wallet) return;
        if (this.inFlight.has(wallet) || this.waiting.has(wallet)) this.confirm(wallet);
        wallet.handle(w);
        return;
      }
      case 'orderbook':
      case 'orderbook_delta':
      case 'activity':
      case 'resync_required':
      case 'slow_reader': {
        if (typeof m.svc_id !== 'string' || typeof m.outcome !== 'string') return;
        const book = this.books.get(LiveBook.key(m.svc_id, m.outcome));
        if (!book) return;
        if (typeof m.stale_after_ms === 'number' && m.stale_after_ms > 0)
          this.staleAfterMs = m.stale_after_ms;
        if (m.type === 'orderbook' && (this.inFlight.has(book) || this.waiting.has(book))) this.confirm(book);
        const action = book.handle(
          m as unknown as
            | SnapshotMessage
            | DeltaMessage
            | ActivityMessage
            | { type: 'resync_required'; server_seq: number },
        );
        if (action === 'resync') {
          this.toResync.add(book);
          this.flush();
        }
        return;
      }
    }
  }

  private routeError(m: ErrorMessage): void {
    const error = errorFromMessage(m);
    if (m.code === 3001 && m.svc_id === undefined && m.exchange === undefined) {
      // A control frame was refused (sent too fast): send again what may have been lost, once allowed.
      this.pausedUntil = Date.now() + (m.retry_after_ms ?? 1_000);
      for (const sub of [...this.inFlight.keys()]) {
        this.settle(sub);
        this.toSubscribe.add(sub);
      }
      const frames = this.recentFrames;
      this.recentFrames = [];
      for (const f of frames) {
        const parsed = JSON.parse(f.frame) as {
          type: string;
          svc_id?: string;
          outcome?: string;
          markets?: BookRef[];
          addresses?: WalletRef[];
        };
        if (parsed.type === 'unsubscribe') {
          for (const b of parsed.markets ?? [])
            this.toUnsubscribe.set(`b:${LiveBook.key(b.svc_id, b.outcome ?? 'yes')}`, { book: b });
          for (const w of parsed.addresses ?? [])
            this.toUnsubscribe.set(`w:${WatchedWallet.key(w.exchange, w.address)}`, { wallet: w });
        } else if (parsed.type === 'resync' && parsed.svc_id) {
          const book = this.books.get(LiveBook.key(parsed.svc_id, parsed.outcome ?? 'yes'));
          if (book) this.toResync.add(book);
        }
      }
      this.flush();
      return;
    }
    const targets: Sub[] = [];
    const ids = m.svc_ids ?? (m.svc_id !== undefined ? [m.svc_id] : []);
    for (const id of ids) {
      const sub = this.locks.get(`b:${id}`);
      if (sub) targets.push(sub);
    }
    if (ids.length === 0 && m.exchange !== undefined) {
      const sub = this.locks.get(`w:${m.exchange.toLowerCase()}`);
      if (sub) targets.push(sub);
    }
    if (targets.length === 0) {
      this.emit('error', error);
      return;
    }
    for (const sub of targets) this.fail(sub, error);
  }
}

function closedError(): OmnibookStreamError {
  return new OmnibookStreamError('closed', 'the stream is closed');
}

async function webSocketConstructor(given?: WebSocketConstructor): Promise<WebSocketConstructor> {
  if (given) return given;
  const global = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (typeof global === 'function') return global;
  const ws = (await import('ws')) as unknown as { default: WebSocketConstructor };
  return ws.default;
}
