// The catalogue store on both dialects: upserts that skip unchanged documents, exact lookups, keyset pages that
// walk to the end without duplicates, keyword search tiers, filters and counts.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import type { Market } from '../../../src/domain/market.js';
import { EventsRepo } from '../../../src/store/events-repo.js';
import { LinksRepo } from '../../../src/store/links-repo.js';
import { type MarketFilter, MarketsRepo, type PagePosition } from '../../../src/store/markets-repo.js';
import { SyncStateRepo } from '../../../src/store/sync-state-repo.js';
import { onBothDialects } from './dialects.js';

function market(exchange: Market['exchange'], native: string, patch: Partial<Market> = {}): Market {
  return {
    svc_id: `${exchange}:${native}`,
    svc_group_id: `${exchange}:g-${native.slice(0, 3)}`,
    exchange,
    exchange_market_id: native,
    exchange_group_id: `g-${native.slice(0, 3)}`,
    question: `Question about ${native}?`,
    group_title: 'Group',
    status: 'active',
    market_type: 'binary',
    outcomes: [{ name: 'Yes' }, { name: 'No' }],
    volume_total: 100,
    liquidity: 10,
    ...patch,
  };
}

const ALL: MarketFilter = {
  status: 'active',
  exchanges: null,
  minVolume: null,
  minLiquidity: null,
  search: null,
};

async function walk(repo: MarketsRepo, filter: MarketFilter, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let after: PagePosition | null = null;
  for (let i = 0; i < 1000; i++) {
    const rows = await repo.page(filter, after, limit);
    for (const r of rows) ids.push((JSON.parse(r.doc.toString()) as Market).svc_id);
    if (rows.length < limit) break;
    const last = rows[rows.length - 1];
    if (!last) break;
    after = { tier: last.tier, seq: last.seq };
  }
  return ids;
}

onBothDialects('catalogue store', (store) => {
  let repo: MarketsRepo;
  const now = '2026-11-23T00:00:00.000Z';

  before(async () => {
    repo = new MarketsRepo(store().db, store().dialect, store().sqliteReader, store().pgReader);
    await repo.upsertMany(
      [
        market('kalshi', 'KXFEDCUT-26DEC', {
          question: 'Will the Fed cut interest rates in December?',
          description: 'Resolves on the FOMC statement.',
          slug: 'fed-cut-december',
          volume_total: 5000,
        }),
        market('polymarket', '0xabc1', {
          question: 'Fed rate cut by December?',
          description: 'Federal Reserve decision.',
          volume_total: 900,
        }),
        market('limitless', 'btc-100k', {
          question: 'Bitcoin above $100k on Friday?',
          description: 'Uses the Fed-independent Coinbase price, not interest rates.',
          slug: 'btc-100k',
          volume_total: 50,
          liquidity: 1,
        }),
        market('opinion', '77', {
          question: 'Élection présidentielle: will Macron resign?',
          description: '',
          status: 'closed',
        }),
        market('predictfun', 'fed-hike', {
          question: 'Will the Fed hike rates?',
          volume_total: null,
          liquidity: null,
        }),
      ],
      now,
    );
  });

  test('an unchanged document is not rewritten; a changed one is, and keeps its place', async () => {
    const again = market('polymarket', '0xabc1', {
      question: 'Fed rate cut by December?',
      description: 'Federal Reserve decision.',
      volume_total: 900,
    });
    assert.equal(await repo.upsertMany([again], now), 0);
    const before = await walk(repo, ALL, 100);
    assert.equal(await repo.upsertMany([{ ...again, volume_total: 901 }], now), 1);
    assert.deepEqual(await walk(repo, ALL, 100), before);
    const doc = (await repo.findBySvcIds(['polymarket:0xabc1'])).get('polymarket:0xabc1');
    assert.equal((JSON.parse(doc?.toString() ?? '{}') as Market).volume_total, 901);
  });

  test('pages walk every active market once, in any page size', async () => {
    const all = await walk(repo, ALL, 100);
    assert.equal(all.length, 4);
    for (const size of [1, 2, 3]) assert.deepEqual(await walk(repo, ALL, size), all);
    assert.deepEqual(await repo.count(ALL, 1000), { total: 4, exact: true });
  });

  test('filters: status, exchanges, minimum volume and liquidity', async () => {
    assert.deepEqual(await walk(repo, { ...ALL, status: 'closed' }, 10), ['opinion:77']);
    assert.deepEqual(await walk(repo, { ...ALL, exchanges: ['kalshi', 'limitless'] }, 10), [
      'kalshi:KXFEDCUT-26DEC',
      'limitless:btc-100k',
    ]);
    assert.deepEqual((await walk(repo, { ...ALL, minVolume: 800 }, 10)).sort(), [
      'kalshi:KXFEDCUT-26DEC',
      'polymarket:0xabc1',
    ]);
    assert.deepEqual(await repo.count({ ...ALL, minLiquidity: 5 }, 1000), { total: 2, exact: true });
  });

  test('search: whole words, case- and accent-insensitive, question matches before description matches', async () => {
    const ids = await walk(repo, { ...ALL, search: 'FED rates' }, 10);
    // Kalshi and Predict.fun have both words in the question; Limitless only across question and description.
    assert.deepEqual(ids, ['kalshi:KXFEDCUT-26DEC', 'predictfun:fed-hike', 'limitless:btc-100k']);
    assert.deepEqual(await repo.count({ ...ALL, search: 'FED rates' }, 1000), { total: 3, exact: true });
    assert.deepEqual(await walk(repo, { ...ALL, search: 'fed rates' }, 1), ids);
    assert.deepEqual(await walk(repo, { ...ALL, status: 'closed', search: 'election MACRON' }, 10), [
      'opinion:77',
    ]);
    assert.deepEqual(await walk(repo, { ...ALL, search: 'rat' }, 10), []);
    assert.equal((await walk(repo, { ...ALL, search: 'rat*' }, 10)).length, 4);
    assert.deepEqual(await walk(repo, { ...ALL, search: 'fed', exchanges: ['predictfun'] }, 10), [
      'predictfun:fed-hike',
    ]);
    assert.deepEqual(await walk(repo, { ...ALL, search: 'fed', minVolume: 1000 }, 10), [
      'kalshi:KXFEDCUT-26DEC',
    ]);
    assert.deepEqual(await repo.count({ ...ALL, search: 'fed', minVolume: 1000 }, 1000), {
      total: 1,
      exact: true,
    });
  });

  test('search: an exact ticker, slug or svc_id ranks first, once', async () => {
    for (const text of ['kxfedcut-26dec', 'fed-cut-december', 'kalshi:KXFEDCUT-26DEC']) {
      const ids = await walk(repo, { ...ALL, search: text }, 10);
      assert.equal(ids[0], 'kalshi:KXFEDCUT-26DEC', text);
      assert.equal(new Set(ids).size, ids.length, text);
    }
    const fed = await walk(repo, { ...ALL, search: 'btc-100k' }, 1);
    assert.equal(fed[0], 'limitless:btc-100k');
    assert.deepEqual(await repo.count({ ...ALL, search: 'btc-100k' }, 1000), {
      total: new Set(fed).size,
      exact: true,
    });
  });

  test('search text that is FTS or tsquery syntax is taken as words', async () => {
    for (const text of ['"', 'fed AND OR NOT', "o'brien & | ! :*", '(((', 'NEAR(a b)', '*', '-fed']) {
      const rows = await repo.page({ ...ALL, search: text }, null, 10);
      assert.ok(Array.isArray(rows), text);
      await repo.count({ ...ALL, search: text }, 1000);
    }
  });

  test('events: upsert, exact lookups, volume order, and market counts', async () => {
    const events = new EventsRepo(store().db);
    await events.upsertMany(
      [
        {
          exchange: 'kalshi',
          exchange_group_id: 'g-KXF',
          title: 'Fed in December',
          status: 'active',
          volume_total: 10,
        },
        {
          exchange: 'polymarket',
          exchange_group_id: 'g-0xa',
          title: 'Fed decision',
          status: 'active',
          volume_total: 99,
        },
        {
          exchange: 'opinion',
          exchange_group_id: 'g-77',
          title: 'France',
          status: 'closed',
          volume_total: null,
        },
      ],
      now,
    );
    const page = await events.page(
      { status: 'active', exchanges: null, minVolume: null, search: null },
      null,
      10,
    );
    assert.deepEqual(
      page.map((e) => e.svc_group_id),
      ['polymarket:g-0xa', 'kalshi:g-KXF'],
    );
    const second = await events.page(
      { status: 'active', exchanges: null, minVolume: null, search: null },
      { volume: page[0]?.volume_total ?? null, id: page[0]?.svc_group_id ?? '' },
      10,
    );
    assert.deepEqual(
      second.map((e) => e.svc_group_id),
      ['kalshi:g-KXF'],
    );
    assert.equal((await events.get('kalshi:g-KXF'))?.title, 'Fed in December');
    assert.equal((await events.getByExternal('kalshi', 'g-KXF'))?.svc_group_id, 'kalshi:g-KXF');
    const searched = await events.page(
      { status: 'active', exchanges: null, minVolume: null, search: 'fed DECEMBER' },
      null,
      10,
    );
    assert.deepEqual(
      searched.map((e) => e.svc_group_id),
      ['kalshi:g-KXF'],
    );
    assert.equal((await repo.countByGroups(['kalshi:g-KXF'])).get('kalshi:g-KXF'), 1);
  });

  test('events: an unchanged event is not rewritten; a changed one (including a close time set) is', async () => {
    const events = new EventsRepo(store().db);
    const base = {
      exchange: 'limitless' as const,
      exchange_group_id: 'g-unchanged',
      title: 'T',
      status: 'active' as const,
    };
    assert.equal(await events.upsertMany([{ ...base, volume_total: null, close_time: null }], now), 1);
    assert.equal(await events.upsertMany([{ ...base, volume_total: null, close_time: null }], now), 0);
    assert.equal(await events.upsertMany([{ ...base, volume_total: null, close_time: now }], now), 1);
    assert.equal(await events.upsertMany([{ ...base, volume_total: 5, close_time: now }], now), 1);
    assert.equal(await events.upsertMany([{ ...base, volume_total: 5, close_time: now }], now), 0);
  });

  test('links: only published ones, with the linked market status', async () => {
    const links = new LinksRepo(store().db);
    await links.publish(
      [
        {
          svc_id: 'kalshi:KXFEDCUT-26DEC',
          linked_svc_id: 'polymarket:0xabc1',
          kind: 'same_market',
          confidence: 0.97,
          confidence_tier: 'HIGH',
          source: 'deterministic_graph',
        },
        {
          svc_id: 'kalshi:KXFEDCUT-26DEC',
          linked_svc_id: 'predictfun:fed-hike',
          kind: 'co_dependent',
          confidence: 0.6,
          confidence_tier: 'MEDIUM',
          source: 'hierarchical',
          dependency_type: 'mutually_exclusive',
          dependency_direction: null,
        },
      ],
      now,
    );
    const found = await links.forMarkets(['kalshi:KXFEDCUT-26DEC', 'polymarket:0xabc1'], 'same_market');
    assert.deepEqual(found.get('kalshi:KXFEDCUT-26DEC'), [
      {
        svc_id: 'polymarket:0xabc1',
        exchange: 'polymarket',
        confidence: 0.97,
        confidence_tier: 'HIGH',
        source: 'deterministic_graph',
        status: 'active',
      },
    ]);
    assert.equal(found.get('polymarket:0xabc1'), undefined);
    const related = await links.forMarkets(['kalshi:KXFEDCUT-26DEC'], 'co_dependent');
    assert.equal(related.get('kalshi:KXFEDCUT-26DEC')?.[0]?.dependency_type, 'mutually_exclusive');
  });

  test('matched events: groups joined by published same_market links, counted, from both sides', async () => {
    // The events test above stored both groups (`kalshi:g-KXF`, `polymarket:g-0xa`); the links test, one link
    // each way is what the engine writes (one row per side).
    const links = new LinksRepo(store().db);
    await links.publish(
      [
        {
          svc_id: 'polymarket:0xabc1',
          linked_svc_id: 'kalshi:KXFEDCUT-26DEC',
          kind: 'same_market',
          confidence: 0.97,
          confidence_tier: 'HIGH',
          source: 'deterministic_graph',
        },
      ],
      now,
    );
    const matched = await links.matchedGroups(['kalshi:g-KXF', 'polymarket:g-0xa', 'limitless:g-btc']);
    assert.deepEqual(matched.get('kalshi:g-KXF'), [
      {
        event_id: 'polymarket:g-0xa',
        title: 'Fed decision',
        exchange: 'polymarket',
        status: 'active',
        link_count: 1,
        confidence: 0.97,
      },
    ]);
    assert.equal(matched.get('polymarket:g-0xa')?.[0]?.event_id, 'kalshi:g-KXF');
    assert.equal(
      matched.get('limitless:g-btc'),
      undefined,
      'co_dependent links and unlinked events add nothing',
    );
  });

  test('sync state: cursors survive, and one lease holder at a time', async () => {
    const state = new SyncStateRepo(store().db);
    await state.saveCursor('kalshi', 'markets', 'abc', 250, now);
    assert.deepEqual(
      {
        cursor: (await state.get('kalshi', 'markets'))?.cursor,
        seen: (await state.get('kalshi', 'markets'))?.pass_seen,
      },
      { cursor: 'abc', seen: 250 },
    );
    await state.completePass('kalshi', 'markets', now);
    assert.equal((await state.get('kalshi', 'markets'))?.cursor, null);
    assert.equal(await state.acquireLease('catalogue-sync', 'node-a', 1_000, 60_000), true);
    assert.equal(await state.acquireLease('catalogue-sync', 'node-b', 2_000, 60_000), false);
    assert.equal(await state.acquireLease('catalogue-sync', 'node-a', 3_000, 60_000), true);
    assert.equal(await state.acquireLease('catalogue-sync', 'node-b', 70_000, 60_000), true);
    await state.releaseLease('catalogue-sync', 'node-b');
    assert.equal(await state.acquireLease('catalogue-sync', 'node-a', 70_001, 60_000), true);
  });
});
