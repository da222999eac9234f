// Upstream amplification through GET /markets (issue 31, item 4): every id the catalogue lacks is asked of its
// exchange, on the operator's own quota. A free key batching 100 unknown Polymarket ids used to make 100 exchange
// calls per request; now its lookups come out of a per-customer budget (the tier's burst, then a slow refill), and
// what the budget cannot pay for answers 429 retryable with Retry-After without reaching the exchange. Exchange
// calls are counted by the Polymarket simulator itself (GET /__sim/requests).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { TIERS } from '../../../src/domain/tiers.js';
import { type CatalogueServer, simControl, startCatalogueServer } from '../../support/catalogue.js';
import { assertError } from '../../support/error-shape.js';

let cat: CatalogueServer;

before(async () => {
  cat = await startCatalogueServer(5);
});
after(async () => {
  await cat?.stop();
});

/** Polymarket ids of the right shape that no market has: each one the CLOB is asked for answers 404. */
function unknownIds(n: number): string[] {
  return Array.from({ length: n }, () => `polymarket:0x${randomBytes(32).toString('hex')}`);
}

/** CLOB market lookups the simulator has received (each unknown id costs exactly one). */
async function clobLookups(): Promise<number> {
  const { counts } = (await simControl(cat, 'polymarket', 'GET', 'requests')) as {
    counts: Record<string, number>;
  };
  return Object.entries(counts)
    .filter(([route]) => route.startsWith('clob GET /markets/'))
    .reduce((sum, [, n]) => sum + n, 0);
}

test("a free key's unknown ids cost at most its lookup burst upstream; the rest answer 429 with Retry-After", async () => {
  const { key } = await cat.server.runtime.keys.create({ name: 'amplifier', tier: 'free' });
  const burst = TIERS.free.venueLookupsBurst;
  await simControl(cat, 'polymarket', 'DELETE', 'requests');

  const usage = await cat.server.request('/api/v1/usage', { key });
  const limits = (usage.body as { limits: Record<string, number> }).limits;
  assert.deepEqual([limits.venue_lookups_per_second, limits.venue_lookups_burst], [1, burst]);

  const first = await cat.server.request(`/api/v1/markets?svc_ids=${unknownIds(100).join(',')}`, { key });
  assert.match(String(assertError(first, 429, 'rate_limit_exceeded').error), /budget of exchange lookups/);
  assert.ok(Number(first.headers.get('retry-after')) >= 1, 'Retry-After in whole seconds');
  assert.equal(await clobLookups(), burst, 'the burst was spent, and nothing past it');

  // Seven requests in all: with GET /usage and the last one, within the free tier's 10 requests/s burst.
  for (let i = 0; i < 6; i++) {
    const next = await cat.server.request(`/api/v1/markets?svc_ids=${unknownIds(100).join(',')}`, { key });
    assert.match(String(assertError(next, 429, 'rate_limit_exceeded').error), /budget of exchange lookups/);
  }
  // 700 ids asked for: the burst plus what the refill (1 a second) paid for since — far from one call each.
  assert.ok((await clobLookups()) < 100, `${await clobLookups()} exchange calls for 700 unknown ids`);

  // Markets the catalogue holds cost no lookup: they are served while the budget is spent.
  const known = [...cat.markets.keys()].slice(0, 3);
  const stored = await cat.server.request(`/api/v1/markets?svc_ids=${known.join(',')}`, { key });
  assert.equal(stored.status, 200, stored.text);
  assert.equal((stored.body as { markets: unknown[] }).markets.length, 3);
});

test("one customer's spent budget leaves another's untouched", async () => {
  const spender = await cat.server.runtime.keys.create({ name: 'spender', tier: 'free' });
  const other = await cat.server.runtime.keys.create({ name: 'other', tier: 'free' });
  const ids = unknownIds(TIERS.free.venueLookupsBurst * 3).join(',');
  assertError(
    await cat.server.request(`/api/v1/markets?svc_ids=${ids}`, { key: spender.key }),
    429,
    'rate_limit_exceeded',
  );
  const one = unknownIds(1)[0] as string;
  const res = await cat.server.request(`/api/v1/markets?scope=market&svc_id=${one}`, { key: other.key });
  assertError(res, 404, 'market_not_found');
});
