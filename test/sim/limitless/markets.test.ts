import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type LimitlessSim, startLimitlessSim } from '../../../sim/limitless/index.js';
import { loadFixture } from '../../support/fixtures.js';

let sim: LimitlessSim;
before(async () => {
  sim = await startLimitlessSim({ seed: 5, size: 300 });
});
after(() => sim.close());

const fixture = loadFixture('limitless', 'http_get_markets_slug_detail_from_merged.json') as Record<
  string,
  unknown
>;

test('/markets/active walks page by page to the end without duplicates; detail keys cover the fixture', async () => {
  const seen = new Set<string>();
  let total = -1;
  for (let page = 1; page < 1000; page += 1) {
    const body = (await (await fetch(`${sim.url}/markets/active?page=${page}&limit=7`)).json()) as {
      data: Array<{ slug: string }>;
      totalMarketsCount: number;
    };
    total = body.totalMarketsCount;
    if (body.data.length === 0) break;
    for (const m of body.data) {
      assert.ok(!seen.has(m.slug), `duplicate ${m.slug}`);
      seen.add(m.slug);
    }
  }
  assert.ok(total > 7, 'needs more than one page');
  assert.equal(seen.size, total);
  const slug = [...seen][0] ?? '';
  const detail = (await (await fetch(`${sim.url}/markets/${slug}`)).json()) as Record<string, unknown>;
  for (const key of Object.keys(fixture)) assert.ok(key in detail, `missing ${key}`);
  assert.equal(detail.slug, slug);
});
