import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type LimitlessSim, startLimitlessSim } from '../../../sim/limitless/index.js';
import { loadFixture } from '../../support/fixtures.js';

let sim: LimitlessSim;
before(async () => {
  sim = await startLimitlessSim({ seed: 9, size: 40 });
});
after(() => sim.close());

const fixture = loadFixture('limitless', 'http_get_markets_slug_historical_price.json') as {
  prices: Array<Record<string, unknown>>;
} & Record<string, unknown>;

test('historical-price matches the recorded keys, newest first, prices within 0–1', async () => {
  const manifest = (await (await fetch(`${sim.url}/__sim/manifest`)).json()) as Record<string, string[]>;
  const slug = Object.values(manifest)[0]?.[0] ?? '';
  const res = await fetch(`${sim.url}/markets/${slug}/historical-price?interval=1d`);
  assert.equal(res.status, 200);
  const body = (await res.json()) as { prices: Array<{ timestamp: string; price: string }> } & Record<
    string,
    unknown
  >;
  for (const key of Object.keys(fixture)) assert.ok(key in body, `missing ${key}`);
  for (const key of Object.keys(fixture.prices[0] ?? {}))
    assert.ok(key in (body.prices[0] ?? {}), `tick missing ${key}`);
  const ts = body.prices.map((p) => Number(p.timestamp));
  assert.ok(ts.length > 1);
  assert.deepEqual(
    ts,
    [...ts].sort((a, b) => b - a),
  );
  assert.equal(new Set(ts).size, ts.length);
  for (const p of body.prices) assert.ok(Number(p.price) > 0 && Number(p.price) < 1);
  assert.equal((await fetch(`${sim.url}/markets/nope/historical-price`)).status, 404);
});
