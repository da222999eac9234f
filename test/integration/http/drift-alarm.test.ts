// The drift alarm, end to end: a simulator starts answering its book route in another shape (every value of the
// wrong type, as a venue that renamed or retyped its fields would), and the server sees it three ways — the request
// is answered 503 exchange_format_changed (never a book, never a 500), /metrics counts the failing JSON paths per
// exchange and operation, and /healthz lists the latest paths (never a value) and reports the node degraded.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Market } from '../../../src/domain/market.js';
import { type CatalogueServer, simControl, startCatalogueServer } from '../../support/catalogue.js';
import { assertError } from '../../support/error-shape.js';

let cat: CatalogueServer;

before(async () => {
  cat = await startCatalogueServer(20, {
    config: { catalogue: { sync: false }, recorder: { enabled: false } },
  });
});
after(async () => {
  await cat?.stop();
});

interface DriftReport {
  status: string;
  drift: {
    total: number;
    latest: Array<{ exchange: string; operation: string; path: string; count: number; last_seen: string }>;
  };
}

test('a book route answered in another shape: 503 exchange_format_changed, counted in /metrics, listed in /healthz', async () => {
  const market = [...cat.markets.values()].find(
    (m: Market) => m.exchange === 'polymarket' && m.status === 'active',
  );
  assert.ok(market);
  const healthy = (await cat.server.request('/healthz')).body as DriftReport;
  assert.deepEqual(healthy.drift, { total: 0, latest: [] });

  await simControl(cat, 'polymarket', 'POST', 'faults', { malformed: 'wrong_types', only: ['GET /book'] });
  try {
    const res = await cat.server.request(`/api/v1/orderbook?svc_id=${encodeURIComponent(market.svc_id)}`);
    const body = assertError(res, 503, 'exchange_format_changed');
    assert.match(String(body.error), /polymarket answered get_book in a format this build cannot read/);
  } finally {
    await simControl(cat, 'polymarket', 'DELETE', 'faults');
  }

  const metrics = (await cat.server.request('/metrics')).text;
  const lines = metrics
    .split('\n')
    .filter((l) =>
      l.startsWith('omnibook_venue_payload_drift_total{exchange="polymarket",operation="get_book"'),
    );
  assert.ok(lines.length > 0, `no drift counted in /metrics:\n${metrics.slice(0, 2000)}`);
  for (const line of lines) assert.match(line, /path="\/[^"]*"\} [1-9]\d*$/);

  const report = (await cat.server.request('/healthz')).body as DriftReport;
  assert.equal(report.status, 'degraded');
  assert.ok(report.drift.total >= 1);
  const entry = report.drift.latest.find((e) => e.exchange === 'polymarket' && e.operation === 'get_book');
  assert.ok(entry, JSON.stringify(report.drift));
  assert.match(entry.path, /^\//);
  // Paths only: the corrupted values ("?" and true) never appear.
  assert.doesNotMatch(JSON.stringify(report.drift), /"\?"|:true/);

  // The next good answer is served again (the alarm reports; it does not block).
  const ok = await cat.server.request(`/api/v1/orderbook?svc_id=${encodeURIComponent(market.svc_id)}`);
  assert.equal(ok.status, 200, ok.text);
});
