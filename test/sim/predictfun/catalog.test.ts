// The Predict.fun simulator's catalogue against the recorded GET /v1/categories payload: keys and types, cursor
// pagination walked to the end, the market list and lookups agreeing with it, the manifest, determinism and the
// venue's 4xx answers for malformed input.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type PredictfunSim, startPredictfunSim } from '../../../sim/predictfun/index.js';
import { loadFixture } from '../../support/fixtures.js';
import { assertSameShape } from './shape.js';

type Json = Record<string, unknown>;
let sim: PredictfunSim;
before(async () => {
  sim = await startPredictfunSim({ seed: 11, size: 120 });
});
after(() => sim.close());

async function get(path: string, key: string | null = sim.apiKey): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${sim.url}${path}`, { headers: key ? { 'x-api-key': key } : {} });
  return { status: res.status, body: (await res.json()) as Json };
}

async function walk(path: string, first: number): Promise<Json[]> {
  const items: Json[] = [];
  let after: string | null = null;
  for (let i = 0; i < 500; i++) {
    const sep = path.includes('?') ? '&' : '?';
    const q = `${path}${sep}first=${first}${after ? `&after=${encodeURIComponent(after)}` : ''}`;
    const { status, body } = await get(q);
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.success, true);
    assert.ok('cursor' in body, 'list responses always carry cursor');
    items.push(...(body.data as Json[]));
    after = body.cursor as string | null;
    if (after === null) return items;
  }
  assert.fail('pagination did not end');
}

const recorded = loadFixture('predictfun', 'http_get_v1_categories.json') as { data: Json[]; cursor: string };

test('GET /v1/categories has every key and type of the recorded payload, down to markets and outcomes', async () => {
  const { body } = await get('/v1/categories?first=3');
  assertSameShape({ success: true, cursor: recorded.cursor, data: recorded.data }, body);
  const category = (body.data as Json[])[0] as Json;
  assert.deepEqual(Object.keys(category), Object.keys(recorded.data[0] as Json), 'same keys, same order');
  const market = (category.markets as Json[])[0] as Json;
  const recordedMarket = ((recorded.data[0] as Json).markets as Json[])[0] as Json;
  assert.deepEqual(Object.keys(market).sort(), Object.keys(recordedMarket).sort());
  assert.equal(market.categorySlug, category.slug);
  assert.match(String(market.conditionId), /^0x[0-9a-f]{64}$/);
  for (const o of market.outcomes as Json[]) assert.match(String(o.onChainId), /^\d{60,80}$/);
});

test('categories walk page by page to the end, once each; the market list and lookups agree with it', async () => {
  const categories = await walk('/v1/categories', 7);
  assert.ok(categories.length > 7, 'needs more than one page');
  const slugs = new Set(categories.map((c) => c.slug));
  assert.equal(slugs.size, categories.length, 'no category twice');
  const fromCategories = categories.flatMap((c) => (c.markets as Json[]).map((m) => m.id as number));
  const markets = await walk('/v1/markets', 9);
  assert.deepEqual(
    markets.map((m) => m.id),
    fromCategories,
  );
  const one = categories.find((c) => (c.markets as Json[]).length > 1) ?? (categories[0] as Json);
  const bySlug = await get(`/v1/categories/${one.slug}`);
  assert.deepEqual(bySlug.body.data, one);
  const firstMarket = (one.markets as Json[])[0] as Json;
  assert.deepEqual((await get(`/v1/markets/${firstMarket.id}`)).body.data, firstMarket);
});

test('status filters split OPEN from RESOLVED categories; neg-risk categories carry one Yes/No market per option', async () => {
  const open = await walk('/v1/categories?status=OPEN', 50);
  const resolved = await walk('/v1/categories?status=RESOLVED', 50);
  const all = await walk('/v1/categories', 50);
  assert.equal(open.length + resolved.length, all.length);
  assert.ok(open.every((c) => c.status === 'OPEN') && resolved.every((c) => c.status === 'RESOLVED'));
  assert.ok(resolved.length > 0, 'the world resolves some propositions');
  for (const c of resolved) {
    for (const m of c.markets as Json[]) {
      assert.equal(m.status, 'RESOLVED');
      const statuses = (m.outcomes as Json[]).map((o) => o.status).sort();
      assert.deepEqual(statuses, ['LOST', 'WON']);
    }
  }
  const negRisk = all.filter((c) => c.isNegRisk === true);
  assert.ok(negRisk.length > 0);
  for (const c of negRisk) {
    const markets = c.markets as Json[];
    assert.ok(markets.length >= 3);
    assert.deepEqual(
      markets.map((m) => m.questionIndex),
      markets.map((_, i) => i),
    );
    assert.match(String(c.negRiskOnChainId), /^0x[0-9a-f]{64}$/);
  }
});

test('the manifest names market ids the API serves; the same seed builds the same catalogue', async () => {
  const manifest = (await (await fetch(`${sim.control}/__sim/manifest`)).json()) as Record<string, string[]>;
  const ids = Object.values(manifest).flat();
  assert.ok(ids.length > 0);
  for (const id of ids.slice(0, 25)) assert.equal((await get(`/v1/markets/${id}`)).status, 200);
  const twin = await startPredictfunSim({ seed: 11, size: 120 });
  try {
    const a = (await get('/v1/categories?first=20')).body.data;
    const res = await fetch(`${twin.url}/v1/categories?first=20`, { headers: { 'x-api-key': twin.apiKey } });
    assert.deepEqual(((await res.json()) as Json).data, a);
  } finally {
    await twin.close();
  }
});

test('malformed or unknown input gets the venue envelope with 400 or 404, never a 500', async () => {
  const recordedError = loadFixture('predictfun', 'http_post_v1_orders_error_min_order_value.json') as Json;
  const cases: Array<[string, number, string]> = [
    ['/v1/markets/999999999', 404, 'not_found'],
    ['/v1/markets/not-a-number', 400, 'bad_request'],
    ['/v1/markets/999999999/orderbook', 404, 'not_found'],
    ['/v1/categories/no-such-category', 404, 'not_found'],
    ['/v1/categories?first=abc', 400, 'bad_request'],
    ['/v1/categories?first=1000', 400, 'bad_request'],
    ['/v1/categories?after=%25%25%25', 400, 'bad_request'],
    ['/v1/categories?status=LIVE', 400, 'bad_request'],
    ['/v1/orders/matches?signerAddress=nope', 400, 'bad_request'],
    ['/v1/no/such/route', 404, 'not_found'],
  ];
  for (const [path, status, slug] of cases) {
    const { status: got, body } = await get(path);
    assert.equal(got, status, path);
    assert.deepEqual(Object.keys(body), Object.keys(recordedError), `${path}: error envelope keys`);
    assert.equal(body.success, false);
    assert.equal(body.code, status);
    assert.equal(body.error, slug, path);
  }
});
