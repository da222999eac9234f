// Scale: a 100k-proposition world (~76k Polymarket markets) starts within a bounded time, keyset pages walk a
// filtered list exactly once, and id/slug/token lookups stay direct. Timings are printed, never asserted.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type PolymarketSim, startPolymarketSim } from '../../../sim/polymarket/index.js';
import { createWorld } from '../../../sim/shared/world.js';
import { getJson } from './support.js';

type Json = Record<string, unknown>;
const SIZE = 100_000;
let sim: PolymarketSim;

before(async () => {
  const started = performance.now();
  sim = await startPolymarketSim({ size: SIZE });
  console.log(`polymarket sim start-up at size ${SIZE}: ${Math.round(performance.now() - started)} ms`);
});
after(() => sim.close());

test('keyset pages walk the open weather markets exactly once', async () => {
  const world = createWorld({ size: SIZE });
  const expected = world
    .listedOn('polymarket')
    .filter((p) => p.topic === 'weather' && p.status === 'active').length;
  const started = performance.now();
  const seen = new Set<string>();
  let cursor = '';
  let pages = 0;
  for (;;) {
    const page = (
      await getJson(
        `${sim.urls.gamma}/markets/keyset?limit=500&closed=false&tag_id=84${cursor ? `&after_cursor=${cursor}` : ''}`,
      )
    ).json as { markets: Json[]; next_cursor?: string };
    pages += 1;
    for (const m of page.markets) {
      assert.ok(!seen.has(String(m.id)), `market ${m.id} seen twice`);
      seen.add(String(m.id));
      assert.equal(m.closed, false);
    }
    if (!page.next_cursor) break;
    cursor = page.next_cursor;
  }
  console.log(
    `# ${seen.size} markets in ${pages} keyset pages: ${Math.round(performance.now() - started)} ms`,
  );
  assert.equal(seen.size, expected);
});

test('direct lookups do not scan', async () => {
  const manifest = (await getJson(`${sim.control}/__sim/manifest`)).json as Record<string, string[]>;
  const ids = Object.values(manifest);
  assert.ok(ids.length > 70_000);
  const cid = ids[ids.length - 7]?.[0] as string;
  const started = performance.now();
  for (let i = 0; i < 50; i++) {
    const market = (await getJson(`${sim.urls.clob}/markets/${cid}`)).json as Json;
    const token = (market.tokens as Json[])[1]?.token_id as string;
    assert.equal(
      ((await getJson(`${sim.urls.clob}/markets-by-token/${token}`)).json as Json).condition_id,
      cid,
    );
    const gamma = (await getJson(`${sim.urls.gamma}/markets/slug/${market.market_slug}`)).json as Json;
    assert.equal(gamma.conditionId, cid);
    assert.equal(((await getJson(`${sim.urls.gamma}/markets/${gamma.id}`)).json as Json).conditionId, cid);
  }
  console.log(`200 direct lookups: ${Math.round(performance.now() - started)} ms`);
});
