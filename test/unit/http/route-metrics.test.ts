// RouteMetrics renders exactly what prom-client renders for the same observations: prom-client is the independent
// implementation of the Prometheus text format that our cheaper counting must agree with.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { LATENCY_BUCKETS_S, RouteMetrics } from '../../../src/http/plugins/route-metrics.js';
import { assertProperty } from '../../support/property.js';

type Observation = [method: string, route: string, status: number, seconds: number];

async function reference(observations: readonly Observation[]): Promise<string[]> {
  const registry = new Registry();
  const requests = new Counter({
    name: 'req_total',
    help: 'HTTP requests by route template and status code',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'latency_seconds',
    help: 'HTTP request latency by route template',
    labelNames: ['method', 'route'],
    buckets: LATENCY_BUCKETS_S,
    registers: [registry],
  });
  for (const [method, route, status, seconds] of observations) {
    requests.labels(method, route, String(status)).inc();
    latency.labels(method, route).observe(seconds);
  }
  return lines(await registry.metrics());
}

function ours(observations: readonly Observation[]): string[] {
  const metrics = new RouteMetrics('req_total', 'latency_seconds');
  for (const [method, route, status, seconds] of observations) metrics.record(method, route, status, seconds);
  return lines(metrics.render());
}

/** Sample lines, sorted (the two renderers may order series differently), with sums compared numerically. */
function lines(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => l.length > 0 && !l.startsWith('#'))
    .map((l) => {
      const [series, value] = [l.slice(0, l.lastIndexOf(' ')), l.slice(l.lastIndexOf(' ') + 1)];
      return `${series} ${Number(value).toPrecision(12)}`;
    })
    .sort();
}

test('a few requests render as prom-client renders them, bucket edges included', async () => {
  const observations: Observation[] = [
    ['GET', '/api/v1/exchanges', 200, 0.0004],
    ['GET', '/api/v1/exchanges', 200, 0.0005],
    ['GET', '/api/v1/exchanges', 429, 0.003],
    ['POST', '/api/v1/keys', 201, 12],
    ['GET', 'unmatched', 404, 0.0001],
    ['GET', '/a"b\\c\nd', 200, 0.2],
  ];
  assert.deepEqual(ours(observations), await reference(observations));
  const text = new RouteMetrics('req_total', 'latency_seconds');
  text.record('GET', '/api/v1/exchanges', 200, 0.004);
  assert.match(
    text.render(),
    /^latency_seconds_bucket\{le="0.005",method="GET",route="\/api\/v1\/exchanges"\} 1$/m,
  );
  assert.match(text.render(), /^# TYPE latency_seconds histogram$/m);
});

test('any observations render as prom-client renders them', async () => {
  const observation = fc.tuple(
    fc.constantFrom('GET', 'POST', 'DELETE'),
    fc.constantFrom('/api/v1/markets', '/api/v1/keys/:key_id', 'unmatched'),
    fc.constantFrom(200, 201, 400, 404, 429, 503),
    fc.oneof(fc.constantFrom(...LATENCY_BUCKETS_S), fc.double({ min: 0, max: 30, noNaN: true })),
  );
  await assertProperty(
    fc.asyncProperty(fc.array(observation, { maxLength: 40 }), async (observations) => {
      assert.deepEqual(ours(observations), await reference(observations));
    }),
    { numRuns: 100, examples: [] },
  );
});
