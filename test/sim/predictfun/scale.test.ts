// The Predict.fun simulator at benchmark size (100,000 propositions): it starts, pages from any cursor, looks up
// the last market, and reads the tape, without per-request scans of the catalogue (no timing is asserted).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type PredictfunSim, startPredictfunSim } from '../../../sim/predictfun/index.js';

type Json = Record<string, unknown>;
let sim: PredictfunSim;
before(async () => {
  sim = await startPredictfunSim({ seed: 3, size: 100_000 });
});
after(() => sim.close());

const get = async (path: string): Promise<Json> =>
  (await (await fetch(`${sim.url}${path}`, { headers: { 'x-api-key': sim.apiKey } })).json()) as Json;

test('100k propositions: markets page from a deep cursor, the last manifest market resolves, the tape reads', async () => {
  const manifest = (await (await fetch(`${sim.control}/__sim/manifest`)).json()) as Record<string, string[]>;
  const ids = Object.values(manifest).flat();
  assert.ok(ids.length > 40_000, `${ids.length} markets`);
  const last = ids.at(-1) as string;
  assert.equal(((await get(`/v1/markets/${last}`)).data as Json).id, Number(last));
  // Walk three pages, then reuse the third cursor: pages continue where the previous one ended.
  let cursor: string | null = null;
  const seen: number[] = [];
  for (let i = 0; i < 3; i++) {
    const page = await get(`/v1/markets?first=100${cursor ? `&after=${encodeURIComponent(cursor)}` : ''}`);
    seen.push(...(page.data as Json[]).map((m) => m.id as number));
    cursor = page.cursor as string;
  }
  assert.equal(new Set(seen).size, 300);
  assert.deepEqual(
    seen,
    [...seen].sort((a, b) => a - b),
  );
  const categories = await get('/v1/categories?first=100&sort=VOLUME_ALL_DESC');
  assert.equal((categories.data as Json[]).length, 100);
  await fetch(`${sim.control}/__sim/advance`, { method: 'POST', body: JSON.stringify({ steps: 1 }) });
  const tape = await get('/v1/orders/matches?first=50');
  assert.equal((tape.data as Json[]).length, 50);
});
