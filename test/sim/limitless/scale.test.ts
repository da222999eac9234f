// The Limitless simulator at benchmark size (100,000 propositions): it starts, pages are served from cached views
// (first, last and sorted pages agree with the total), lookups are by slug, and search uses its word index. Timing
// is not asserted; the test proves the endpoints stay usable at that size.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type LimitlessSim, startLimitlessSim } from '../../../sim/limitless/index.js';
import { getJson } from './helpers.js';

let sim: LimitlessSim;
before(async () => {
  sim = await startLimitlessSim({ size: 100_000 });
});
after(() => sim.close());

test('at 100k propositions the listing pages to its last row and every manifest market resolves', async () => {
  const first = (await getJson(sim, '/markets/active?page=1&limit=25')).body as {
    data: unknown[];
    totalMarketsCount: number;
  };
  assert.ok(first.totalMarketsCount > 10_000);
  const lastPage = Math.ceil(first.totalMarketsCount / 25);
  const last = (await getJson(sim, `/markets/active?page=${lastPage}&limit=25`)).body as { data: unknown[] };
  assert.equal(last.data.length, first.totalMarketsCount - (lastPage - 1) * 25);
  const beyond = (await getJson(sim, `/markets/active?page=${lastPage + 1}&limit=25`)).body as {
    data: unknown[];
  };
  assert.deepEqual(beyond.data, []);
  const sorted = (await getJson(sim, '/markets/active?page=2&limit=25&sortBy=newest')).body as {
    data: unknown[];
  };
  assert.equal(sorted.data.length, 25);
  const slugs = Object.values(sim.manifest).flat();
  assert.ok(slugs.length > 50_000);
  for (const slug of [slugs[0], slugs[Math.floor(slugs.length / 2)], slugs.at(-1)]) {
    assert.equal((await getJson(sim, `/markets/${slug}`)).status, 200);
    assert.equal((await getJson(sim, `/markets/${slug}/orderbook`)).status, 200);
  }
  const found = (await getJson(sim, '/markets/search?query=Lakers%20Celtics&limit=50')).body as {
    markets: Array<{ title: string }>;
  };
  assert.equal(found.markets.length, 50);
});
