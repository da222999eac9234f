// The Opinion simulator against real recorded payloads (test/fixtures/opinion, provenance in its README):
// every key a recorded payload has, the simulator's answer has too, with the same JSON type, nested objects
// and array items included. The recorded categorical market is `result.data` only, without its envelope.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type OpinionSim, startOpinionSim } from '../../../sim/opinion/index.js';
import { loadFixture } from '../../support/fixtures.js';

let sim: OpinionSim;
before(async () => {
  sim = await startOpinionSim({ seed: 11, size: 60 });
});
after(() => sim.close());

const typeOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** Every key path of `recorded` exists in `simulated` with the same JSON type (arrays: their first items). */
function assertShape(recorded: unknown, simulated: unknown, path = '$'): void {
  assert.equal(
    typeOf(simulated),
    typeOf(recorded),
    `${path}: ${typeOf(simulated)} instead of ${typeOf(recorded)}`,
  );
  if (Array.isArray(recorded) && Array.isArray(simulated)) {
    if (recorded.length > 0 && simulated.length > 0) assertShape(recorded[0], simulated[0], `${path}[0]`);
    return;
  }
  if (typeOf(recorded) !== 'object') return;
  const sim = simulated as Record<string, unknown>;
  for (const [key, value] of Object.entries(recorded as Record<string, unknown>)) {
    assert.ok(key in sim, `${path}.${key} is missing`);
    assertShape(value, sim[key], `${path}.${key}`);
  }
}

async function get(path: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${sim.url}${path}`, { headers: { apikey: sim.apiKey } });
  assert.equal(res.status, 200, path);
  return (await res.json()) as Record<string, unknown>;
}

interface ListRow {
  marketId: number;
  marketType: number;
  status: number;
  yesTokenId: string;
  childMarkets?: ListRow[];
}

async function rows(): Promise<ListRow[]> {
  const all: ListRow[] = [];
  for (let page = 1; ; page++) {
    const body = await get(`/market?page=${page}&limit=20&marketType=2`);
    const list = (body.result as { list: ListRow[] }).list;
    all.push(...list);
    if (list.length < 20) return all;
  }
}

test('GET /token/orderbook has every recorded key and type, on an active and on a resolved market', async () => {
  const recorded = loadFixture('opinion', 'http_get_token_orderbook.json');
  const all = await rows();
  const binaries = all.filter((r) => r.marketType === 0);
  const active = binaries.find((r) => r.status === 2);
  const resolved = binaries.find((r) => r.status === 4);
  assert.ok(active && resolved, 'the world has active and resolved binary markets');
  const live = await get(`/token/orderbook?token_id=${active.yesTokenId}`);
  assertShape(recorded, live);
  const { bids, asks } = live.result as { bids: unknown[]; asks: unknown[] };
  assert.ok(bids.length > 0 && asks.length > 0, 'an active market has a two-sided book');
  const done = await get(`/token/orderbook?token_id=${resolved.yesTokenId}`);
  assertShape(recorded, done);
  assert.deepEqual((done.result as { bids: unknown[] }).bids, [], 'nothing rests on a resolved market');
});

test('GET /token/price-history has every recorded key and type', async () => {
  const recorded = loadFixture('opinion', 'http_get_token_price_history.json');
  const active = (await rows()).find((r) => r.marketType === 0 && r.status === 2);
  assert.ok(active);
  const simulated = await get(`/token/price-history?token_id=${active.yesTokenId}&interval=1d`);
  assertShape(recorded, simulated);
  assert.ok((simulated.result as { history: unknown[] }).history.length > 0);
});

test('GET /market/categorical/{id} result.data has every recorded key and type, children included', async () => {
  const recorded = loadFixture('opinion', 'http_get_market_categorical_result_data.json');
  const parent = (await rows()).find((r) => r.marketType === 1);
  assert.ok(parent, 'the world has a categorical market');
  const body = await get(`/market/categorical/${parent.marketId}`);
  assertShape({ errno: 0, errmsg: '', result: { data: recorded } }, body);
  const data = (body.result as { data: ListRow }).data;
  assert.ok((data.childMarkets ?? []).length >= 2);
  // As recorded, a child carries no marketType, labels or 24h volume of its own.
  const child = data.childMarkets?.[0] as unknown as Record<string, unknown>;
  const recordedChild = (recorded as { childMarkets: Record<string, unknown>[] }).childMarkets[0] ?? {};
  assert.deepEqual(Object.keys(child).sort(), Object.keys(recordedChild).sort());
});

test('a list row of a categorical market has the recorded detail shape; a binary row has it minus childMarkets', async () => {
  const recorded = loadFixture('opinion', 'http_get_market_categorical_result_data.json') as Record<
    string,
    unknown
  >;
  const all = await rows();
  const categorical = all.find((r) => r.marketType === 1);
  const binary = all.find((r) => r.marketType === 0);
  assertShape(recorded, categorical);
  const { childMarkets: _children, ...binaryKeys } = recorded;
  assertShape(binaryKeys, binary);
  assert.equal((binary as unknown as Record<string, unknown>).childMarkets, undefined);
});
