// GET /events through the real server over the five sandbox simulators: volume order, filters, cursor walks,
// market counts that agree with scope=event, include_markets, and bad input.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Market } from '../../../src/domain/market.js';
import { type CatalogueServer, startCatalogueServer } from '../../support/catalogue.js';
import { assertError } from '../../support/error-shape.js';

interface EventsBody {
  events: Array<{
    event_id: string;
    title: string;
    market_count: number;
    total_volume: number | null;
    exchanges: string[];
    status: string;
    close_time?: string | null;
    markets?: Market[];
  }>;
  pagination: { count: number; total: number; has_more: boolean; next_cursor?: string };
}

let cat: CatalogueServer;
before(async () => {
  cat = await startCatalogueServer(30);
});
after(async () => {
  await cat?.stop();
});

async function get(path: string): Promise<EventsBody> {
  const res = await cat.server.request(path);
  assert.equal(res.status, 200, `${path}: ${res.text}`);
  return res.body as EventsBody;
}

async function walk(query: string, limit: number): Promise<EventsBody['events']> {
  const out: EventsBody['events'] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 1000; i++) {
    const body = await get(`/api/v1/events?${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    out.push(...body.events);
    if (!body.pagination.has_more) return out;
    cursor = body.pagination.next_cursor;
  }
  throw new Error('pagination did not end');
}

const activeEvents = () => cat.events.filter((e) => e.status === 'active');

test('active events of every exchange, highest volume first, unknown volume last, walked once', async () => {
  const first = await get('/api/v1/events');
  assert.equal(first.events.length, Math.min(50, activeEvents().length));
  assert.equal(first.pagination.total, activeEvents().length);
  const all = await walk('status=active', 7);
  assert.equal(all.length, activeEvents().length);
  assert.equal(new Set(all.map((e) => e.event_id)).size, all.length, 'no duplicates');
  const volumes = all.map((e) => e.total_volume ?? -1);
  assert.deepEqual(
    volumes,
    [...volumes].sort((a, b) => b - a),
  );
  for (const e of all) {
    assert.equal(e.status, 'active');
    assert.deepEqual(e.exchanges, [e.event_id.slice(0, e.event_id.indexOf(':'))]);
  }
});

test('market_count agrees with scope=event, and include_markets embeds them', async () => {
  const body = await get('/api/v1/events?include_markets=true&limit=10');
  for (const e of body.events) {
    const scoped = await cat.server.request(
      `/api/v1/markets?scope=event&event_id=${encodeURIComponent(e.event_id)}`,
    );
    assert.equal(scoped.status, 200, scoped.text);
    assert.equal((scoped.body as { event: { market_count: number } }).event.market_count, e.market_count);

    assert.equal(e.markets?.length, e.market_count);
    for (const m of e.markets ?? []) assert.equal(m.svc_group_id, e.event_id);
  }
  const plain = await get('/api/v1/events?limit=1');
  assert.equal(plain.events[0]?.markets, undefined);
});

test('filters: exchanges, status, min_volume, search in the title', async () => {
  const kalshi = await walk('exchanges=kalshi', 100);
  assert.ok(kalshi.length > 0);
  assert.ok(kalshi.every((e) => e.event_id.startsWith('kalshi:')));
  const rich = await walk('min_volume=1000', 100);
  assert.ok(rich.every((e) => (e.total_volume ?? 0) >= 1000));
  const sample = activeEvents()[0];
  assert.ok(sample);
  const word = sample.title.split(/\s+/).find((w) => /^[A-Za-z]{4,}$/.test(w)) ?? sample.title;
  const found = await walk(`search=${encodeURIComponent(word.toUpperCase())}`, 100);
  assert.ok(found.some((e) => e.title === sample.title));
  assert.ok(found.every((e) => e.title.toLowerCase().includes(word.toLowerCase())));
});

test('bad input answers 400 / 404 in the error shape', async () => {
  for (const q of ['status=all', 'limit=0', 'limit=101', 'cursor=zzz', 'min_volume=x', 'scope=list']) {
    assertError(await cat.server.request(`/api/v1/events?${q}`), 400, 'validation_error');
  }
  assertError(await cat.server.request('/api/v1/events?exchanges=nasdaq'), 404, 'exchange_not_found');
  const page = await get('/api/v1/events?limit=1&exchanges=kalshi');
  assertError(
    await cat.server.request(`/api/v1/events?limit=1&cursor=${page.pagination.next_cursor}`),
    400,
    'validation_error',
  );
});
