// /healthz and /metrics report each venue's circuit breaker over the five simulators: closed with no failures at
// start, open after the venue fails (the report degraded, the gauge and the transition counter following), closed
// again once a probe succeeds. With `venues.circuitBreaker.enabled: false` venues carry no circuit at all.
// The fault matrix (fault-matrix.test.ts) proves the API side of every fault; this file is the operator's view.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Market } from '../../../src/domain/market.js';
import { type CatalogueServer, simControl, startCatalogueServer } from '../../support/catalogue.js';
import { assertError } from '../../support/error-shape.js';
import { startTestServer, waitFor } from '../../support/server.js';

interface Health {
  status: string;
  venues: Array<{
    exchange: string;
    circuit?: {
      state: string;
      consecutive_failures: number;
      opened_at: string | null;
      last_error: string | null;
    };
  }>;
}

let cat: CatalogueServer;
before(async () => {
  cat = await startCatalogueServer(10, {
    config: {
      catalogue: { sync: false },
      venues: { timeoutMs: 2_000, circuitBreaker: { enabled: true, failureThreshold: 2, openMs: 500 } },
    },
  });
});
after(() => cat?.stop());

const health = async () => (await cat.server.request('/healthz', { key: null })).body as Health;
const metrics = async () => (await cat.server.request('/metrics', { key: null })).text;

test('every venue starts with a closed circuit, in /healthz and /metrics', async () => {
  const report = await health();
  assert.equal(report.status, 'ok');
  assert.equal(report.venues.length, 5);
  for (const v of report.venues) {
    assert.deepEqual(v.circuit, {
      state: 'closed',
      consecutive_failures: 0,
      opened_at: null,
      last_error: null,
    });
  }
  const text = await metrics();
  for (const v of report.venues) {
    assert.match(
      text,
      new RegExp(`omnibook_venue_circuit_state\\{exchange="${v.exchange}",state="closed"\\} 1`),
    );
    assert.match(
      text,
      new RegExp(`omnibook_venue_circuit_state\\{exchange="${v.exchange}",state="open"\\} 0`),
    );
  }
});

test('a failing venue opens its circuit (report degraded, the others untouched) and a probe closes it', async () => {
  const market = [...cat.markets.values()].find(
    (m): m is Market => m.exchange === 'opinion' && m.status === 'active',
  );
  assert.ok(market);
  const path = `/api/v1/orderbook?svc_id=${encodeURIComponent(market.svc_id)}`;
  await simControl(cat, 'opinion', 'POST', 'faults', { error_rate: 1, error_status: 500 });
  try {
    const opened = await waitFor(async () => {
      assertError(await cat.server.request(path), 503, 'service_unavailable');
      const report = await health();
      const circuit = report.venues.find((v) => v.exchange === 'opinion')?.circuit;
      return circuit?.state !== 'closed' ? report : undefined;
    }, 30_000);
    assert.equal(opened.status, 'degraded');
    const circuit = opened.venues.find((v) => v.exchange === 'opinion')?.circuit;
    assert.ok(
      circuit?.opened_at && circuit.last_error && circuit.consecutive_failures >= 2,
      JSON.stringify(circuit),
    );
    for (const v of opened.venues.filter((x) => x.exchange !== 'opinion'))
      assert.equal(v.circuit?.state, 'closed');
    assert.match(
      await metrics(),
      /omnibook_venue_circuit_transitions_total\{exchange="opinion",to="open"\} [1-9]/,
    );
  } finally {
    await simControl(cat, 'opinion', 'DELETE', 'faults');
  }
  await waitFor(async () => (await cat.server.request(path)).status === 200 || undefined, 30_000, 'recovery');
  const report = await health();
  assert.equal(report.venues.find((v) => v.exchange === 'opinion')?.circuit?.state, 'closed');
  assert.equal(report.status, 'ok');
  assert.match(
    await metrics(),
    /omnibook_venue_circuit_transitions_total\{exchange="opinion",to="closed"\} [1-9]/,
  );
});

test('with circuit breakers disabled, venues carry no circuit and /metrics no circuit series', async () => {
  const server = await startTestServer({
    venues: [...cat.sims.values()].map((s) => s.adapter),
    config: { catalogue: { sync: false }, venues: { circuitBreaker: { enabled: false } } },
  });
  try {
    const report = (await server.request('/healthz', { key: null })).body as Health;
    assert.equal(report.venues.length, 5);
    for (const v of report.venues) assert.equal(v.circuit, undefined);
    assert.doesNotMatch(
      (await server.request('/metrics', { key: null })).text,
      /omnibook_venue_circuit_state\{/,
    );
  } finally {
    await server.stop();
  }
});
