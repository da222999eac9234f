// The bare `ws` broadcast baseline of `npm run bench:ws` (its own process): WebSocket clients connect to
// 127.0.0.1:<port>; POST /run {messages, bytes} then sends `messages` frames of `bytes` bytes to every client, each
// stamped with `ingest_ts_ms` when it is made, one frame to all clients per round. A round waits while any socket
// holds 1 MiB unsent (our gateway's slow-reader threshold), so the baseline is paced by its slowest reader as ours is,
// rather than buffering without bound.
import { createServer } from 'node:http';
import { type WebSocket, WebSocketServer } from 'ws';

const SLOW_BYTES = 1 << 20;
const server = createServer((request, response) => {
  if (request.method !== 'POST' || request.url !== '/run') {
    response.writeHead(404).end();
    return;
  }
  let body = '';
  request.on('data', (chunk) => {
    body += chunk;
  });
  request.on('end', () => {
    const { messages, bytes } = JSON.parse(body) as { messages: number; bytes: number };
    response.writeHead(202, { 'content-type': 'application/json' }).end('{"started":true}');
    void broadcast(messages, bytes);
  });
});
const wss = new WebSocketServer({ server });
const clients = new Set<WebSocket>();
wss.on('connection', (ws) => {
  clients.add(ws);
  ws.on('close', () => clients.delete(ws));
});

/** A frame of exactly `bytes` bytes (ASCII) carrying its sequence number and the time it was made. */
function frame(seq: number, bytes: number): string {
  const head = `{"type":"orderbook_delta","server_seq":${seq},"ingest_ts_ms":${Date.now()},"pad":"`;
  return `${head}${'x'.repeat(Math.max(0, bytes - head.length - 2))}"}`;
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

async function broadcast(messages: number, bytes: number): Promise<void> {
  for (let seq = 1; seq <= messages; seq++) {
    while ([...clients].some((c) => c.bufferedAmount >= SLOW_BYTES))
      await new Promise((r) => setTimeout(r, 1));
    const f = frame(seq, bytes);
    for (const c of clients) c.send(f);
    await tick();
  }
}

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stdout.write(`listening on http://127.0.0.1:${port}\n`);
});

const shutdown = () => {
  for (const c of clients) c.terminate();
  server.close(() => process.exit(0));
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
