// GET /markets through the real server over the five sandbox simulators: every scope and rule of the spec, the
// conflicting-selector and out-of-range cases, cursors walked to the end (also while a sync rewrites rows),
// search ranking on exact ids, links, and the on-demand lookup of a market the store has not seen yet.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Market } from '../../../src/domain/market.js';
import { LinksRepo } from '../../../src/store/links-repo.js';
import { MarketsRepo } from '../../../src/store/markets-repo.js';
import { type CatalogueServer, startCatalogueServer } from '../../support/catalogue.js';
import { assertError } from '../../support/error-shape.js';

interface MarketsBody {
  scope: string;
  markets: Array<Market & { matched_markets?: unknown[]; related_markets?: unknown[] }>;
  duplicate_ids: string[];
  not_found_ids: string[];
  pagination: { count: number; total: number; total_exact: boolean; has_more: boolean; next_cursor?: string };
  event?: { event_id: string; title: string; market_count: number; exchange_count: number };
}

let cat: CatalogueServer;
const REQUIRED = [
  'svc_id',
  'svc_group_id',
  'exchange',
  'exchange_market_id',
  'exchange_group_id',
  'question',
  'group_title',
  'status',
  'market_type',
  'outcomes',
  'volume_total',
] as const;

before(async () => {
  cat = await startCatalogueServer(40);
});
after(async () => {
  await cat?.stop();
});

async function get(path: string): Promise<MarketsBody> {
  const res = await cat.server.request(path);
  assert.equal(res.status, 200, `${path}: ${res.text}`);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
  return res.body as MarketsBody;
}

async function fails(path: string, status: number, code: string): Promise<{ validation_errors?: string[] }> {
  const res = await cat.server.request(path);
  return assertError(res, status, code) as { validation_errors?: string[] };
}

async function walk(query: string, limit: number, between?: () => Promise<void>): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 10_000; i++) {
    const body = await get(`/api/v1/markets?${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    ids.push(...body.markets.map((m) => m.svc_id));
    assert.equal(body.pagination.count, body.markets.length);
    if (!body.pagination.has_more) {
      assert.equal(body.pagination.next_cursor, undefined, 'the last page carries no cursor');
      return ids;
    }
    cursor = body.pagination.next_cursor;
    assert.ok(cursor, 'has_more comes with next_cursor');
    await between?.();
  }
  throw new Error('pagination did not end');
}

function active(filter: (m: Market) => boolean = () => true): string[] {
  return [...cat.markets.values()].filter((m) => m.status === 'active' && filter(m)).map((m) => m.svc_id);
}

describe('scope=list', () => {
  test('defaults: active markets of every exchange, 100 per page, with the required fields', async () => {
    const body = await get('/api/v1/markets');
    assert.equal(body.scope, 'list');
    assert.deepEqual(body.duplicate_ids, []);
    assert.deepEqual(body.not_found_ids, []);
    assert.equal(body.markets.length, Math.min(100, active().length));
    assert.equal(body.pagination.total, active().length);
    assert.equal(body.pagination.total_exact, active().length <= 1000, 'a total past 1,000 says it stopped');
    for (const m of body.markets) {
      for (const field of REQUIRED) assert.ok(field in m, `${m.svc_id} lacks ${field}`);
      assert.equal(m.status, 'active');
      assert.equal(m.matched_markets, undefined, 'links only when asked');
    }
    const all = await walk('status=active', 100);
    assert.equal(new Set(all.map((id) => id.slice(0, id.indexOf(':')))).size, 5, 'every exchange is listed');
  });

  test('walking the cursor yields the full filtered set once, whatever the page size', async () => {
    const expected = new Set(active());
    for (const limit of [1, 7, 100]) {
      const ids = await walk('status=active', limit);
      assert.equal(ids.length, expected.size, `limit ${limit}`);
      assert.deepEqual(new Set(ids), expected);
    }
    const closed = await walk('status=closed', 3);
    assert.deepEqual(
      new Set(closed),
      new Set([...cat.markets.values()].filter((m) => m.status === 'closed').map((m) => m.svc_id)),
    );
  });

  test('a walk while a sync rewrites every row and adds markets sees each original market exactly once', async () => {
    const repo = new MarketsRepo(cat.server.runtime.store.db, cat.server.runtime.store.dialect);
    const originals = new Set(active());
    let round = 0;
    const ids = await walk('status=active', 9, async () => {
      round++;
      const rewritten = [...cat.markets.values()].map((m) => ({
        ...m,
        volume_total: (m.volume_total ?? 0) + round,
      }));
      const added: Market = {
        ...(cat.markets.values().next().value as Market),
        svc_id: `kalshi:KXNEW-${round}`,
        exchange: 'kalshi',
        exchange_market_id: `KXNEW-${round}`,
        status: 'active',
      };
      await repo.upsertMany([...rewritten, added], new Date().toISOString());
    });
    assert.equal(ids.length, new Set(ids).size, 'no duplicates');
    for (const id of originals) assert.ok(ids.includes(id), `missing ${id}`);
    // Markets listed during the walk come after the cursor, so they are seen too.
    assert.ok(ids.includes('kalshi:KXNEW-1'));
    await cat.server.runtime.store.db
      .deleteFrom('markets')
      .where('svc_id', 'like', 'kalshi:KXNEW-%')
      .execute();
  });

  test('filters: exchanges, status, min_volume, min_liquidity', async () => {
    const two = await walk('exchanges=kalshi,polymarket', 100);
    assert.deepEqual(
      new Set(two),
      new Set(active((m) => m.exchange === 'kalshi' || m.exchange === 'polymarket')),
    );
    const resolved = await walk('status=resolved', 100);
    assert.ok(resolved.every((id) => cat.markets.get(id)?.status === 'resolved'));
    const rich = await get('/api/v1/markets?min_volume=1000&limit=100');
    assert.ok(rich.markets.every((m) => (m.volume_total ?? 0) >= 1000));
    const liquid = await get('/api/v1/markets?min_liquidity=50&limit=100');
    assert.ok(liquid.markets.every((m) => (m.liquidity ?? 0) >= 50));
  });

  test('keyword search: all words, case-insensitive; an exact ticker or svc_id ranks first', async () => {
    const kalshi = [...cat.markets.values()].find((m) => m.exchange === 'kalshi' && m.status === 'active');
    assert.ok(kalshi);
    for (const text of [kalshi.exchange_market_id.toLowerCase(), kalshi.svc_id]) {
      const body = await get(`/api/v1/markets?search=${encodeURIComponent(text)}`);
      assert.equal(body.markets[0]?.svc_id, kalshi.svc_id, text);
    }
    const word = kalshi.question.split(/\s+/).find((w) => /^[A-Za-z]{5,}$/.test(w));
    assert.ok(word, 'a plain word in the question');
    const hits = await walk(`search=${encodeURIComponent(word.toUpperCase())}`, 5);
    assert.ok(hits.includes(kalshi.svc_id));
    const folded = word.toLowerCase();
    for (const id of hits) {
      const m = cat.markets.get(id) ?? ({} as Market);
      assert.match(`${m.question} ${m.description ?? ''}`.toLowerCase(), new RegExp(`\\b${folded}\\b`), id);
    }
    const page = await get(`/api/v1/markets?search=${encodeURIComponent(word)}&limit=1`);
    assert.equal(page.pagination.total, hits.length);
  });

  test('bad input: 400 with validation_errors, never a 500', async () => {
    for (const q of [
      'status=all',
      'status=open',
      'limit=0',
      'limit=101',
      'limit=abc',
      'min_volume=-1',
      'scope=everything',
      'cursor=not-a-cursor',
      'svc_id=kalshi:X',
      'event_id=kalshi:X',
      'nonsense=1',
    ]) {
      const body = await fails(`/api/v1/markets?${q}`, 400, 'validation_error');
      assert.ok((body.validation_errors ?? []).length > 0, q);
    }
    await fails('/api/v1/markets?exchanges=nasdaq', 404, 'exchange_not_found');
    const first = await get('/api/v1/markets?limit=1&exchanges=kalshi');
    const cursor = first.pagination.next_cursor ?? '';
    await fails(`/api/v1/markets?limit=1&exchanges=polymarket&cursor=${cursor}`, 400, 'validation_error');
  });
});

describe('scope=market', () => {
  test('by svc_id, or by exchange + exchange_market_id', async () => {
    const m = [...cat.markets.values()][3] as Market;
    const one = await get(`/api/v1/markets?scope=market&svc_id=${encodeURIComponent(m.svc_id)}`);
    assert.equal(one.scope, 'market');
    assert.deepEqual(
      one.markets.map((x) => x.svc_id),
      [m.svc_id],
    );
    assert.deepEqual(one.pagination, { count: 1, total: 1, total_exact: true, has_more: false });
    const two = await get(
      `/api/v1/markets?scope=market&exchange=${m.exchange}&exchange_market_id=${encodeURIComponent(m.exchange_market_id)}`,
    );
    assert.deepEqual(two.markets[0], one.markets[0]);
  });

  test('conflicting, missing and unknown selectors', async () => {
    const m = [...cat.markets.values()][0] as Market;
    await fails(
      `/api/v1/markets?scope=market&svc_id=${m.svc_id}&exchange=${m.exchange}&exchange_market_id=${m.exchange_market_id}`,
      400,
      'validation_error',
    );
    await fails('/api/v1/markets?scope=market', 400, 'missing_parameter');
    await fails('/api/v1/markets?scope=market&exchange=kalshi', 400, 'missing_parameter');
    await fails('/api/v1/markets?scope=market&svc_id=nocolon', 400, 'validation_error');
    await fails('/api/v1/markets?scope=market&svc_id=kalshi:KXNOPE-NEVER', 404, 'market_not_found');
    await fails(
      '/api/v1/markets?scope=market&exchange=nasdaq&exchange_market_id=1',
      404,
      'exchange_not_found',
    );
    await fails('/api/v1/markets?scope=market&svc_id=kalshi:X&search=fed', 400, 'validation_error');
  });

  test('a market the venue lists but the store has not seen is fetched on demand, then stored', async () => {
    const m = [...cat.markets.values()].find((x) => x.exchange === 'polymarket') as Market;
    await cat.server.runtime.store.db.deleteFrom('markets').where('svc_id', '=', m.svc_id).execute();
    const body = await get(`/api/v1/markets?scope=market&svc_id=${encodeURIComponent(m.svc_id)}`);
    assert.equal(body.markets[0]?.svc_id, m.svc_id);
    const stored = await cat.server.runtime.store.db
      .selectFrom('markets')
      .select('svc_id')
      .where('svc_id', '=', m.svc_id)
      .executeTakeFirst();
    assert.ok(stored, 'stored after the lookup');
  });
});

describe('scope=market_batch', () => {
  test('order preserved, duplicates and unknown ids reported; rule 1 infers the scope', async () => {
    const [a, b] = [...cat.markets.values()] as [Market, Market];
    const ids = [b.svc_id, 'kalshi:KXNOPE-1', a.svc_id, b.svc_id];
    for (const path of [
      `/api/v1/markets?scope=market_batch&svc_ids=${encodeURIComponent(ids.join(','))}`,
      `/api/v1/markets?svc_ids=${encodeURIComponent(ids.join(','))}`,
      `/api/v1/markets?external_market_keys=${encodeURIComponent(ids.join(','))}`,
    ]) {
      const body = await get(path);
      assert.equal(body.scope, 'market_batch');
      assert.deepEqual(
        body.markets.map((m) => m.svc_id),
        [b.svc_id, a.svc_id],
      );
      assert.deepEqual(body.duplicate_ids, [b.svc_id]);
      assert.deepEqual(body.not_found_ids, ['kalshi:KXNOPE-1']);
      assert.equal(body.pagination.count, 2);
    }
  });

  test('limits and conflicts', async () => {
    const ids = [...cat.markets.keys()].slice(0, 2).join(',');
    await fails(`/api/v1/markets?svc_ids=${ids}&external_market_keys=${ids}`, 400, 'validation_error');
    const many = Array.from({ length: 101 }, (_, i) => `kalshi:T${i}`).join(',');
    await fails(`/api/v1/markets?svc_ids=${many}`, 400, 'validation_error');
    await fails('/api/v1/markets?svc_ids=nocolon,kalshi:A', 400, 'validation_error');
    await fails('/api/v1/markets?svc_ids=,,', 400, 'missing_parameter');
    await fails('/api/v1/markets?scope=market_batch', 400, 'missing_parameter');
    await fails(`/api/v1/markets?scope=list&svc_ids=${ids}`, 400, 'validation_error');
    const hundred = Array.from({ length: 100 }, (_, i) => `kalshi:KXNOPE-${i}`).join(',');
    const body = await get(`/api/v1/markets?svc_ids=${hundred}`);
    assert.equal(body.not_found_ids.length, 100);
  });
});

describe('scope=event', () => {
  test('by event_id, ev:event_id, or exchange + exchange_group_id, with the event block', async () => {
    const m = [...cat.markets.values()].find((x) => x.exchange === 'polymarket') as Market;
    const members = [...cat.markets.values()].filter((x) => x.svc_group_id === m.svc_group_id);
    for (const path of [
      `event_id=${encodeURIComponent(m.svc_group_id)}`,
      `event_id=${encodeURIComponent(`ev:${m.svc_group_id}`)}`,
      `exchange=polymarket&exchange_group_id=${encodeURIComponent(m.exchange_group_id)}`,
    ]) {
      const body = await get(`/api/v1/markets?scope=event&${path}`);
      assert.equal(body.scope, 'event');
      assert.deepEqual(new Set(body.markets.map((x) => x.svc_id)), new Set(members.map((x) => x.svc_id)));
      assert.equal(body.event?.event_id, m.svc_group_id);
      assert.equal(body.event?.market_count, members.length);
      assert.equal(body.event?.exchange_count, 1);
      assert.ok((body.event?.title ?? '').length > 0);
    }
  });

  test('conflicting, missing and unknown selectors', async () => {
    await fails(
      '/api/v1/markets?scope=event&event_id=kalshi:A&exchange=kalshi&exchange_group_id=A',
      400,
      'validation_error',
    );
    await fails('/api/v1/markets?scope=event', 400, 'missing_parameter');
    await fails('/api/v1/markets?scope=event&exchange_group_id=A', 400, 'missing_parameter');
    await fails('/api/v1/markets?scope=event&event_id=kalshi:NO-SUCH-EVENT', 404, 'event_not_found');
    await fails('/api/v1/markets?scope=event&event_id=ev:', 400, 'validation_error');
  });
});

describe('links', () => {
  test('include_matches / include_related: present and empty until links are published, then filled', async () => {
    // The background sync's first pass links what the matcher finds; two markets it left unlinked show the rest.
    await cat.server.runtime.catalogSyncJob?.whenPasses(1);
    const linked = new Set(
      (await cat.server.runtime.store.db.selectFrom('market_links').select('svc_id').execute()).map(
        (r) => r.svc_id,
      ),
    );
    const [a, b] = [...cat.markets.values()].filter(
      (m) => m.exchange !== 'kalshi' && !linked.has(m.svc_id),
    ) as [Market, Market];
    const path = `/api/v1/markets?svc_ids=${encodeURIComponent(`${a.svc_id},${b.svc_id}`)}&include_matches=true&include_related=true`;
    const before = await get(path);
    for (const m of before.markets) {
      assert.deepEqual(m.matched_markets, []);
      assert.deepEqual(m.related_markets, []);
    }
    await new LinksRepo(cat.server.runtime.store.db).publish(
      [
        {
          svc_id: a.svc_id,
          linked_svc_id: b.svc_id,
          kind: 'same_market',
          confidence: 0.93,
          confidence_tier: 'HIGH',
          source: 'deterministic_graph',
        },
      ],
      new Date().toISOString(),
    );
    const after = await get(path);
    assert.deepEqual(after.markets[0]?.matched_markets, [
      {
        svc_id: b.svc_id,
        exchange: b.exchange,
        confidence: 0.93,
        confidence_tier: 'HIGH',
        source: 'deterministic_graph',
        status: b.status,
      },
    ]);
    const plain = await get(`/api/v1/markets?svc_ids=${encodeURIComponent(a.svc_id)}`);
    assert.equal(plain.markets[0]?.matched_markets, undefined);
  });
});

describe('while the catalogue sync runs', () => {
  test('a walk during a real sync pass over moved simulators sees every market active throughout, once', async () => {
    const before = new Set(await walk('status=active', 100));
    for (const sim of cat.sims.values()) {
      const res = await fetch(`${sim.control}/__sim/advance`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ steps: 5 }),
      });
      assert.ok(res.ok, `advance: ${res.status}`);
    }
    const pass = cat.server.runtime.catalogSync.runAll();
    const during = await walk('status=active', 5);
    const results = await pass;
    assert.ok(
      results.some((r) => r.written > 0),
      'the pass rewrote markets',
    );
    assert.equal(during.length, new Set(during).size, 'no market twice');
    const afterIds = new Set(await walk('status=active', 100));
    for (const id of before) {
      if (afterIds.has(id)) assert.ok(during.includes(id), `${id} was active throughout but missed`);
    }
  });
});
