// GET /orderbook/consolidated through the real server over the five simulators, with links the real matching engine
// published from a sync pass: the merged levels, their venues and their fee-net prices are recomputed here from each
// venue's own GET /orderbook answer and each venue's published fee formula (test/support/fee-models.ts), before and
// after the simulators move their books; a twin asked the other way round contributes its No book; a venue that
// fails is listed with its error and left out; all failing is a 503.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ExchangeId } from '../../../src/domain/exchanges.js';
import type { Market } from '../../../src/domain/market.js';
import { LinksRepo } from '../../../src/store/links-repo.js';
import {
  assertSelectorErrors,
  type CatalogueServer,
  simControl,
  startCatalogueServer,
} from '../../support/catalogue.js';
import { assertError } from '../../support/error-shape.js';
import { type FeeModel, feeModelOf } from '../../support/fee-models.js';

type Level = [number, number];
type MergedLevel = [number, number, ExchangeId, number | null];
interface Venue {
  svc_id: string;
  exchange: ExchangeId;
  outcome: string | null;
  token_id: string | null;
  timestamp: string | null;
  book_state: string;
  link_confidence: number | null;
  link_tier: string | null;
  inverted: boolean;
  error?: { error: string; code: string; retryable: boolean };
}
interface Consolidated {
  svc_id: string;
  outcome: string;
  bids: MergedLevel[];
  asks: MergedLevel[];
  venues: Venue[];
}

let cat: CatalogueServer;
let links: LinksRepo;
before(async () => {
  cat = await startCatalogueServer(40, { config: { catalogue: { sync: false } } });
  // A real pass: the matching engine links what the sync brought (what the background job runs).
  await cat.server.runtime.catalogSync.runAll();
  links = new LinksRepo(cat.server.runtime.store.db);
});
after(async () => {
  await cat?.stop();
});

const market = (svcId: string): Market => {
  const m = cat.markets.get(svcId);
  assert.ok(m, svcId);
  return m;
};

/** Active yes/no markets with at least `n` active HIGH twins on other exchanges, most twins first. */
async function betsWithTwins(n: number): Promise<Array<{ origin: Market; twins: string[] }>> {
  const out: Array<{ origin: Market; twins: string[] }> = [];
  for (const m of [...cat.markets.values()].sort((a, b) => (a.svc_id < b.svc_id ? -1 : 1))) {
    if (m.status !== 'active' || m.outcomes.length !== 2 || !m.outcomes.every((o) => o.token_id)) continue;
    const twins = (await links.twins(m.svc_id)).filter(
      (l) => l.status === 'active' && l.confidence_tier === 'HIGH' && l.exchange !== m.exchange,
    );
    if (twins.length >= n) out.push({ origin: m, twins: twins.map((t) => t.svc_id) });
  }
  return out.sort((a, b) => b.twins.length - a.twins.length);
}

async function consolidated(query: string): Promise<Consolidated> {
  const res = await cat.server.request(`/api/v1/orderbook/consolidated?${query}`);
  assert.equal(res.status, 200, `${query}: ${res.text}`);
  return res.body as Consolidated;
}

async function ownBook(
  svcId: string,
  outcome: string,
): Promise<{ bids: Level[]; asks: Level[]; timestamp: string }> {
  const res = await cat.server.request(
    `/api/v1/orderbook?svc_id=${encodeURIComponent(svcId)}&outcome=${encodeURIComponent(outcome)}&limit=100`,
  );
  assert.equal(res.status, 200, res.text);
  return res.body as { bids: Level[]; asks: Level[]; timestamp: string };
}

/** The merged side recomputed here: every venue's levels, by price, then net price (unknown last), then exchange. */
function expectedSide(
  side: 'bids' | 'asks',
  books: Array<{ exchange: ExchangeId; levels: Level[]; fee: FeeModel }>,
  limit: number,
): MergedLevel[] {
  const buy = side === 'asks';
  const all: MergedLevel[] = books.flatMap(({ exchange, levels, fee }) =>
    levels.map(([p, s]): MergedLevel => {
      const f = fee([[p, s]]);
      return [p, s, exchange, f === null ? null : buy ? p + f / s : p - f / s];
    }),
  );
  all.sort((a, b) => {
    if (a[0] !== b[0]) return buy ? a[0] - b[0] : b[0] - a[0];
    if (a[3] !== null && b[3] !== null && Math.abs(a[3] - b[3]) > 1e-12)
      return buy ? a[3] - b[3] : b[3] - a[3];
    if ((a[3] === null) !== (b[3] === null)) return a[3] === null ? 1 : -1;
    return a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0;
  });
  return all.slice(0, limit);
}

function assertSide(got: MergedLevel[], want: MergedLevel[], what: string): void {
  assert.equal(got.length, want.length, `${what}: ${got.length} levels, expected ${want.length}`);
  got.forEach((g, i) => {
    const w = want[i] as MergedLevel;
    assert.deepEqual(g.slice(0, 3), w.slice(0, 3), `${what}[${i}]`);
    if (w[3] === null) assert.equal(g[3], null, `${what}[${i}] net`);
    else assert.ok(g[3] !== null && Math.abs(g[3] - w[3]) < 1e-9, `${what}[${i}] net ${g[3]} vs ${w[3]}`);
  });
}

/**
 * The consolidated answer and each venue's own book read around it, retried until the venues' books read before and
 * after are the same (the books are moved only by the test, but a move lands on the streams asynchronously).
 */
async function bracketed(
  query: string,
): Promise<{ got: Consolidated; books: Map<string, { bids: Level[]; asks: Level[] }> }> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const probe = await consolidated(query);
    const ok = probe.venues.filter((v) => !v.error);
    const read = () => Promise.all(ok.map((v) => ownBook(v.svc_id, v.outcome as string)));
    const before = await read();
    const got = await consolidated(query);
    const afterBooks = await read();
    if (
      JSON.stringify(before.map((b) => [b.bids, b.asks])) ===
      JSON.stringify(afterBooks.map((b) => [b.bids, b.asks]))
    ) {
      return {
        got,
        books: new Map(ok.map((v, i) => [v.svc_id, before[i] as { bids: Level[]; asks: Level[] }])),
      };
    }
  }
  assert.fail('the books never held still');
}

async function checkAgainstBooks(query: string, limit: number): Promise<Consolidated> {
  const { got, books } = await bracketed(query);
  const models = new Map<string, FeeModel>();
  for (const v of got.venues) if (!v.error) models.set(v.svc_id, await feeModelOf(cat, market(v.svc_id)));
  const sides = (side: 'bids' | 'asks') =>
    got.venues
      .filter((v) => !v.error)
      .map((v) => ({
        exchange: v.exchange,
        levels: (books.get(v.svc_id) as { bids: Level[]; asks: Level[] })[side],
        fee: models.get(v.svc_id) as FeeModel,
      }));
  assertSide(got.bids, expectedSide('bids', sides('bids'), limit), 'bids');
  assertSide(got.asks, expectedSide('asks', sides('asks'), limit), 'asks');
  return got;
}

test('merges the outcome with its HIGH twins, every level and net price as recomputed from the books and fees', async () => {
  const [bet] = await betsWithTwins(2);
  assert.ok(bet, 'the sandbox world lists propositions on three venues');
  const q = `svc_id=${encodeURIComponent(bet.origin.svc_id)}&outcome=yes&limit=100`;
  const got = await checkAgainstBooks(q, 100);
  assert.equal(got.svc_id, bet.origin.svc_id);
  assert.equal(got.outcome.toLowerCase(), 'yes');
  // The venues: the selected market first, then every active HIGH twin, each with its book's time and the link.
  assert.equal(got.venues[0]?.svc_id, bet.origin.svc_id);
  assert.equal(got.venues[0]?.link_confidence, null);
  const stored = (await links.twins(bet.origin.svc_id)).filter(
    (l) => l.status === 'active' && l.confidence_tier === 'HIGH',
  );
  assert.deepEqual(
    got.venues.slice(1).map((v) => [v.svc_id, v.link_confidence, v.link_tier, v.inverted]),
    stored.map((l) => [l.svc_id, l.confidence, 'HIGH', false]),
  );
  for (const v of got.venues) {
    assert.equal(v.error, undefined, JSON.stringify(v));
    assert.equal(v.book_state, 'fresh');
    assert.equal(v.outcome?.toLowerCase(), 'yes');
    const own = await ownBook(v.svc_id, v.outcome as string);
    // The venue's own time of the book used: never later than the book the venue answers afterwards.
    assert.ok(
      Date.parse(v.timestamp as string) <= Date.parse(own.timestamp),
      `${v.timestamp} ${own.timestamp}`,
    );
    assert.equal(v.token_id, market(v.svc_id).outcomes.find((o) => o.name === v.outcome)?.token_id);
  }
  assert.ok(new Set(got.asks.map((l) => l[2])).size >= 2, 'levels of more than one exchange');

  // `limit` cuts the merged sides; the same query by exchange + market_id answers the same book.
  await checkAgainstBooks(`svc_id=${encodeURIComponent(bet.origin.svc_id)}&limit=3`, 3);
  const native = await consolidated(
    `exchange=${bet.origin.exchange}&market_id=${encodeURIComponent(bet.origin.exchange_market_id)}&limit=3`,
  );
  assert.equal(native.svc_id, bet.origin.svc_id);
  assert.equal(native.venues.length, got.venues.length);
});

test('after the simulators move their books, the merged book follows them', async () => {
  const [bet] = await betsWithTwins(2);
  assert.ok(bet);
  const q = `svc_id=${encodeURIComponent(bet.origin.svc_id)}&limit=100`;
  const first = await checkAgainstBooks(q, 100);
  for (const v of first.venues) await simControl(cat, v.exchange, 'POST', 'advance', { steps: 3 });
  const moved = await checkAgainstBooks(q, 100);
  assert.notDeepEqual(
    [moved.bids, moved.asks],
    [first.bids, first.asks],
    'three steps on every venue moved something',
  );
});

test('the no outcome maps to the twins’ no books; an inverted twin contributes its yes book to our no', async () => {
  const bets = await betsWithTwins(1);
  const bet = bets[0];
  assert.ok(bet);
  const linked = new Set([bet.origin.svc_id, ...bet.twins]);
  // A market on another exchange that is not a twin, linked here as the same question asked the other way round.
  const other = [...cat.markets.values()].find(
    (m) =>
      m.status === 'active' &&
      !linked.has(m.svc_id) &&
      m.exchange !== bet.origin.exchange &&
      m.outcomes.length === 2 &&
      m.outcomes.every((o) => o.token_id),
  );
  assert.ok(other);
  await links.publish(
    [
      {
        svc_id: bet.origin.svc_id,
        linked_svc_id: other.svc_id,
        kind: 'same_market',
        confidence: 0.4,
        confidence_tier: 'LOW',
        source: 'test',
        inverted: true,
      },
    ],
    new Date().toISOString(),
  );
  const svc = encodeURIComponent(bet.origin.svc_id);
  const high = await consolidated(`svc_id=${svc}&outcome=no`);
  assert.ok(!high.venues.some((v) => v.svc_id === other.svc_id), 'a LOW link is not used by default');
  for (const v of high.venues) assert.equal(v.outcome?.toLowerCase(), 'no');

  const got = await checkAgainstBooks(`svc_id=${svc}&outcome=no&min_tier=LOW&limit=100`, 100);
  const inverted = got.venues.find((v) => v.svc_id === other.svc_id);
  assert.ok(inverted, JSON.stringify(got.venues));
  assert.equal(inverted.outcome?.toLowerCase(), 'yes');
  assert.equal(inverted.inverted, true);
  assert.equal(inverted.link_tier, 'LOW');
  assert.equal(inverted.link_confidence, 0.4);
  const yesToken = other.outcomes.find((o) => o.name.toLowerCase() === 'yes')?.token_id;
  assert.equal(inverted.token_id, yesToken);
  const medium = await consolidated(`svc_id=${svc}&outcome=no&min_tier=MEDIUM`);
  assert.ok(!medium.venues.some((v) => v.svc_id === other.svc_id));
});

test('a failing venue is listed with its error and left out; all failing is a 503; parameters and selector', async () => {
  const bets = await betsWithTwins(1);
  // A bet nobody asked for yet, so no book of it is cached or followed on a stream.
  const bet = bets.at(-1);
  assert.ok(bet && bets.length >= 3);
  const twin = market(bet.twins[0] as string);
  const svc = encodeURIComponent(bet.origin.svc_id);
  await simControl(cat, twin.exchange, 'POST', 'faults', { error_rate: 1, error_status: 500 });
  try {
    const got = await consolidated(`svc_id=${svc}&limit=100`);
    const failed = got.venues.find((v) => v.svc_id === twin.svc_id);
    assert.ok(failed?.error, JSON.stringify(got.venues));
    assert.equal(failed.error.code, 'service_unavailable');
    assert.equal(failed.error.retryable, true);
    assert.equal(failed.book_state, 'needs_refresh');
    assert.equal(failed.timestamp, null);
    assert.ok(
      ![...got.bids, ...got.asks].some(
        (l) => l[2] === twin.exchange && twin.exchange !== bet.origin.exchange,
      ),
    );
    const own = got.venues.find((v) => v.svc_id === bet.origin.svc_id);
    assert.equal(own?.error, undefined);
  } finally {
    await simControl(cat, twin.exchange, 'DELETE', 'faults');
  }

  // Every venue of another cold bet failing: 503, retryable.
  const cold = bets.at(-2);
  assert.ok(cold);
  const exchanges = [...new Set([cold.origin.exchange, ...cold.twins.map((t) => market(t).exchange)])];
  for (const ex of exchanges)
    await simControl(cat, ex, 'POST', 'faults', { error_rate: 1, error_status: 500 });
  try {
    const res = await cat.server.request(
      `/api/v1/orderbook/consolidated?svc_id=${encodeURIComponent(cold.origin.svc_id)}`,
    );
    assertError(res, 503, 'service_unavailable');
  } finally {
    for (const ex of exchanges) await simControl(cat, ex, 'DELETE', 'faults');
  }

  for (const bad of ['limit=0', 'limit=101', 'min_tier=SOME', 'depth=5']) {
    assertError(
      await cat.server.request(`/api/v1/orderbook/consolidated?svc_id=${svc}&${bad}`),
      400,
      'validation_error',
    );
  }
  await assertSelectorErrors(cat, '/api/v1/orderbook/consolidated', bet.origin.svc_id);
});
