import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { type WebSocket, WebSocketServer } from 'ws';
import type { FeedState } from '../../../../src/domain/stream.js';
import { ReconnectingSocket } from '../../../../src/venues/shared/reconnecting-socket.js';
import { silentLogger } from '../../../contract/venues/harness.js';
import { waitFor } from '../../../support/server.js';

// A venue-like server: answers text PING with PONG unless `silent`, echoes other frames as `echo:<frame>`.
let wss: WebSocketServer;
let url: string;
let silent = false;
const clients = new Set<WebSocket>();

before(async () => {
  wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/ws`;
  wss.on('connection', (ws) => {
    clients.add(ws);
    ws.on('close', () => clients.delete(ws));
    ws.on('message', (data) => {
      if (silent) return;
      const text = String(data);
      ws.send(text === 'PING' ? 'PONG' : `echo:${text}`);
    });
  });
});
after(() => {
  for (const ws of clients) ws.terminate();
  return new Promise<void>((r) => wss.close(() => r()));
});

function open(
  onState: (s: FeedState) => void,
  received: string[],
  staleAfterMs = 10_000,
  sent: string[] = [],
) {
  let opens = 0;
  const socket = new ReconnectingSocket({
    venue: 'polymarket',
    url: () => url,
    logger: silentLogger,
    onOpen: (send) => {
      opens += 1;
      sent.push(`subscribe-${opens}`);
      send(`subscribe-${opens}`);
    },
    onMessage: (text) => received.push(text),
    onState,
    heartbeat: { intervalMs: 50, frame: () => 'PING' },
    staleAfterMs,
    backoff: { initialMs: 10, maxMs: 50 },
  });
  socket.start();
  return socket;
}

test('restores its subscriptions after the server drops it, reporting the feed state', async () => {
  const states: FeedState[] = [];
  const received: string[] = [];
  const socket = open((s) => states.push(s), received);
  try {
    await waitFor(async () => received.includes('echo:subscribe-1') || undefined, 10_000, 'first subscribe');
    assert.equal(socket.state, 'healthy');
    for (const ws of clients) ws.terminate();
    await waitFor(async () => received.includes('echo:subscribe-2') || undefined, 10_000, 'resubscribe');
    assert.deepEqual(states, ['healthy', 'disconnected', 'healthy']);
    await waitFor(async () => received.includes('PONG') || undefined, 10_000, 'heartbeat answered');
  } finally {
    await socket.close();
  }
  assert.equal(socket.state, 'disconnected');
  assert.equal(socket.send('x'), false);
});

test('a connection that stops answering is presumed dead and replaced', async () => {
  const states: FeedState[] = [];
  const received: string[] = [];
  const sent: string[] = [];
  const socket = open((s) => states.push(s), received, 300, sent);
  try {
    await waitFor(async () => received.includes('echo:subscribe-1') || undefined, 10_000, 'first subscribe');
    silent = true;
    await waitFor(async () => states.includes('degraded') || undefined, 10_000, 'stale detection');
    silent = false;
    // The replacement connection may open (and send its subscribe) while the test server is still silent, so
    // its echo can be lost; what proves recovery is a new connection that is healthy and answering again.
    const answeredAt = received.length;
    await waitFor(
      async () =>
        (sent.length >= 2 && socket.state === 'healthy' && received.slice(answeredAt).includes('PONG')) ||
        undefined,
      10_000,
      'replacement connection answering after stale',
    );
  } finally {
    silent = false;
    await socket.close();
  }
});
