// A WebSocket relay between a client and the real server: every frame is passed on unchanged, except that a test can
// drop the next server message that matches (a message lost on the way: a gap in server_seq the client must
// notice) or cut every connection (the client's network going away). Nothing is answered in the server's place.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';

export interface WsRelay {
  /** ws://127.0.0.1:port/ws */
  url: string;
  /** Connections opened through the relay so far. */
  readonly connections: number;
  /** Drops the next server→client message for which `match` is true; resolves with it once dropped. */
  dropNext(match: (message: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  /** Cuts every open connection (both sides), as a network failure would. */
  cutAll(): void;
  close(): Promise<void>;
}

export async function startWsRelay(upstreamWsUrl: string): Promise<WsRelay> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await once(wss, 'listening');
  const pairs = new Set<{ client: WebSocket; upstream: WebSocket }>();
  const drops: Array<{
    match: (m: Record<string, unknown>) => boolean;
    done: (m: Record<string, unknown>) => void;
  }> = [];
  let connections = 0;
  wss.on('connection', (client) => {
    connections += 1;
    const upstream = new WebSocket(upstreamWsUrl);
    const pair = { client, upstream };
    pairs.add(pair);
    const pending: string[] = [];
    client.on('message', (data) => {
      const text = data.toString();
      if (upstream.readyState === WebSocket.OPEN) upstream.send(text);
      else pending.push(text);
    });
    upstream.on('open', () => {
      for (const text of pending.splice(0)) upstream.send(text);
    });
    upstream.on('message', (data) => {
      const text = data.toString();
      const message = JSON.parse(text) as Record<string, unknown>;
      const index = drops.findIndex((d) => d.match(message));
      if (index >= 0) {
        const [drop] = drops.splice(index, 1);
        drop?.done(message);
        return;
      }
      if (client.readyState === WebSocket.OPEN) client.send(text);
    });
    const end = () => {
      pairs.delete(pair);
      client.terminate();
      upstream.terminate();
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  });
  const port = (wss.address() as AddressInfo).port;
  return {
    url: `ws://127.0.0.1:${port}/ws`,
    get connections() {
      return connections;
    },
    dropNext(match) {
      return new Promise((done) => drops.push({ match, done }));
    },
    cutAll() {
      for (const { client, upstream } of [...pairs]) {
        client.terminate();
        upstream.terminate();
      }
    },
    async close() {
      for (const { client, upstream } of [...pairs]) {
        client.terminate();
        upstream.terminate();
      }
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
