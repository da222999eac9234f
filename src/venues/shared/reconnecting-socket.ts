// One venue WebSocket that stays up: heartbeats in the venue's own style (text frames such as `PING`, or protocol
// ping frames), a stale-connection watchdog (no inbound frame for `staleAfterMs` means the feed is dead even if
// TCP says otherwise), and reconnects with capped, jittered backoff. On every (re)open it calls `onOpen`, where
// the adapter authenticates and restores its subscriptions; it never has to track reconnects itself.
import WebSocket from 'ws';
import type { ExchangeId } from '../../domain/exchanges.js';
import type { FeedState } from '../../domain/stream.js';
import type { DriftSink, LoggerLike, PayloadCapture } from '../port.js';

export interface ReconnectingSocketOptions {
  venue: ExchangeId;
  /** Evaluated per connection attempt (some venues put a fresh token in the URL). */
  url: () => string;
  /** Upgrade-request headers, evaluated per attempt (some venues sign the handshake). */
  headers?: () => Record<string, string>;
  logger: LoggerLike;
  /** Told of a frame `onMessage` could not decode (the drift alarm). */
  drift?: DriftSink;
  /** Told of every text frame received (`omnibook record`). */
  capture?: PayloadCapture;
  onOpen(send: (frame: string) => void): void;
  onMessage(text: string): void;
  onState(state: FeedState, reason: string): void;
  heartbeat: {
    intervalMs: number;
    /** A text frame the venue expects (e.g. `PING`); omit to send protocol-level ping frames instead. */
    frame?: () => string;
  };
  staleAfterMs: number;
  backoff?: { initialMs: number; maxMs: number };
}

export class ReconnectingSocket {
  private socket: WebSocket | null = null;
  private closed = false;
  private failures = 0;
  private lastInboundAt = 0;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private current: FeedState = 'disconnected';

  constructor(private readonly options: ReconnectingSocketOptions) {}

  get state(): FeedState {
    return this.current;
  }

  start(): void {
    if (this.socket || this.closed) return;
    this.connect();
  }

  /** Sends on the open connection; false when none is open (onOpen restores state on the next one). */
  send(frame: string): boolean {
    if (this.socket?.readyState !== WebSocket.OPEN) return false;
    this.socket.send(frame);
    return true;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.clearTimers();
    const socket = this.socket;
    this.socket = null;
    if (socket && socket.readyState !== WebSocket.CLOSED) {
      await new Promise<void>((resolve) => {
        socket.once('close', () => resolve());
        socket.terminate();
      });
    }
    this.setState('disconnected', 'closed by us');
  }

  private connect(): void {
    const { options } = this;
    let socket: WebSocket;
    try {
      socket = new WebSocket(options.url(), { headers: options.headers?.(), handshakeTimeout: 10_000 });
    } catch (error) {
      this.scheduleReconnect(`cannot connect: ${(error as Error).message}`);
      return;
    }
    this.socket = socket;
    socket.on('open', () => {
      this.failures = 0;
      this.lastInboundAt = Date.now();
      this.setState('healthy', 'connected');
      this.startHeartbeat(socket);
      try {
        options.onOpen((frame) => socket.send(frame));
      } catch (error) {
        options.logger.error({ venue: options.venue, err: error }, 'stream onOpen failed');
        socket.terminate();
      }
    });
    socket.on('message', (data, isBinary) => {
      this.lastInboundAt = Date.now();
      if (isBinary) return;
      const text = String(data);
      options.capture?.({ venue: options.venue, kind: 'ws', operation: 'ws', body: text });
      try {
        options.onMessage(text);
      } catch (error) {
        // One unreadable frame must not take the feed down; it is counted, logged and skipped.
        options.drift?.(error);
        options.logger.warn({ venue: options.venue, err: error }, 'stream frame could not be handled');
      }
    });
    socket.on('pong', () => {
      this.lastInboundAt = Date.now();
    });
    socket.on('ping', () => {
      this.lastInboundAt = Date.now();
    });
    socket.on('error', (error) => {
      options.logger.debug({ venue: options.venue, err: error }, 'stream socket error');
    });
    socket.on('close', (code) => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.clearTimers();
      if (!this.closed) this.scheduleReconnect(`connection closed (${code})`);
    });
  }

  private startHeartbeat(socket: WebSocket): void {
    const { heartbeat, staleAfterMs } = this.options;
    const tick = Math.min(heartbeat.intervalMs, Math.max(50, Math.floor(staleAfterMs / 2)));
    let sinceBeat = 0;
    this.heartbeatTimer = setInterval(() => {
      if (Date.now() - this.lastInboundAt > staleAfterMs) {
        this.setState('degraded', `no frame for ${staleAfterMs} ms`);
        socket.terminate();
        return;
      }
      sinceBeat += tick;
      if (sinceBeat < heartbeat.intervalMs || socket.readyState !== WebSocket.OPEN) return;
      sinceBeat = 0;
      if (heartbeat.frame) socket.send(heartbeat.frame());
      else socket.ping();
    }, tick);
    this.heartbeatTimer.unref();
  }

  private scheduleReconnect(reason: string): void {
    this.setState('disconnected', reason);
    const { initialMs, maxMs } = this.options.backoff ?? { initialMs: 100, maxMs: 10_000 };
    const ceiling = Math.min(maxMs, initialMs * 2 ** this.failures);
    this.failures += 1;
    const delay = Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
    this.options.logger.info({ venue: this.options.venue, reason, delayMs: delay }, 'stream reconnecting');
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (!this.closed) this.connect();
    }, delay);
  }

  private setState(state: FeedState, reason: string): void {
    if (state === this.current) return;
    this.current = state;
    this.options.onState(state, reason);
  }

  private clearTimers(): void {
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.heartbeatTimer = null;
    this.reconnectTimer = null;
  }
}
