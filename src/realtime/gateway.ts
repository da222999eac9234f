// GET /ws (and /api/v1/ws): the WebSocket gateway on the API server's own port. An HTTP request without an
// Upgrade is told so (400); an upgrade is handed to `ws` and becomes a WsConnection, unless this node already holds
// as many unauthenticated connections as it allows (429). One heartbeat timer serves every connection and lets
// conflated subscriptions catch up once their client drains; one sweep closes the connections of revoked keys.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { WebSocketServer } from 'ws';
import { AppError } from '../errors/app-error.js';
import { type ConnectionDeps, type ConnectionLimits, WsConnection } from './connection.js';

export const WS_PATHS = ['/ws', '/api/v1/ws'] as const;
/** Close code of a connection whose API key was revoked (an end-user deactivated) after it authenticated. */
export const CLOSE_KEY_REVOKED = 4003;

export interface GatewayOptions extends Omit<ConnectionDeps, 'limits'> {
  limits: ConnectionLimits;
  heartbeatMs: number;
  /**
   * How often the keys of the open connections are read back (auth.keyCacheTtlMs): a key revoked where no key
   * change is announced (the CLI, another process) closes its sockets within about the time REST refuses it.
   */
  revocationSweepMs: number;
}

/** The answer to an upgrade past the unauthenticated connections' cap, in the API's error shape. */
const TOO_MANY_UNAUTHENTICATED = (() => {
  const body = JSON.stringify({
    error: 'too many WebSocket connections are waiting to authenticate; retry shortly',
    code: 'rate_limit_exceeded',
    retryable: true,
  });
  return (
    'HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nRetry-After: 1\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
})();

export class WebSocketGateway {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 256 * 1024 });
  private readonly connections = new Set<WsConnection>();
  private heartbeat: NodeJS.Timeout | null = null;
  private sweep: NodeJS.Timeout | null = null;
  private sweeping = false;
  private closing = false;

  constructor(private readonly options: GatewayOptions) {}

  /** Registers the routes and the upgrade handler on the app (call before the app is ready). */
  register(app: FastifyInstance): void {
    for (const url of WS_PATHS) {
      app.get(url, { schema: { hide: true } }, async () => {
        throw new AppError(
          'bad_request',
          `${url} speaks WebSocket: send an HTTP Upgrade request (wire contract §6)`,
        );
      });
    }
    app.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      const path = (request.url ?? '').split('?')[0];
      if (this.closing || !WS_PATHS.some((p) => p === path)) {
        socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\r\n');
        return;
      }
      if (!this.options.seats.hasRoom) {
        socket.end(TOO_MANY_UNAUTHENTICATED);
        return;
      }
      this.wss.handleUpgrade(request, socket, head, (ws) => {
        // Taken here, where the handshake has succeeded (a failed one never calls back), and released by the
        // connection when it ends.
        this.options.seats.open();
        const connection = new WsConnection(ws, randomUUID(), this.options);
        this.connections.add(connection);
        ws.on('close', () => this.connections.delete(connection));
      });
    });
    app.addHook('onReady', async () => {
      this.heartbeat = setInterval(() => {
        for (const c of this.connections) c.heartbeat();
      }, this.options.heartbeatMs);
      this.heartbeat.unref();
      this.sweep = setInterval(() => {
        // One sweep at a time: a slow database read is not stacked up under the next.
        if (this.sweeping) return;
        this.sweeping = true;
        this.dropRevoked()
          .catch((err: unknown) => {
            this.options.logger.warn({ err }, 'reading back the keys of open WebSockets failed');
          })
          .finally(() => {
            this.sweeping = false;
          });
      }, this.options.revocationSweepMs);
      this.sweep.unref();
    });
    app.addHook('preClose', async () => this.close());
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  /** Connections that have not authenticated yet (their cap is websocket.maxUnauthenticated). */
  get unauthenticatedCount(): number {
    return this.options.seats.unauthenticatedCount;
  }

  /**
   * Closes (4003) every connection whose API key no longer works: called when keys changed (a key revoked through
   * the API, a builder deactivated an end-user, here or on another node), so its open sockets end at once rather
   * than living on with the key they authenticated with, and every revocationSweepMs for revocations nobody
   * announces (the CLI). The distinct keys are read in one indexed query (per batch); none when no socket is
   * authenticated.
   */
  async dropRevoked(): Promise<void> {
    const byKey = new Map<string, WsConnection[]>();
    for (const c of this.connections) {
      const id = c.keyId;
      if (id === null) continue;
      const list = byKey.get(id);
      if (list) list.push(c);
      else byKey.set(id, [c]);
    }
    if (byKey.size === 0) return;
    const active = await this.options.keys.activeIds([...byKey.keys()]);
    for (const [id, connections] of byKey) {
      if (active.has(id)) continue;
      for (const c of connections) c.close(CLOSE_KEY_REVOKED, 'api key revoked');
    }
  }

  /** Closes every connection (1001 going away) and stops the heartbeat; new upgrades are refused. */
  close(): void {
    this.closing = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.sweep) clearInterval(this.sweep);
    for (const c of this.connections) c.close(1001, 'server shutting down');
    this.connections.clear();
    this.options.wallets.close();
    this.options.fills.close();
    this.wss.close();
  }
}
