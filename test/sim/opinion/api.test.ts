// The Opinion simulator's OpenAPI over loopback: apikey on every call (market data too), page/limit walked
// to the end, filters, lookups by id, categorical id and slug, price-history intervals (1h and 1d only), a
// key holder's and an address's portfolio, faults and determinism.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type OpinionSim, startOpinionSim } from '../../../sim/opinion/index.js';

interface Row {
  marketId: number;
  marketType: number;
  status: number;
  slug: string;
  yesTokenId: string;
  noTokenId: string;
  childMarkets?: Row[];
}
interface Envelope<T = unknown> {
  errno: number;
  errmsg: string;
  result: T;
}

let sim: OpinionSim;
before(async () => {
  sim = await startOpinionSim({ seed: 5, size: 80 });
});
after(() => sim.close());

async function call<T = unknown>(path: string, key: string | null = sim.apiKey) {
  const res = await fetch(`${sim.url}${path}`, { headers: key === null ? {} : { apikey: key } });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Envelope<T> };
}

async function walk(query: string): Promise<{ rows: Row[]; total: number }> {
  const rows: Row[] = [];
  let total = -1;
  for (let page = 1; page < 100; page++) {
    const { body } = await call<{ list: Row[]; total: number }>(`/market?page=${page}&limit=20&${query}`);
    assert.equal(body.errno, 0);
    total = body.result.total;
    rows.push(...body.result.list);
    if (body.result.list.length < 20) break;
  }
  return { rows, total };
}

describe('authentication', () => {
  test('every call needs a known apikey header, market data included', async () => {
    for (const path of ['/market', '/label', '/token/orderbook?token_id=1']) {
      const missing = await call(path, null);
      assert.equal(missing.status, 401, path);
      assert.deepEqual(missing.body, { errno: 11002, errmsg: 'Invalid API key', result: null });
      assert.equal((await call(path, 'not-a-key')).status, 401);
    }
    assert.equal((await call('/market')).status, 200, 'the operator key reads market data');
  });

  test("a user endpoint reads the key's own wallet; the operator key has none", async () => {
    const refused = await call('/user/balance?chain_id=56');
    assert.equal(refused.status, 400);
    assert.equal(refused.body.errno, 11001);
    const { credentials, address } = await sim.createAccount();
    const auth = await call<{ walletAddress: string; walletUsers: Record<string, string> }>(
      '/user/auth',
      credentials.api_key,
    );
    assert.equal(auth.body.result.walletAddress, address);
    assert.match(auth.body.result.walletUsers['56'] ?? '', /^0x[0-9a-fA-F]{40}$/);
  });
});

describe('markets', () => {
  test('page/limit walks every row exactly once; total counts rows; the manifest covers every tradable market', async () => {
    const { rows, total } = await walk('marketType=2');
    assert.equal(rows.length, total);
    assert.equal(new Set(rows.map((r) => r.marketId)).size, rows.length);
    const tradable = rows.flatMap((r) => (r.marketType === 1 ? (r.childMarkets ?? []) : [r]));
    const manifest = (await (await fetch(`${sim.control}/__sim/manifest`)).json()) as Record<
      string,
      string[]
    >;
    assert.deepEqual(Object.values(manifest).flat().sort(), tradable.map((m) => String(m.marketId)).sort());
    assert.ok(rows.some((r) => r.marketType === 1) && rows.some((r) => r.marketType === 0));
  });

  test('limit is capped at 20; filters: status, marketType (0 binary, 1 categorical, 2 all)', async () => {
    const big = await call<{ list: Row[] }>('/market?limit=100');
    assert.equal(big.body.result.list.length, 20);
    const activated = await walk('status=activated');
    assert.ok(activated.rows.length > 0 && activated.rows.every((r) => r.status === 2));
    const resolved = await walk('status=resolved');
    assert.ok(resolved.rows.every((r) => r.status === 4));
    assert.ok((await walk('marketType=0')).rows.every((r) => r.marketType === 0));
    assert.ok((await walk('marketType=1')).rows.every((r) => r.marketType === 1));
    const bad = await call('/market?page=0');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.errno, 10001);
  });

  test('lookups: binary and child by id, categorical by its endpoint, any by slug; unknown ids are refused', async () => {
    const { rows } = await walk('marketType=2');
    const parent = rows.find((r) => r.marketType === 1) as Row;
    const child = parent.childMarkets?.[0] as Row;
    const byId = await call<{ data: Row }>(`/market/${child.marketId}`);
    assert.equal(byId.body.result.data.marketId, child.marketId);
    assert.equal(byId.body.result.data.marketType, 0, 'a child looked up alone is a binary market');
    const categorical = await call<{ data: Row }>(`/market/categorical/${parent.marketId}`);
    assert.equal(categorical.body.result.data.childMarkets?.length, parent.childMarkets?.length);
    const notCategorical = await call(`/market/categorical/${child.marketId}`);
    assert.equal(notCategorical.status, 400);
    const bySlug = await call<{ data: Row }>(`/market/slug/${child.slug}`);
    assert.equal(bySlug.body.result.data.marketId, child.marketId);
    assert.ok(child.slug.startsWith(parent.slug), "a child's slug extends its parent's, as recorded");
    const unknown = await call('/market/999999999');
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.errmsg, 'market not found');
    assert.equal((await call('/market/abc')).status, 400);
  });
});

describe('token data', () => {
  test('a NO book is the complement of the YES book; books move on advance', async () => {
    const { rows } = await walk('status=activated&marketType=0');
    const m = rows[0] as Row;
    type Book = {
      bids: Array<{ price: string; size: string }>;
      asks: Array<{ price: string; size: string }>;
    };
    const yes = (await call<Book>(`/token/orderbook?token_id=${m.yesTokenId}`)).body.result;
    const no = (await call<Book>(`/token/orderbook?token_id=${m.noTokenId}`)).body.result;
    assert.deepEqual(
      no.bids.map((l) => [Math.round((1 - Number(l.price)) * 1000), l.size]),
      yes.asks.map((l) => [Math.round(Number(l.price) * 1000), l.size]),
    );
    const prices = yes.bids.map((l) => Number(l.price));
    assert.deepEqual(
      prices,
      [...prices].sort((a, b) => b - a),
      'bids best first',
    );
    await fetch(`${sim.control}/__sim/advance`, { method: 'POST', body: '{"steps":1}' });
    const moved = (await call<Book>(`/token/orderbook?token_id=${m.yesTokenId}`)).body.result;
    assert.notDeepEqual(moved, yes);
    assert.equal((await call('/token/orderbook?token_id=42')).status, 400);
    assert.equal((await call('/token/orderbook')).body.errno, 10001);
  });

  test('price history: 1h hourly, 1d daily, any other interval falls back to daily; start_at/end_at bound it', async () => {
    const { rows } = await walk('status=activated&marketType=0');
    const token = (rows[0] as Row).yesTokenId;
    const end = Math.floor(Date.now() / 1000);
    const start = end - 3 * 86_400;
    type History = { history: Array<{ t: number; p: string }> };
    const points = async (interval: string) =>
      (
        await call<History>(
          `/token/price-history?token_id=${token}&interval=${interval}&start_at=${start}&end_at=${end}`,
        )
      ).body.result.history;
    const hourly = await points('1h');
    assert.ok(hourly.length >= 71 && hourly.every((p) => p.t % 3_600 === 0 && p.t >= start && p.t <= end));
    const daily = await points('1d');
    assert.ok(daily.length >= 2 && daily.every((p) => p.t % 86_400 === 0));
    assert.deepEqual(await points('1m'), daily);
    assert.deepEqual(await points('1w'), daily);
    for (const p of hourly) assert.ok(Number(p.p) > 0 && Number(p.p) < 1);
  });
});

describe('portfolio', () => {
  test('own and by-address positions and trades, paged; balance in human units; fund adds base units', async () => {
    const { credentials, address } = await sim.createAccount({ positions: 3 });
    const key = credentials.api_key;
    type Page = { list: Array<Record<string, unknown>>; total: number };
    const own = (await call<Page>('/positions', key)).body.result;
    assert.equal(own.total, 3);
    const byAddress = (await call<Page>(`/positions/user/${address}`)).body.result;
    assert.deepEqual(byAddress, own, 'by wallet address with the operator key, the same positions');
    const paged = (await call<Page>('/positions?limit=2&page=2', key)).body.result;
    assert.equal(paged.list.length, 1);
    const marketId = own.list[0]?.marketId;
    const filtered = (await call<Page>(`/positions?marketId=${marketId}`, key)).body.result;
    assert.deepEqual(
      filtered.list.map((p) => p.marketId),
      [marketId],
    );
    const trades = (await call<Page>(`/trade/user/${address.toLowerCase()}`)).body.result;
    assert.equal(trades.total, 3);
    assert.equal(trades.list[0]?.side, 'Buy');
    const stranger = (await call<Page>(`/positions/user/0x${'1'.repeat(40)}`)).body.result;
    assert.deepEqual(stranger, { list: [], total: 0 });
    assert.equal((await call('/trade/user/not-an-address')).status, 400);

    type Balance = { balances: Array<{ totalBalance: string; tokenDecimals: number }> };
    const before = (await call<Balance>('/user/balance?chain_id=56', key)).body.result;
    assert.deepEqual(
      before.balances.map((b) => [b.totalBalance, b.tokenDecimals]),
      [['10000', 18]],
    );
    const funded = await fetch(`${sim.control}/__sim/fund`, {
      method: 'POST',
      body: JSON.stringify({ address, amount: '2500000000000000000' }),
    });
    assert.equal(funded.status, 200);
    const after = (await call<Balance>('/user/balance?chain_id=56', key)).body.result;
    assert.equal(after.balances[0]?.totalBalance, '10002.5');
  });
});

describe('faults and determinism', () => {
  test('429 with Retry-After and error statuses come in the envelope; clearing restores service', async () => {
    const faults = (body: unknown) =>
      fetch(`${sim.control}/__sim/faults`, { method: body ? 'POST' : 'DELETE', body: JSON.stringify(body) });
    await faults({ rate_limit: { retry_after: 2, count: 1 } });
    const limited = await call('/market');
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), '2');
    assert.equal(limited.body.errno, 429);
    assert.equal((await call('/market')).status, 200, 'only one request was limited');
    await faults({ error_rate: 1, error_status: 503 });
    assert.equal((await call('/market')).status, 503);
    await faults(null);
    assert.equal((await call('/market')).status, 200);
  });

  test('the same seed gives the same catalogue and books', async () => {
    const other = await startOpinionSim({ seed: 5, size: 80 });
    try {
      const a = await (await fetch(`${sim.url}/market?limit=20`, { headers: { apikey: sim.apiKey } })).json();
      const b = await (
        await fetch(`${other.url}/market?limit=20`, { headers: { apikey: other.apiKey } })
      ).json();
      assert.deepEqual(a, b);
      const token = ((a as Envelope<{ list: Row[] }>).result.list.find((r) => r.marketType === 0) as Row)
        .yesTokenId;
      const book = async (s: OpinionSim) => {
        const body = (await (
          await fetch(`${s.url}/token/orderbook?token_id=${token}`, { headers: { apikey: s.apiKey } })
        ).json()) as Envelope<Record<string, unknown>>;
        const { timestamp: _t, ...rest } = body.result;
        return rest;
      };
      const advance = async (s: OpinionSim, steps: number) =>
        (
          (await (
            await fetch(`${s.control}/__sim/advance`, { method: 'POST', body: JSON.stringify({ steps }) })
          ).json()) as {
            step: number;
          }
        ).step;
      const step = await advance(sim, 1);
      assert.equal(await advance(other, step), step);
      assert.deepEqual(await book(sim), await book(other));
    } finally {
      await other.close();
    }
  });
});
