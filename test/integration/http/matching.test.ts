// Cross-exchange links end to end: a real sync pass over the five simulators (through their adapters) links the
// markets it brought within that pass; GET /markets then shows each link from both sides with tier, source, the
// linked market's status and, for related markets, the dependency; a later pass that changed nothing relinks
// nothing, and a market listed afterwards is linked by relinking only its neighbourhood.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { devSet } from '../../../bench/matching/labelled-set.js';
import { CRYPTO_SETTLEMENT_INDEX, createWorld } from '../../../sim/shared/world.js';
import { type RunningSimVenue, SIM_VENUE_LAUNCHERS } from '../../../src/cli/sandbox-venues.js';
import { loadConfig } from '../../../src/config/load.js';
import type { ExchangeId } from '../../../src/domain/exchanges.js';
import type { Market, RelationLink } from '../../../src/domain/market.js';
import { LinksRepo } from '../../../src/store/links-repo.js';
import { MarketsRepo } from '../../../src/store/markets-repo.js';
import { startTestServer, type TestServer } from '../../support/server.js';

type Linked = Market & { matched_markets?: RelationLink[]; related_markets?: RelationLink[] };

let server: TestServer;
const sims = new Map<ExchangeId, RunningSimVenue>();
const manifests = new Map<ExchangeId, Record<string, string[]>>();

before(async () => {
  const config = loadConfig({ env: {}, overrides: { mode: 'sandbox' } });
  for (const [id, launch] of Object.entries(SIM_VENUE_LAUNCHERS)) {
    if (!launch) continue;
    const sim = await launch(config, { size: 40, seed: 7 });
    sims.set(id as ExchangeId, sim);
    manifests.set(
      id as ExchangeId,
      (await (await fetch(`${sim.control}/__sim/manifest`)).json()) as Record<string, string[]>,
    );
  }
  // The test runs the passes itself (what the background job runs), so nothing else links behind its back.
  server = await startTestServer({
    venues: [...sims.values()].map((s) => s.adapter),
    config: { catalogue: { sync: false } },
  });
  await server.runtime.catalogSync.runAll();
});
after(async () => {
  await server?.stop();
  await Promise.allSettled([...sims.values()].map((s) => s.close()));
});

async function markets(
  ids: string[],
  flags = 'include_matches=true&include_related=true',
): Promise<Map<string, Linked>> {
  const res = await server.request(`/api/v1/markets?svc_ids=${encodeURIComponent(ids.join(','))}&${flags}`);
  assert.equal(res.status, 200, res.text);
  const body = res.body as { markets: Linked[] };
  return new Map(body.markets.map((m) => [m.svc_id, m]));
}

/** Ground-truth svc_ids of one proposition key, among markets the sync stored (venues list closed ones or not). */
async function listedAs(key: string): Promise<string[]> {
  const ids = [...manifests].flatMap(([ex, m]) => (m[key] ?? []).map((n) => `${ex}:${n}`));
  const rows = await server.runtime.store.db
    .selectFrom('markets')
    .select('svc_id')
    .where('svc_id', 'in', ids)
    .execute();
  return rows.map((r) => r.svc_id).sort();
}

/** The world the simulators serve (size 40, seed 7, as launched above): what each proposition is. */
const world = new Map(createWorld({ size: 40, seed: 7 }).propositions.map((p) => [p.id, p]));

/** Both venues' rules name a settlement index for this proposition, and not the same one (sim/shared/world.ts). */
function indicesDiffer(key: string, a: string, b: string): boolean {
  if (world.get(key)?.topic !== 'crypto') return false;
  const ia = CRYPTO_SETTLEMENT_INDEX[a.split(':')[0] as ExchangeId];
  const ib = CRYPTO_SETTLEMENT_INDEX[b.split(':')[0] as ExchangeId];
  return ia !== undefined && ib !== undefined && ia !== ib;
}

async function sharedKeys(option: boolean): Promise<Array<[string, string[]]>> {
  const keys = new Set([...manifests.values()].flatMap((m) => Object.keys(m)));
  const out: Array<[string, string[]]> = [];
  for (const key of [...keys].sort()) {
    if (key.includes('/') !== option) continue;
    const ids = await listedAs(key);
    if (ids.length >= 2) out.push([key, ids]);
    if (out.length >= 6) break;
  }
  return out;
}

test('a sync pass links the same proposition across exchanges, shown from both sides', async () => {
  const shared = await sharedKeys(false);
  assert.ok(shared.length > 0, 'the world shares propositions across venues');
  const links = new LinksRepo(server.runtime.store.db);
  for (const [key, ids] of shared) {
    const got = await markets(ids);
    for (const a of ids) {
      for (const b of ids) {
        if (a === b) continue;
        const m = got.get(a) as Linked;
        if (indicesDiffer(key, a, b)) {
          // One line on two stated indices (BRTI, Binance) is related, never matched: from both sides.
          assert.equal(
            m.matched_markets?.find((l) => l.svc_id === b),
            undefined,
            `${a} ≢ ${b}`,
          );
          const rel = m.related_markets?.find((l) => l.svc_id === b);
          assert.equal(rel?.dependency_type, 'settlement_index', `${key}: ${a} → ${b}`);
          assert.equal(rel?.dependency_direction ?? null, null);
          continue;
        }
        const link = m.matched_markets?.find((l) => l.svc_id === b);
        assert.ok(link, `${key}: ${a} → ${b} missing; has ${JSON.stringify(m.matched_markets)}`);
        assert.equal(link.exchange, (got.get(b) as Linked).exchange);
        assert.equal(link.status, (got.get(b) as Linked).status, 'the linked market keeps its own status');
        assert.equal(link.confidence_tier, 'HIGH');
        assert.ok(['deterministic_graph', 'hierarchical'].includes(link.source));
        assert.equal(link.dependency_type, undefined);
        // Every same_market link carries its resolution check, seen from this market's side.
        const check = link.resolution_check;
        assert.ok(check, `${a} → ${b}: resolution_check missing`);
        assert.equal(typeof check.comparable, 'boolean');
        assert.ok(Array.isArray(check.differences));
        const back = got.get(b)?.matched_markets?.find((l) => l.svc_id === a)?.resolution_check;
        assert.deepEqual(back?.market, check.linked, 'the other side sees the same check mirrored');
        assert.deepEqual(back?.differences, check.differences);
        const evidence = await links.evidence(a, b, 'same_market');
        assert.ok(evidence && evidence.length > 0, 'every published link stores its evidence');
      }
    }
  }
});

test('every published link over HTTP: same_market carries its resolution check, cross-venue co_dependent shows both ways', async () => {
  const rows = await server.runtime.store.db
    .selectFrom('markets')
    .select('svc_id')
    .orderBy('svc_id')
    .execute();
  const got = new Map<string, Linked>();
  for (let i = 0; i < rows.length; i += 50) {
    for (const [id, m] of await markets(rows.slice(i, i + 50).map((r) => r.svc_id))) got.set(id, m);
  }
  let matched = 0;
  let crossRelated = 0;
  for (const [a, m] of got) {
    for (const link of m.matched_markets ?? []) {
      matched++;
      assert.ok(link.resolution_check, `${a} → ${link.svc_id}: resolution_check missing`);
      assert.equal(typeof link.resolution_check.comparable, 'boolean');
      assert.ok(Array.isArray(link.resolution_check.differences));
    }
    for (const link of m.related_markets ?? []) {
      if (link.exchange === m.exchange) continue;
      crossRelated++;
      const back = got.get(link.svc_id)?.related_markets?.find((l) => l.svc_id === a);
      assert.ok(back, `${a} → ${link.svc_id} (${link.dependency_type}) is not listed from the other side`);
      assert.equal(back.dependency_type, link.dependency_type);
    }
  }
  assert.ok(matched > 0 && crossRelated > 0, `${matched} matched, ${crossRelated} cross-venue related`);
});

test('one crypto line on Kalshi (BRTI) and Polymarket (Binance) is related settlement_index both ways, never matched', async () => {
  let found: [string, string] | null = null;
  for (const [key, m] of Object.entries(manifests.get('kalshi') ?? {})) {
    if (key.includes('/') || world.get(key)?.topic !== 'crypto') continue;
    const ids = await listedAs(key);
    const k = ids.find((id) => id.startsWith('kalshi:'));
    const p = ids.find((id) => id.startsWith('polymarket:'));
    if (k && p && m.length > 0) {
      found = [k, p];
      break;
    }
  }
  assert.ok(found, 'the world lists a crypto line on both Kalshi and Polymarket');
  const [k, p] = found;
  const got = await markets([k, p]);
  for (const [a, b] of [
    [k, p],
    [p, k],
  ] as const) {
    const m = got.get(a) as Linked;
    assert.equal(
      m.matched_markets?.find((l) => l.svc_id === b),
      undefined,
      `${a} is not ${b}'s twin`,
    );
    const rel = m.related_markets?.find((l) => l.svc_id === b);
    assert.equal(
      rel?.dependency_type,
      'settlement_index',
      `${a} → ${b}: ${JSON.stringify(m.related_markets)}`,
    );
    assert.equal(rel?.source, 'deterministic_graph');
  }
});

test('options of one election are related (mutually exclusive) within and across exchanges', async () => {
  const options = await sharedKeys(true);
  assert.ok(options.length >= 2);
  const [keyA, idsA] = options[0] as [string, string[]];
  const sibling = options.find(([k]) => k.split('/')[0] === keyA.split('/')[0] && k !== keyA);
  assert.ok(sibling, 'an election with two options listed on two venues');
  const idsB: string[] = sibling[1];
  const got = await markets([...idsA, ...idsB]);
  for (const a of idsA) {
    for (const b of idsB) {
      const link: RelationLink | undefined = got.get(a)?.related_markets?.find((l) => l.svc_id === b);
      assert.ok(link, `${a} → ${b}`);
      assert.equal(link.dependency_type, 'mutually_exclusive');
      assert.equal(link.dependency_direction, 'exclusive');
      assert.equal(link.source, 'hierarchical');
      const back = got.get(b)?.related_markets?.find((l) => l.svc_id === a);
      assert.equal(back?.dependency_type, 'mutually_exclusive');
    }
  }
});

test('links to closed and resolved markets are published with their status', async () => {
  const rows = await server.runtime.store.db
    .selectFrom('market_links as l')
    .innerJoin('markets as m', 'm.svc_id', 'l.linked_svc_id')
    .select(['l.svc_id', 'l.linked_svc_id', 'm.status'])
    .where('m.status', 'in', ['closed', 'resolved'])
    .limit(5)
    .execute();
  assert.ok(rows.length > 0, 'the world has closed markets with counterparts');
  for (const r of rows) {
    const got = await markets([r.svc_id]);
    const all = [
      ...(got.get(r.svc_id)?.matched_markets ?? []),
      ...(got.get(r.svc_id)?.related_markets ?? []),
    ];
    assert.equal(all.find((l) => l.svc_id === r.linked_svc_id)?.status, r.status);
  }
});

interface EventItem {
  event_id: string;
  exchanges: string[];
  status: string;
  matched_events?: Array<{
    event_id: string;
    title: string;
    exchange: string;
    status: string;
    link_count: number;
    confidence: number;
  }>;
}

/** Every active event of one exchange, walked page by page through GET /events. */
async function eventsOf(exchange: string, flags: string): Promise<Map<string, EventItem>> {
  const out = new Map<string, EventItem>();
  for (let cursor: string | undefined; ; ) {
    const res = await server.request(
      `/api/v1/events?exchanges=${exchange}&limit=100${flags}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    assert.equal(res.status, 200, res.text);
    const body = res.body as { events: EventItem[]; pagination: { next_cursor?: string } };
    for (const e of body.events) out.set(e.event_id, e);
    cursor = body.pagination.next_cursor;
    if (!cursor) return out;
  }
}

test('GET /events?include_matches=true names the events matched to each event, both ways', async () => {
  // The expectation, counted here from the stored link rows: same_market links between markets of two events.
  const rows = await server.runtime.store.db
    .selectFrom('market_links as l')
    .innerJoin('markets as a', 'a.svc_id', 'l.svc_id')
    .innerJoin('markets as b', 'b.svc_id', 'l.linked_svc_id')
    .innerJoin('events as ea', 'ea.svc_group_id', 'a.svc_group_id')
    .innerJoin('events as eb', 'eb.svc_group_id', 'b.svc_group_id')
    .select([
      'a.svc_group_id as ga',
      'b.svc_group_id as gb',
      'a.exchange as xa',
      'b.exchange as xb',
      'l.confidence',
      'eb.status',
    ])
    .where('l.kind', '=', 'same_market')
    .where('l.published', '=', 1)
    .where('ea.status', '=', 'active')
    .execute();
  assert.ok(rows.length > 0, 'the world has matched markets in active events');
  // Matched events are named whatever their status (a closed one shows `closed`), as linked markets are.
  const expected = new Map<string, { count: number; confidence: number; status: string }>();
  for (const r of rows) {
    const key = `${r.ga}>${r.gb}`;
    const cell = expected.get(key) ?? { count: 0, confidence: 0, status: r.status };
    cell.count++;
    cell.confidence = Math.max(cell.confidence, r.confidence);
    expected.set(key, cell);
  }
  const first = (rows.find((r) => r.status === 'active') ?? rows[0]) as (typeof rows)[number];
  const [pageA, pageB, plain] = await Promise.all([
    eventsOf(first.xa, '&include_matches=true'),
    eventsOf(first.xb, '&include_matches=true'),
    eventsOf(first.xa, ''),
  ]);
  const a = pageA.get(first.ga);
  const b = pageB.get(first.gb);
  assert.ok(a && b, 'both events are listed');
  const ab = a.matched_events?.find((m) => m.event_id === first.gb);
  const ba = b.matched_events?.find((m) => m.event_id === first.ga);
  assert.ok(ab, `${first.ga} → ${first.gb}: ${JSON.stringify(a.matched_events)}`);
  assert.ok(ba, `${first.gb} → ${first.ga}: ${JSON.stringify(b.matched_events)}`);
  assert.equal(ab.exchange, first.xb);
  assert.equal(ba.exchange, first.xa);
  assert.equal(ab.link_count, ba.link_count, 'the same links seen from either side');
  assert.equal(ab.link_count, expected.get(`${first.ga}>${first.gb}`)?.count);
  assert.equal(ab.confidence, expected.get(`${first.ga}>${first.gb}`)?.confidence);
  // Every listed event's matches are exactly the stored ones (no event matches itself), strongest first.
  for (const e of pageA.values()) {
    const want = [...expected.entries()]
      .filter(([k]) => k.startsWith(`${e.event_id}>`))
      .map(([k]) => k.slice(e.event_id.length + 1))
      .sort();
    const got = (e.matched_events ?? []).map((m) => m.event_id);
    for (const m of e.matched_events ?? [])
      assert.equal(m.status, expected.get(`${e.event_id}>${m.event_id}`)?.status, 'its own status');
    assert.deepEqual([...got].sort(), want, e.event_id);
    assert.ok(!got.includes(e.event_id));
    const confidences = (e.matched_events ?? []).map((m) => m.confidence);
    assert.deepEqual(
      confidences,
      [...confidences].sort((x, y) => y - x),
    );
  }
  assert.equal(plain.get(first.ga)?.matched_events, undefined, 'only when asked');
});

test('a pass that changed nothing relinks nothing; a new listing relinks only its neighbourhood', async () => {
  const db = server.runtime.store.db;
  const before = await db
    .selectFrom('market_links')
    .select(['svc_id', 'linked_svc_id', 'updated_at'])
    .execute();
  await server.runtime.catalogSync.runAll();
  assert.deepEqual(await server.runtime.matching.flush(), { changed: 0, relinked: 0, rows: 0 });
  const after = await db
    .selectFrom('market_links')
    .select(['svc_id', 'linked_svc_id', 'updated_at'])
    .execute();
  assert.deepEqual(after, before, 'no link was rewritten');

  // A venue that did not list a proposition lists it now (in another venue's words): the sync page is written and
  // observed, and the pass's flush links it.
  const [, ids] = (await sharedKeys(false)).find(([, list]) => list.length < sims.size) as [string, string[]];
  const original = (await markets([ids[0] as string], 'include_matches=false')).get(
    ids[0] as string,
  ) as Market;
  const venue = [...sims.keys()].find((ex) => !ids.some((id) => id.startsWith(`${ex}:`))) as ExchangeId;
  const fresh: Market = {
    ...original,
    exchange: venue,
    svc_id: `${venue}:NEW-LISTING`,
    exchange_market_id: 'NEW-LISTING',
    svc_group_id: `${venue}:NEW-LISTING`,
  };
  const others = ids;
  await new MarketsRepo(db, server.runtime.store.dialect).upsertMany([fresh], new Date().toISOString());
  server.runtime.matching.observe([fresh]);
  const total = (
    await db
      .selectFrom('markets')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst()
  )?.n;
  const result = await server.runtime.matching.flush();
  assert.equal(result.changed, 1);
  assert.ok(result.relinked < Number(total) / 4, `relinked ${result.relinked} of ${total}`);
  const got = await markets([fresh.svc_id, ...others]);
  for (const other of others) {
    assert.ok(
      got.get(fresh.svc_id)?.matched_markets?.some((l) => l.svc_id === other),
      `new → ${other}`,
    );
    assert.ok(
      got.get(other)?.matched_markets?.some((l) => l.svc_id === fresh.svc_id),
      `${other} → new`,
    );
  }
});

// Real rows in the venues' own words (test/fixtures/matching-real-dev): Polymarket's `by June 30?` (no year) and
// predict.fun's `by June 30, 2026` are twins; predict.fun's `in 2025` implies the 2026 deadline, which comparePair
// cannot see against Polymarket's yearless day: the link is derived across the twin. Served on both sides, with the
// direction read from each side and the chain in its stored evidence.
test('a cross-venue co_dependent link derived through a twin is listed from both sides', async () => {
  const db = server.runtime.store.db;
  const [template] = [
    ...(await markets([(await sharedKeys(false))[0]?.[1][0] as string], 'include_matches=false')).values(),
  ];
  assert.ok(template);
  const rows = devSet().markets.filter((m) =>
    ['polymarket:657287', 'predictfun:928', 'predictfun:927'].includes(m.svc_id),
  );
  assert.equal(rows.length, 3);
  const listed: Market[] = rows.map((r) => {
    const { status: _status, outcomes: _outcomes, ...fields } = r;
    // Only the recorded fields: none of the template's own text, dates or rules.
    const { description: _d, rules: _r, end_date: _e, ...bare } = template;
    return {
      ...bare,
      group_title: '',
      end_date: null,
      ...fields,
      svc_group_id: r.svc_group_id ?? r.svc_id,
      exchange_market_id: r.exchange_market_id ?? r.svc_id.slice(r.svc_id.indexOf(':') + 1),
    };
  });
  await new MarketsRepo(db, server.runtime.store.dialect).upsertMany(listed, new Date().toISOString());
  server.runtime.matching.observe(listed);
  await server.runtime.matching.flush();
  const got = await markets(listed.map((m) => m.svc_id));
  const twin = got.get('polymarket:657287')?.matched_markets?.find((l) => l.svc_id === 'predictfun:928');
  assert.ok(twin?.resolution_check, 'the twins are matched, with their resolution check');
  const there = got.get('predictfun:927')?.related_markets?.find((l) => l.svc_id === 'polymarket:657287');
  const back = got.get('polymarket:657287')?.related_markets?.find((l) => l.svc_id === 'predictfun:927');
  assert.ok(there && back, JSON.stringify([...got.values()].map((m) => [m.svc_id, m.related_markets])));
  assert.equal(there.dependency_type, 'date_ladder');
  assert.equal(there.dependency_direction, 'implies', 'a 2025 launch is a launch by June 30, 2026');
  assert.equal(back.dependency_type, 'date_ladder');
  assert.equal(back.dependency_direction, 'implied_by');
  const evidence = await new LinksRepo(db).evidence('predictfun:927', 'polymarket:657287', 'co_dependent');
  assert.match(evidence?.[0] ?? '', /^through twin predictfun:928/);
});
