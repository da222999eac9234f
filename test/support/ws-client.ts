// A WebSocket test client: every message the server sends is kept in order, and `next` waits (on the messages
// themselves, never on a timer) for the first one after a point that matches.
import WebSocket from 'ws';

export type WsMessage = Record<string, unknown> & { type: string };

export class WsTestClient {
  readonly messages: WsMessage[] = [];
  /** When each message arrived (performance.now()), for measurements; tests never assert on them. */
  readonly arrivals: number[] = [];
  /** Bytes of every message received (what the server's usage meter counts as sent). */
  bytes = 0;
  private readonly waiters = new Set<() => void>();
  closed: { code: number; reason: string } | null = null;
  /** Headers of the server's 101 answer (behind a balancer, e.g. which node took the connection). */
  upgradeHeaders: Record<string, string | string[] | undefined> = {};

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data: Buffer) => {
      this.bytes += data.length;
      this.messages.push(JSON.parse(data.toString()) as WsMessage);
      this.arrivals.push(performance.now());
      for (const wake of this.waiters) wake();
    });
    socket.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      for (const wake of this.waiters) wake();
    });
  }

  static open(url: string): Promise<WsTestClient> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url);
      let headers: WsTestClient['upgradeHeaders'] = {};
      socket.once('upgrade', (res) => {
        headers = res.headers;
      });
      socket.once('open', () => {
        const client = new WsTestClient(socket);
        client.upgradeHeaders = headers;
        resolve(client);
      });
      socket.once('error', reject);
    });
  }

  send(message: unknown): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** Index the next `next()` starts from: the number of messages received so far. */
  get mark(): number {
    return this.messages.length;
  }

  /** The first message at or after `from` that matches, waiting for it (a test deadline ends a wait that hangs). */
  next(match: (m: WsMessage) => boolean, from = 0, timeoutMs = 20_000): Promise<WsMessage> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.messages.slice(from).find(match);
        if (found) {
          cleanup();
          resolve(found);
        } else if (this.closed) {
          cleanup();
          reject(new Error(`socket closed (${this.closed.code}) before the message came`));
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(
          new Error(
            `no matching message within ${timeoutMs} ms; got ${JSON.stringify(this.messages.slice(from))}`,
          ),
        );
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  /** Resolves once the server closed the socket. */
  waitClosed(): Promise<{ code: number; reason: string }> {
    return new Promise((resolve) => {
      if (this.closed) return resolve(this.closed);
      this.socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() }));
    });
  }

  close(): void {
    this.socket.close();
  }
}
