// Gamma against recorded payloads (keys, types, JSON-encoded string arrays, numeric-string ids) and its list,
// keyset, lookup, search and error behaviour.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type PolymarketSim, startPolymarketSim } from '../../../sim/polymarket/index.js';
import { createWorld } from '../../../sim/shared/world.js';
import { loadFixture } from '../../support/fixtures.js';
import { assertCovers, getJson } from './support.js';

type Json = Record<string, unknown>;
let sim: PolymarketSim;
const SIZE = 3000;

before(async () => {
  sim = await startPolymarketSim({ seed: 21, size: SIZE });
});
after(() => sim.close());

async function gamma(path: string) {
  return getJson(`${sim.urls.gamma}${path}`);
}

async function allMarkets(query = ''): Promise<Json[]> {
  const out: Json[] = [];
  let cursor = '';
  for (let i = 0; i < 100; i++) {
    const page = (await gamma(`/markets/keyset?limit=1000${query}${cursor ? `&after_cursor=${cursor}` : ''}`))
      .json as { markets: Json[]; next_cursor?: string };
    out.push(...page.markets);
    if (!page.next_cursor) break;
    cursor = page.next_cursor;
  }
  return out;
}

test('a resolved sports market carries every field of the recorded Gamma market', async () => {
  const markets = await allMarkets('&closed=true&tag_id=1');
  const m = markets.find((x) => x.umaResolutionStatus === 'resolved' && x.feesEnabled === true);
  assert.ok(m, 'a resolved sports market with fees');
  const fixture = loadFixture('polymarket', 'http_get_gamma_markets_id.json') as Json;
  const byId = (await gamma(`/markets/${m.id}`)).json as Json;
  assertCovers('market', fixture, byId);
  assertCovers('market.events[0]', (fixture.events as Json[])[0], (byId.events as Json[])[0]);
  assert.match(String(byId.id), /^\d+$/);
  assert.match(String(byId.conditionId), /^0x[0-9a-f]{64}$/);
  const outcomes = JSON.parse(String(byId.outcomes)) as string[];
  const prices = JSON.parse(String(byId.outcomePrices)) as string[];
  const tokens = JSON.parse(String(byId.clobTokenIds)) as string[];
  assert.deepEqual(outcomes, ['Yes', 'No']);
  assert.ok(prices.every((p) => typeof p === 'string') && [...prices].sort().join() === '0,1');
  assert.ok(tokens.every((t) => /^\d{60,78}$/.test(t)));
  assert.match(String(byId.outcomes), /", "/, 'encoded arrays keep the space after commas');
  assert.equal(byId.version, 'v1');
  assert.equal(byId.closed, true);
});

test('an active fee market covers the recorded slug lookup; /markets?slug= answers an array', async () => {
  const m = (await allMarkets('&closed=false')).find((x) => x.feesEnabled === true);
  assert.ok(m);
  const fixture = loadFixture('polymarket', 'http_get_gamma_markets_slug_reduced.json') as Json;
  const list = (await gamma(`/markets?slug=${m.slug}`)).json as Json[];
  assert.equal(list.length, 1);
  // cryptoMarketConfig/eventStartTime only exist on crypto Up/Down window markets, which the world has none of.
  assertCovers('market', fixture, list[0], ['cryptoMarketConfig', 'eventStartTime']);
  const schedule = list[0]?.feeSchedule as Json;
  assertCovers('feeSchedule', fixture.feeSchedule, schedule);
  assert.equal((await gamma(`/markets/slug/${m.slug}`)).status, 200);
  assert.deepEqual((await gamma('/markets?slug=no-such-market')).json, []);
});

test('a sports event with its markets covers the recorded event', async () => {
  const events = (await gamma('/events?closed=false&tag_id=1&limit=500')).json as Json[];
  const e = events.find((x) => (x.markets as Json[])[0]?.feesEnabled === true);
  assert.ok(e);
  const fixture = (loadFixture('polymarket', 'http_get_gamma_events.json') as Json[])[0] as Json;
  assertCovers('event', fixture, e);
  assertCovers('event.markets[0]', (fixture.markets as Json[])[0], (e.markets as Json[])[0]);
  assertCovers('event.tags[0]', (fixture.tags as Json[])[0], (e.tags as Json[])[0], [
    'forceShow',
    'publishedAt',
    'updatedBy',
    'forceHide',
  ]);
  assertCovers('event.series[0]', (fixture.series as Json[])[0], (e.series as Json[])[0]);
  assertCovers('event.teams[0]', (fixture.teams as Json[])[0], (e.teams as Json[])[0]);
  assert.equal((await gamma(`/events/${e.id}`)).status, 200);
  assert.equal((await gamma(`/events/slug/${e.slug}`)).status, 200);
});

test('neg-risk events: one Yes/No market per option, shared negRiskMarketID, groupItemTitle = option', async () => {
  const events = (await gamma('/events?tag_id=2&limit=20')).json as Json[];
  const e = events[0];
  assert.ok(e);
  assert.equal(e.negRisk, true);
  const markets = e.markets as Json[];
  assert.ok(markets.length >= 3);
  const world = createWorld({ seed: 21, size: SIZE });
  const options = new Set(
    world.propositions.flatMap((p) => (p.shape.kind === 'multi' ? p.shape.options.map((o) => o.name) : [])),
  );
  for (const m of markets) {
    assert.equal(m.negRisk, true);
    assert.equal(m.negRiskMarketID, e.negRiskMarketID);
    assert.ok(options.has(String(m.groupItemTitle)));
    assert.match(String(m.question), new RegExp(`^Will ${m.groupItemTitle} win the election for `));
    assert.equal(String(m.questionID).slice(0, 64), String(e.negRiskMarketID).slice(0, 64));
  }
});

test('public search covers the recorded search response', async () => {
  const fixture = loadFixture('polymarket', 'http_get_gamma_public_search.json') as Json;
  const res = (await gamma('/public-search?q=bitcoin&limit_per_type=2')).json as Json;
  assertCovers('search', fixture, res);
  assertCovers('search.pagination', fixture.pagination, res.pagination);
  const e = (res.events as Json[])[0] as Json;
  const fe = (fixture.events as Json[])[0] as Json;
  assertCovers('search.events[0]', fe, e);
  assertCovers('search.events[0].markets[0]', (fe.markets as Json[])[0], (e.markets as Json[])[0]);
  assert.equal((res.events as Json[]).length, 2);
  assert.equal((res.pagination as Json).hasMore, true);
  assert.match(String(e.title), /Bitcoin/);
});

test('filters, ordering and offset pages; /markets carries the deprecation headers', async () => {
  const res = await fetch(`${sim.urls.gamma}/markets?closed=false&order=volumeNum&ascending=false&limit=50`);
  assert.equal(res.headers.get('deprecation'), 'true');
  const page = (await res.json()) as Json[];
  assert.equal(page.length, 50);
  assert.ok(page.every((m) => m.closed === false));
  const vols = page.map((m) => Number(m.volumeNum));
  assert.deepEqual(
    vols,
    [...vols].sort((a, b) => b - a),
  );
  const next = (await gamma('/markets?closed=false&order=volumeNum&ascending=false&limit=50&offset=50'))
    .json as Json[];
  assert.ok(Number(next[0]?.volumeNum) <= (vols.at(-1) ?? 0));
  const rich = (await gamma('/markets?liquidity_num_min=1000&closed=false&limit=20')).json as Json[];
  assert.ok(rich.every((m) => Number(m.liquidityNum) >= 1000));
  const byIds = (await gamma(`/markets?id=${page[0]?.id}&id=${page[1]?.id}`)).json as Json[];
  assert.deepEqual(byIds.map((m) => m.id).sort(), [page[0]?.id, page[1]?.id].sort());
  const byCondition = (await gamma(`/markets?condition_ids=${page[0]?.conditionId}`)).json as Json[];
  assert.equal(byCondition[0]?.id, page[0]?.id);
  const token = (JSON.parse(String(page[0]?.clobTokenIds)) as string[])[1];
  assert.equal(((await gamma(`/markets?clob_token_ids=${token}`)).json as Json[])[0]?.id, page[0]?.id);
  const archived = (await gamma('/markets?archived=true&limit=50')).json as Json[];
  assert.ok(archived.length > 0 && archived.every((m) => m.archived === true && m.closed === true));
});

test('keyset pages cover every market exactly once', async () => {
  const markets = await allMarkets();
  const ids = markets.map((m) => String(m.id));
  assert.equal(new Set(ids).size, ids.length);
  const world = createWorld({ seed: 21, size: SIZE });
  const expected = world
    .listedOn('polymarket')
    .reduce((n, p) => n + (p.shape.kind === 'multi' ? p.shape.options.length : 1), 0);
  assert.equal(ids.length, expected);
});

test('Gamma errors: unknown id 404, malformed id 422, unknown slug 404, bad order field 422', async () => {
  assert.deepEqual(await gamma('/markets/999999999'), {
    status: 404,
    json: { type: 'not found error', error: 'id not found' },
  });
  assert.equal((await gamma('/markets/abc')).status, 422);
  assert.deepEqual((await gamma('/events/slug/nope')).json, {
    type: 'not found error',
    error: 'slug not found',
  });
  assert.equal((await gamma('/markets?order=bogus')).status, 422);
  for (const field of ['toString', 'constructor', '__proto__', 'volume,valueOf']) {
    assert.equal((await gamma(`/markets?order=${field}`)).status, 422, field);
  }
  assert.equal((await gamma('/markets?closed=maybe')).status, 422);
  assert.equal((await gamma('/markets/keyset?after_cursor=%%%')).status, 422);
});
