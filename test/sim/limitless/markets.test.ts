// The Limitless simulator's catalogue: /markets/active pagination and filters, market and group detail against the
// recorded payload and the web app's mock (keys and JSON types), search, the manifest as ground truth, and
// determinism.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type LimitlessSim, startLimitlessSim } from '../../../sim/limitless/index.js';
import { createWorld, propositionKey } from '../../../sim/shared/world.js';
import { loadFixture } from '../../support/fixtures.js';
import { activeRows, getJson, sampleSlugs } from './helpers.js';

const SEED = 5;
const SIZE = 300;
let sim: LimitlessSim;
before(async () => {
  sim = await startLimitlessSim({ seed: SEED, size: SIZE });
});
after(() => sim.close());

const recorded = loadFixture('limitless', 'http_get_markets_slug_detail_from_merged.json') as Record<
  string,
  unknown
>;
const webapp = loadFixture('limitless', 'http_get_markets_slug_webapp_mock.json') as Record<string, unknown>;

test('/markets/active walks page by page to the end without duplicates, in pages of at most 25', async () => {
  const seen = new Set<string>();
  let total = -1;
  let pages = 0;
  for (let page = 1; page < 1_000; page++) {
    const { status, body } = await getJson(sim, `/markets/active?page=${page}&limit=7`);
    assert.equal(status, 200);
    const { data, totalMarketsCount } = body as { data: Array<{ slug: string }>; totalMarketsCount: number };
    assert.equal(typeof totalMarketsCount, 'number');
    total = totalMarketsCount;
    pages++;
    for (const m of data) {
      assert.ok(!seen.has(m.slug), `duplicate ${m.slug}`);
      seen.add(m.slug);
    }
    if (data.length < 7) break;
  }
  assert.ok(pages > 2, 'needs several pages');
  assert.equal(seen.size, total);
  const { status, body } = await getJson(sim, '/markets/active?limit=26');
  assert.equal(status, 400);
  assert.deepEqual(body, {
    message: ['limit must not be greater than 25'],
    error: 'Bad Request',
    statusCode: 400,
  });
  assert.equal((await getJson(sim, '/markets/active?page=0')).status, 400);
  assert.equal((await getJson(sim, '/markets/active?sortBy=cheapest')).status, 400);
});

test('groups are one row with their options nested in `markets`; tradeType filters rows', async () => {
  const rows = await activeRows(sim);
  const groups = rows.filter((r) => r.marketType === 'group');
  const singles = rows.filter((r) => r.marketType === 'single');
  assert.ok(groups.length > 0 && singles.length > 0);
  for (const g of groups) {
    assert.equal(g.tradeType, 'group');
    const children = g.markets as Array<Record<string, unknown>>;
    assert.ok(children.length >= 3);
    assert.deepEqual(
      g.outcomeTokens,
      children.map((c) => c.title),
    );
    assert.match(String(g.negRiskMarketId), /^0x[0-9a-f]{64}$/);
    for (const c of children) {
      assert.equal(c.tradeType, 'clob');
      assert.equal(c.groupId, g.id);
      assert.ok(c.negRiskRequestId, 'group children are negRisk markets');
    }
  }
  const clobOnly = await getJson(sim, '/markets/active?tradeType=clob&limit=25');
  const clobBody = clobOnly.body as { data: Array<{ marketType: string }>; totalMarketsCount: number };
  assert.equal(clobBody.totalMarketsCount, singles.length);
  assert.ok(clobBody.data.every((r) => r.marketType === 'single'));
  const grouped = (await getJson(sim, '/markets/active?tradeType=group')).body as {
    totalMarketsCount: number;
  };
  assert.equal(grouped.totalMarketsCount, groups.length);
  const ending = (await getJson(sim, '/markets/active?sortBy=ending_soon&limit=25')).body as {
    data: Array<{ expirationTimestamp: number }>;
  };
  const ts = ending.data.map((r) => r.expirationTimestamp);
  assert.deepEqual(
    ts,
    [...ts].sort((a, b) => a - b),
  );
});

test('market detail carries every recorded key, with the JSON types of the SDK and the web app', async () => {
  const { market } = await sampleSlugs(sim);
  const { status, body } = await getJson(sim, `/markets/${market}`);
  assert.equal(status, 200);
  const detail = body as Record<string, unknown>;
  for (const key of Object.keys(recorded)) assert.ok(key in detail, `missing ${key}`);
  for (const key of Object.keys(webapp)) assert.ok(key in detail, `missing web-app key ${key}`);
  // Types as Limitless's own code reads them; the recording's strings are the recorder's doing.
  for (const key of Object.keys(webapp)) {
    if (webapp[key] === null || detail[key] === null) continue;
    assert.equal(typeof detail[key], typeof webapp[key], `${key} type`);
  }
  assert.equal(detail.slug, market);
  assert.match(market, /^[a-z0-9-]+-\d{13}$/, 'slug = title words + creation time in ms');
  assert.equal(typeof detail.expirationTimestamp, 'number');
  assert.equal((detail.collateralToken as { decimals: unknown }).decimals, 6);
  const [yes, no] = detail.prices as number[];
  assert.ok(yes !== undefined && no !== undefined && Math.abs(yes + no - 1) < 1e-9);
  assert.match((detail.tokens as { yes: string }).yes, /^\d{60,80}$/);
  assert.equal(detail.status, 'FUNDED');
  assert.equal(detail.expired, false);
});

test('a group slug answers the group; a child answers itself naming its group; unknown is a NestJS 404', async () => {
  const { group, child } = await sampleSlugs(sim);
  const g = (await getJson(sim, `/markets/${group}`)).body as Record<string, unknown>;
  assert.equal(g.marketType, 'group');
  assert.ok((g.markets as Array<{ slug: string }>).some((m) => m.slug === child));
  const c = (await getJson(sim, `/markets/${child}`)).body as Record<string, unknown>;
  assert.equal(c.marketType, 'single');
  assert.deepEqual(c.group, { id: g.id, slug: group, title: g.title });
  const missing = await getJson(sim, '/markets/no-such-market');
  assert.equal(missing.status, 404);
  assert.deepEqual(missing.body, { message: 'Market not found', error: 'Not Found', statusCode: 404 });
  const route = await getJson(sim, '/nowhere');
  assert.deepEqual(route.body, { message: 'Cannot GET /nowhere', error: 'Not Found', statusCode: 404 });
});

test('search answers `{ markets }` pages of rows sharing the query words; query is required', async () => {
  const { body } = await getJson(sim, '/markets/search?query=Bitcoin%20BTC&limit=5');
  const markets = (body as { markets: Array<{ title: string }> }).markets;
  assert.ok(markets.length > 0 && markets.length <= 5);
  assert.ok(markets.every((m) => /BTC/.test(m.title)));
  const page2 = (await getJson(sim, '/markets/search?query=Bitcoin%20BTC&limit=5&page=2')).body as {
    markets: Array<{ slug: string }>;
  };
  assert.ok(page2.markets.every((m) => !markets.some((x) => (x as { slug?: string }).slug === m.slug)));
  assert.equal((await getJson(sim, '/markets/search')).status, 400);
  assert.equal((await getJson(sim, '/markets/search?query=x&limit=51')).status, 400);
  const none = (await getJson(sim, '/markets/search?query=zzqq')).body as { markets: unknown[] };
  assert.deepEqual(none.markets, []);
});

test('the manifest maps every proposition listed on limitless (each option of a group) to its slug', async () => {
  const world = createWorld({ seed: SEED, size: SIZE });
  const expected = world
    .listedOn('limitless')
    .flatMap((p) =>
      p.shape.kind === 'binary' ? [propositionKey(p)] : p.shape.options.map((o) => propositionKey(p, o.name)),
    );
  const manifest = (await (await fetch(`${sim.control}/__sim/manifest`)).json()) as Record<string, string[]>;
  assert.deepEqual(Object.keys(manifest).sort(), [...expected].sort());
  for (const [key, slugs] of Object.entries(manifest)) {
    assert.equal(slugs.length, 1, key);
    const { status, body } = await getJson(sim, `/markets/${slugs[0]}`);
    assert.equal(status, 200, key);
    assert.equal(
      (body as { marketType: string }).marketType,
      'single',
      'the manifest names tradable markets',
    );
  }
});

test('the same seed gives the same catalogue, slugs and books', async () => {
  const twin = await startLimitlessSim({ seed: SEED, size: SIZE });
  try {
    assert.deepEqual(twin.manifest, sim.manifest);
    const slug = Object.values(sim.manifest)[3]?.[0] as string;
    const a = (await getJson(sim, `/markets/${slug}`)).body as Record<string, unknown>;
    const b = (await getJson(twin, `/markets/${slug}`)).body as Record<string, unknown>;
    assert.deepEqual(b, a);
  } finally {
    await twin.close();
  }
});
