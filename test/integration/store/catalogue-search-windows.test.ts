// Keyword search over more markets than one walk window (PostgreSQL walks the first seqs of a tier-1 page over
// an index and asks GIN for the rest only when they are sparse; tier 2 is positive GIN conditions): whatever path
// a page takes, both dialects page through exactly what a plain filter over the documents finds, in (tier, seq)
// order, and a count stops at its cap and says so.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import type { Market } from '../../../src/domain/market.js';
import { type MarketFilter, MarketsRepo, type PagePosition } from '../../../src/store/markets-repo.js';
import { onBothDialects } from './dialects.js';

const MARKETS = 9000;

/** Market n's question and description words: dense, mid, sparse and late, description-only, closed. */
function marketAt(n: number): Market {
  const q = ['Will', `n${n}`, 'happen'];
  const d = ['Resolves', 'on', 'the', 'record'];
  if (n % 3 === 0) q.push('common');
  if (n % 50 === 0) q.push('midword');
  if (n >= 6000 && n % 97 === 0) q.push('sparse');
  if (n % 40 === 0) d.push('descword');
  if (n % 400 === 0) q.push('descword');
  if (n % 11 === 0) d.push('midword');
  const exchange = n % 2 === 0 ? 'kalshi' : 'polymarket';
  return {
    svc_id: `${exchange}:m${n}`,
    svc_group_id: `${exchange}:g${n}`,
    exchange,
    exchange_market_id: `m${n}`,
    exchange_group_id: `g${n}`,
    question: `${q.join(' ')}?`,
    description: d.join(' '),
    group_title: 'Group',
    status: n % 7 === 0 ? 'closed' : 'active',
    market_type: 'binary',
    outcomes: [{ name: 'Yes' }, { name: 'No' }],
    volume_total: n,
  };
}

const ALL: MarketFilter = {
  status: 'active',
  exchanges: null,
  minVolume: null,
  minLiquidity: null,
  search: null,
};

const markets = Array.from({ length: MARKETS }, (_, i) => marketAt(i + 1));

/** What a search must return: every word (a `*` word as a prefix) in the question first, then across both texts. */
function expected(
  search: string,
  filter: (m: Market) => boolean = () => true,
  status: Market['status'] = 'active',
): string[] {
  const words = search.toLowerCase().split(' ');
  const has = (text: string) => {
    const tokens = text.toLowerCase().split(/[^a-z0-9]+/);
    return words.every((w) =>
      w.endsWith('*') ? tokens.some((t) => t.startsWith(w.slice(0, -1))) : tokens.includes(w),
    );
  };
  const candidates = markets.filter((m) => m.status === status && filter(m));
  const tier1 = candidates.filter((m) => has(m.question));
  const tier2 = candidates.filter((m) => !has(m.question) && has(`${m.question} ${m.description}`));
  return [...tier1, ...tier2].map((m) => m.svc_id);
}

async function walk(repo: MarketsRepo, filter: MarketFilter, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let after: PagePosition | null = null;
  for (let i = 0; i < 10_000; i++) {
    const rows = await repo.page(filter, after, limit);
    for (const r of rows) ids.push((JSON.parse(r.doc.toString()) as Market).svc_id);
    const last = rows[rows.length - 1];
    if (rows.length < limit || !last) break;
    after = { tier: last.tier, seq: last.seq };
  }
  return ids;
}

onBothDialects('catalogue search beyond one walk window', (store) => {
  let repo: MarketsRepo;

  before(async () => {
    repo = new MarketsRepo(store().db, store().dialect, store().sqliteReader, store().pgReader);
    await repo.upsertMany(markets, '2026-11-25T00:00:00.000Z');
    await repo.analyze();
  });

  test('every search pages through exactly the matches, question matches first, in any page size', async () => {
    for (const search of [
      'common',
      'midword',
      'sparse',
      'common midword',
      'descword',
      'descw*',
      'sparse common',
    ]) {
      const want = expected(search);
      assert.ok(want.length > 0, search);
      for (const limit of [100, 37]) {
        assert.deepEqual(await walk(repo, { ...ALL, search }, limit), want, `${search} by ${limit}`);
      }
    }
    assert.deepEqual(
      await walk(repo, { ...ALL, search: 'midword', exchanges: ['kalshi'] }, 100),
      expected('midword', (m) => m.exchange === 'kalshi'),
    );
    assert.deepEqual(
      await walk(repo, { ...ALL, search: 'midword', minVolume: 5000 }, 100),
      expected('midword', (m) => (m.volume_total ?? 0) >= 5000),
    );
    assert.deepEqual(await walk(repo, { ...ALL, search: 'nothinglikeit' }, 100), []);
  });

  test('a count is exact up to its cap, and past it says it stopped', async () => {
    for (const search of ['midword', 'sparse', 'descword', 'descw*']) {
      const n = expected(search).length;
      assert.deepEqual(await repo.count({ ...ALL, search }, 1000), { total: n, exact: true }, search);
      assert.deepEqual(await repo.count({ ...ALL, search }, n), { total: n, exact: true }, search);
      assert.deepEqual(await repo.count({ ...ALL, search }, n - 1), { total: n - 1, exact: false }, search);
    }
    assert.deepEqual(await repo.count({ ...ALL, search: 'common' }, 1000), { total: 1000, exact: false });
    // Fewer than the cap in PostgreSQL's head of the walk index but past it further on (its density says where):
    // the walk goes on to the cap instead of counting through GIN, and says it stopped all the same.
    const questionMidword = markets.filter(
      (m) => m.status === 'active' && m.question.includes('midword'),
    ).length;
    for (const cap of [100, questionMidword - 1]) {
      assert.deepEqual(
        await repo.count({ ...ALL, search: 'midword' }, cap),
        { total: cap, exact: false },
        `${cap}`,
      );
    }
    assert.deepEqual(await repo.count(ALL, 1000), { total: 1000, exact: false });
    // Another status counts through the walk, then GIN where the walk says the matches are sparse.
    for (const search of ['common', 'midword', 'sparse', 'descword']) {
      const n = expected(search, () => true, 'closed').length;
      assert.ok(n > 0, search);
      const closed = { ...ALL, status: 'closed' as const, search };
      assert.deepEqual(await repo.count(closed, 1000), { total: n, exact: true }, `closed ${search}`);
      assert.deepEqual(await repo.count(closed, n - 1), { total: n - 1, exact: false }, `closed ${search}`);
      assert.deepEqual(
        await walk(repo, closed, 100),
        expected(search, () => true, 'closed'),
        `closed ${search}`,
      );
    }
    assert.deepEqual(await repo.count({ ...ALL, status: 'closed' }, 5000), {
      total: markets.filter((m) => m.status === 'closed').length,
      exact: true,
    });
  });
});
