// The bare node:http baseline (run as its own process): answers GET /api/v1/exchanges with a fixed body read
// from BENCH_BASELINE_BODY_FILE, as BENCH_BASELINE_CONTENT_TYPE, on an ephemeral port of 127.0.0.1.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const BASELINE_PATH = '/api/v1/exchanges';

const bodyFile = process.env.BENCH_BASELINE_BODY_FILE;
if (!bodyFile) throw new Error('BENCH_BASELINE_BODY_FILE is not set');
const body = readFileSync(bodyFile);
const contentType = process.env.BENCH_BASELINE_CONTENT_TYPE || 'application/json';
const headers = { 'content-type': contentType, 'content-length': String(body.length) };
/** BENCH_BASELINE_ANY_PATH=1: the same body for every GET, so the baseline can stand in for any of our routes. */
const anyPath = process.env.BENCH_BASELINE_ANY_PATH === '1';

const server = createServer((request, response) => {
  if (request.method === 'GET' && (anyPath || request.url === BASELINE_PATH)) {
    response.writeHead(200, headers);
    response.end(body);
    return;
  }
  response.writeHead(404, { 'content-type': 'application/json' });
  response.end('{"error":"not found"}');
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stdout.write(`listening on http://127.0.0.1:${port}\n`);
});

const shutdown = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
