// GET /orderbook history through the real server over the five simulators, with the recorder recording the top
// markets of every exchange: a book that moves on a simulator becomes a new snapshot visible through the API on all
// five exchanges; the window, limit, cursor and tier rules; every error; an unrecorded market (an empty page); and a
// server with the recorder off (501, flag false).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ExchangeId } from '../../../src/domain/exchanges.js';
import type { Market } from '../../../src/domain/market.js';
import { type CatalogueServer, simControl, startCatalogueServer } from '../../support/catalogue.js';
import { assertError } from '../../support/error-shape.js';
import { startTestServer, waitFor } from '../../support/server.js';

interface Snapshot {
  timestamp: string;
  bids: [number, number][];
  asks: [number, number][];
}

interface History {
  svc_id: string;
  exchange: string;
  outcome: string;
  token_id: string;
  market_id: string;
  tick_size: number | null;
  snapshots: Snapshot[];
  has_more: boolean;
  next_cursor: string | null;
}

const DAY = 86_400;
const nowS = () => Math.floor(Date.now() / 1000);

let cat: CatalogueServer;
/** One recorded book per exchange: the market and its outcome's name. */
const recorded = new Map<ExchangeId, { market: Market; outcome: string }>();

before(async () => {
  cat = await startCatalogueServer(20, {
    config: {
      recorder: { enabled: true, topN: 2, intervalMs: 20 },
      venues: { opinion: { pollIntervalMs: 100 }, predictfun: { pollIntervalMs: 100 } },
    },
  });
  const job = cat.server.runtime.bookRecorderJob;
  assert.ok(job, 'the recorder job runs');
  // The store was filled after the server started: recompute the top N now, as the first catalogue pass would.
  await job.refresh();
  for (const t of job.recorded()) {
    const exchange = t.venue.descriptor.id;
    if (!recorded.has(exchange)) recorded.set(exchange, { market: t.market, outcome: t.outcome.name });
  }
});
after(async () => {
  await cat?.stop();
});

function path(market: Market, extra: string, outcome?: string): string {
  const o = outcome === undefined ? '' : `&outcome=${encodeURIComponent(outcome)}`;
  return `/api/v1/orderbook?svc_id=${encodeURIComponent(market.svc_id)}${o}${extra ? `&${extra}` : ''}`;
}

async function history(p: string, key?: string): Promise<History> {
  const res = await cat.server.request(p, key === undefined ? {} : { key });
  assert.equal(res.status, 200, `${p}: ${res.text}`);
  return res.body as History;
}

function target(exchange: ExchangeId): { market: Market; outcome: string } {
  const t = recorded.get(exchange);
  assert.ok(t, `no ${exchange} book is recorded`);
  return t;
}

const control = (exchange: ExchangeId, method: string, path: string, body?: unknown): Promise<unknown> =>
  simControl(cat, exchange, method, path, body);

async function keyOf(tier: string): Promise<string> {
  const created = await cat.server.request('/api/v1/keys', { method: 'POST', body: { tier } });
  assert.equal(created.status, 201, created.text);
  return (created.body as { key: string }).key;
}

describe('recording', () => {
  test('every exchange: the books are recorded at once, and a move on the simulator is a new snapshot', async () => {
    assert.deepEqual(
      [...recorded.keys()].sort(),
      [...cat.sims.keys()].sort(),
      'a recorded book per exchange',
    );
    for (const exchange of cat.sims.keys()) {
      const { market, outcome } = target(exchange);
      const p = path(market, `end_ts=${nowS() + 60}&limit=1000`, outcome);
      const first = await waitFor(
        async () => {
          const h = await history(p);
          return h.snapshots.length > 0 ? h : undefined;
        },
        15_000,
        `the first ${exchange} snapshot`,
      );
      assert.equal(first.svc_id, market.svc_id);
      assert.equal(first.exchange, exchange);
      assert.equal(first.market_id, market.exchange_market_id);
      assert.equal(first.outcome, outcome);
      const before = first.snapshots[first.snapshots.length - 1] as Snapshot;
      // The venue moves until the book differs from the last recorded state; the recorder writes the new one.
      const moved = await waitFor(
        async () => {
          await control(exchange, 'POST', 'advance', { steps: 3 });
          const h = await history(p);
          const last = h.snapshots[h.snapshots.length - 1];
          return last && last.timestamp !== before.timestamp ? h : undefined;
        },
        20_000,
        `a new ${exchange} snapshot after the book moved`,
      );
      const latest = moved.snapshots[moved.snapshots.length - 1] as Snapshot;
      assert.notDeepEqual([latest.bids, latest.asks], [before.bids, before.asks], 'a snapshot is a change');
      for (let i = 1; i < moved.snapshots.length; i++) {
        const a = moved.snapshots[i - 1] as Snapshot;
        const b = moved.snapshots[i] as Snapshot;
        assert.ok(Date.parse(a.timestamp) < Date.parse(b.timestamp), 'oldest first');
        assert.notDeepEqual([a.bids, a.asks], [b.bids, b.asks], `${exchange}: an unchanged book wrote a row`);
      }
      for (const s of moved.snapshots) {
        for (let i = 1; i < s.bids.length; i++) assert.ok((s.bids[i - 1]?.[0] ?? 0) > (s.bids[i]?.[0] ?? 0));
        for (let i = 1; i < s.asks.length; i++) assert.ok((s.asks[i - 1]?.[0] ?? 0) < (s.asks[i]?.[0] ?? 0));
      }
    }
  });

  test('GET /exchanges offers fetch_orderbook_history on every exchange while the recorder runs', async () => {
    const res = await cat.server.request('/api/v1/exchanges');
    const matrix = res.body as Array<{ id: string; has: Record<string, boolean> }>;
    for (const e of matrix) assert.equal(e.has.fetch_orderbook_history, true, e.id);
  });
});

describe('window, limit and cursor', () => {
  test('pages of `limit` walked by next_cursor give exactly the whole window, in order', async () => {
    const { market, outcome } = target('polymarket');
    const end = `end_ts=${nowS() + 60}`;
    const whole = await waitFor(
      async () => {
        const h = await history(path(market, `${end}&limit=1000`, outcome));
        if (h.snapshots.length >= 3) return h;
        await control('polymarket', 'POST', 'advance', { steps: 3 });
        return undefined;
      },
      20_000,
      'three polymarket snapshots',
    );
    assert.equal(whole.has_more, false);
    assert.equal(whole.next_cursor, null);
    const walked: Snapshot[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < whole.snapshots.length + 1; i++) {
      const page: History = await history(
        path(market, `${end}&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, outcome),
      );
      assert.ok(page.snapshots.length <= 1);
      walked.push(...page.snapshots);
      if (!page.has_more) {
        assert.equal(page.next_cursor, null);
        break;
      }
      assert.ok(page.next_cursor, 'has_more comes with a cursor');
      cursor = page.next_cursor;
    }
    // Snapshots recorded after the whole read may follow: the walk starts with exactly the whole window.
    assert.deepEqual(walked.slice(0, whole.snapshots.length), whole.snapshots);
  });

  test('defaults: end_ts now, start_ts a day before it, limit 500; depth cuts the levels of each snapshot', async () => {
    const { market, outcome } = target('kalshi');
    const h = await waitFor(async () => {
      const r = await history(path(market, `end_ts=${nowS() + 60}`, outcome));
      return r.snapshots.length > 0 ? r : undefined;
    });
    const t = Date.parse(h.snapshots[0]?.timestamp ?? '');
    assert.ok(t >= (nowS() - DAY - 120) * 1000 && t <= (nowS() + 60) * 1000);
    // A window that ended before anything was recorded is empty; one from a day before it, too.
    const past = await history(path(market, `end_ts=${nowS() - 3600}`, outcome));
    assert.deepEqual(past.snapshots, []);
    assert.equal(past.has_more, false);
    const startOnly = await history(path(market, `start_ts=${nowS() - 600}`, outcome));
    assert.ok(startOnly.snapshots.length > 0, 'end_ts defaults to now');
    const cut = await history(path(market, `end_ts=${nowS() + 60}&depth=1`, outcome));
    for (const s of cut.snapshots) assert.ok(s.bids.length <= 1 && s.asks.length <= 1);
    const full = await history(path(market, `end_ts=${nowS() + 60}`, outcome));
    assert.ok(
      full.snapshots.some((s) => s.bids.length > 1 || s.asks.length > 1),
      'levels beyond depth 1',
    );
  });

  test('limit is 1..1000 in history (1..100 live); start after end and bad numbers are 400s', async () => {
    const { market } = target('limitless');
    const end = `end_ts=${nowS()}`;
    assert.equal((await cat.server.request(path(market, `${end}&limit=1000`))).status, 200);
    assert.equal((await cat.server.request(path(market, `${end}&limit=101`))).status, 200);
    assertError(await cat.server.request(path(market, `${end}&limit=1001`)), 400, 'validation_error');
    assertError(await cat.server.request(path(market, `${end}&limit=0`)), 400, 'validation_error');
    assertError(await cat.server.request(path(market, 'limit=101')), 400, 'validation_error');
    const s = nowS();
    const bad = await cat.server.request(path(market, `start_ts=${s}&end_ts=${s - 1}`));
    assert.match(
      String(assertError(bad, 400, 'validation_error').error),
      /start_ts must not be after end_ts/,
    );
    assertError(await cat.server.request(path(market, `start_ts=${s + 3600}`)), 400, 'validation_error');
    assertError(await cat.server.request(path(market, 'start_ts=-1')), 400, 'validation_error');
    assertError(await cat.server.request(path(market, 'end_ts=soon')), 400, 'validation_error');
  });

  test('a cursor that was edited, made up or replayed with another query is a 400', async () => {
    const { market, outcome } = target('polymarket');
    const end = `end_ts=${nowS() + 60}`;
    const first = await waitFor(async () => {
      const r = await history(path(market, `${end}&limit=1`, outcome));
      if (r.next_cursor) return r;
      await control('polymarket', 'POST', 'advance', { steps: 3 });
      return undefined;
    });
    const cursor = first.next_cursor as string;
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as unknown[];
    decoded[2] = (decoded[2] as number) - 1;
    const edited = Buffer.from(JSON.stringify(decoded)).toString('base64url');
    for (const c of [edited, 'abc', `${cursor}x`]) {
      const res = await cat.server.request(
        path(market, `${end}&limit=1&cursor=${encodeURIComponent(c)}`, outcome),
      );
      assertError(res, 400, 'validation_error');
    }
    const other = await cat.server.request(
      path(market, `end_ts=${nowS() + 61}&limit=1&cursor=${encodeURIComponent(cursor)}`, outcome),
    );
    assert.match(String(assertError(other, 400, 'validation_error').error), /different query/);
    // The cursor alone also selects the historical mode.
    assert.equal(
      (await cat.server.request(path(market, `limit=1&cursor=${encodeURIComponent(cursor)}`, outcome)))
        .status,
      400,
    );
  });
});

describe('tiers and errors', () => {
  test('the tier bounds the window: free 5 days, pro 30, scale unlimited; beyond it is a 400', async () => {
    const { market } = target('opinion');
    const free = await keyOf('free');
    const pro = await keyOf('pro');
    const scale = await keyOf('scale');
    const s = nowS();
    const ask = (start: number, key: string) =>
      cat.server.request(path(market, `start_ts=${start}`), { key });
    assert.equal((await ask(s - 4 * DAY, free)).status, 200);
    const tooOld = assertError(await ask(s - 6 * DAY, free), 400, 'validation_error');
    assert.match(String(tooOld.error), /tier allows/);
    assert.equal((await ask(s - 29 * DAY, pro)).status, 200);
    assertError(await ask(s - 31 * DAY, pro), 400, 'validation_error');
    assert.equal((await ask(s - 3650 * DAY, scale)).status, 200);
    // An end_ts alone before the window is refused too; a default start is clamped, not refused.
    assertError(
      await cat.server.request(path(market, `end_ts=${s - 6 * DAY}`), { key: free }),
      400,
      'validation_error',
    );
    assert.equal(
      (await cat.server.request(path(market, `end_ts=${s - 4 * DAY}`), { key: free })).status,
      200,
    );
  });

  test('a market that is not recorded is an empty page; unknown markets, outcomes and bad selectors are errors', async () => {
    const recordedIds = new Set(cat.server.runtime.bookRecorderJob?.recorded().map((t) => t.market.svc_id));
    const quiet = [...cat.markets.values()].find(
      (m) => m.status === 'active' && m.outcomes.some((o) => o.token_id) && !recordedIds.has(m.svc_id),
    );
    assert.ok(quiet, 'an unrecorded active market');
    const empty = await history(path(quiet, `end_ts=${nowS()}`));
    assert.deepEqual(
      { snapshots: empty.snapshots, has_more: empty.has_more, next_cursor: empty.next_cursor },
      { snapshots: [], has_more: false, next_cursor: null },
    );
    assert.equal(empty.market_id, quiet.exchange_market_id);

    const { market } = target('kalshi');
    const svc = encodeURIComponent(market.svc_id);
    const s = nowS();
    assertError(
      await cat.server.request(`/api/v1/orderbook?svc_id=kalshi:NOPE-NOT-A-MARKET&end_ts=${s}`),
      404,
      'market_not_found',
    );
    assertError(
      await cat.server.request(`/api/v1/orderbook?svc_id=${svc}&outcome=maybe&end_ts=${s}`),
      400,
      'validation_error',
    );
    assertError(
      await cat.server.request(`/api/v1/orderbook?svc_id=${svc}&exchange=kalshi&market_id=X&end_ts=${s}`),
      400,
      'validation_error',
    );
    assertError(await cat.server.request(`/api/v1/orderbook?end_ts=${s}`), 400, 'missing_parameter');
    assertError(
      await cat.server.request(`/api/v1/orderbook?exchange=nasdaq&market_id=X&end_ts=${s}`),
      404,
      'exchange_not_found',
    );
    assertError(
      await cat.server.request(`/api/v1/orderbook?svc_id=${svc}&end_ts=${s}`, { key: null }),
      401,
      'unauthorized',
    );
  });
});

test('with the recorder off, history answers 501 not_supported and no exchange offers it', async () => {
  const server = await startTestServer({ config: { recorder: { enabled: false } } });
  try {
    for (const extra of ['start_ts=1700000000', 'end_ts=1700000000', 'cursor=abc']) {
      const res = await server.request(`/api/v1/orderbook?svc_id=kalshi:KXANY&${extra}`);
      assert.match(String(assertError(res, 501, 'not_supported').error), /fetch_orderbook_history/);
    }
    assert.equal(server.runtime.bookRecorder, null);
    assert.equal(server.runtime.bookRecorderJob, null);
  } finally {
    await server.stop();
  }
});
