// The rounds of the paired-execution SIGKILL test (POST /arbitrage/execute), shared by arbitrage-crash.test.ts
// (rounds 1-10) and arbitrage-crash-2.test.ts (rounds 11-20), each file with its own simulators and data directory.
// Each round POSTs a pair and kills the server with SIGKILL at one of these moments, in turn:
//   - `first`: the first leg held at its exchange (polymarket: processed, its answer held; kalshi: held before
//     processing), Yes on a polymarket market and No on its kalshi twin;
//   - `second`: the first leg answered, the second held, on such a cross-venue pair;
//   - `killed-poly`: the two outcomes of one polymarket market, another account's orders held ahead of the first leg
//     and taking every ask within reach, so the first leg (an immediate order, FAK) meets an empty book, matches
//     nothing and is killed while its answer is lost with the server: Polymarket keeps no record of such an order;
//   - `killed-cross`: the same thinning on both books of a cross-venue pair (whichever leg goes first).
// After the release and a restart, the same POST (same Idempotency-Key) is repeated until the execution is final
// (bounded): no leg sent twice and none lost — each exchange holds exactly the account's legs sent to it (kalshi keeps
// every order; polymarket keeps every order that filled anything, and one that matched nothing is the killed first
// leg reported `unfilled`), the second leg is sized to what the first filled, and GET /arbitrage/executions/:id
// reads the same legs.
import assert from 'node:assert/strict';
import type { ExchangeId } from '../../../src/domain/exchanges.js';
import type { VenueSession } from '../../../src/venues/port.js';
import { venueContext } from '../../support/catalogue.js';
import { CrashHarness, type CrashVenue } from '../../support/crash-harness.js';
import { send, waitFor } from '../../support/server.js';

const ADMIN_KEY = 'arbitrage_crash_admin_key_012345';
/**
 * Venue deadline of the servers: an immediate order Polymarket has no record of is settled as killed three deadlines
 * after it was sent (orders-service.ts), so the killed rounds wait about 15 s for it.
 */
const VENUE_TIMEOUT_MS = 5_000;
/** The latency fault that holds a request before it is processed (processed in arrival order on release). */
const ORDER_ROUTE: Record<'polymarket' | 'kalshi', string> = {
  polymarket: 'POST /order',
  kalshi: 'POST /trade-api/v2/portfolio/events/orders',
};

export function arbitrageCrashHarness(): Promise<CrashHarness> {
  return CrashHarness.create({
    exchanges: ['polymarket', 'kalshi'],
    world: { seed: 11, size: 60 },
    adminKey: ADMIN_KEY,
    syncFirst: true,
    venueTimeoutMs: VENUE_TIMEOUT_MS,
  });
}

type Kind = 'first' | 'second' | 'killed-poly' | 'killed-cross';
const KINDS: readonly Kind[] = ['first', 'second', 'killed-poly', 'first', 'killed-cross'];

interface Leg {
  exchange: ExchangeId;
  svc_id: string;
  role: string;
  state: string;
  planned: { outcome: string; size: number; limit_price: number };
  order: { id: string; filled: number; status: string } | null;
}
interface Execution {
  id: string;
  status: string;
  size: number;
  legs: Leg[];
}
type Level = [number, number];
interface PairLegs {
  legs: Array<{ svc_id: string; outcome: string }>;
}

/** Polymarket markets with a HIGH kalshi twin the sync linked (undefined until there is one). */
async function linkedNow(url: string): Promise<Array<{ poly: string; kalshi: string }> | undefined> {
  const markets = await send(
    url,
    ADMIN_KEY,
    '/api/v1/markets?exchanges=polymarket&include_matches=true&limit=100',
  );
  assert.equal(markets.status, 200, markets.text);
  const found: Array<{ poly: string; kalshi: string }> = [];
  for (const m of (
    markets.body as {
      markets: Array<{
        svc_id: string;
        status: string;
        matched_markets?: Array<{
          svc_id: string;
          exchange: string;
          confidence_tier: string;
          status: string;
        }>;
      }>;
    }
  ).markets) {
    const twin = (m.matched_markets ?? []).find(
      (t) => t.exchange === 'kalshi' && t.confidence_tier === 'HIGH' && t.status === 'active',
    );
    if (m.status === 'active' && twin) found.push({ poly: m.svc_id, kalshi: twin.svc_id });
  }
  return found.length > 0 ? found : undefined;
}

const linkedBy = new WeakMap<CrashHarness, Array<{ poly: string; kalshi: string }>>();

async function bookOf(url: string, svcId: string, outcome: string): Promise<{ asks: Level[] }> {
  const res = await send(
    url,
    ADMIN_KEY,
    `/api/v1/orderbook?svc_id=${encodeURIComponent(svcId)}&outcome=${outcome}&limit=100`,
  );
  assert.equal(res.status, 200, res.text);
  return res.body as { asks: Level[] };
}

/**
 * Another account's immediate buy of `outcome` on `svcId`, held at the exchange ahead of the server's leg: it takes
 * every ask up to 5 cents past the worst price `size` reaches on the book now (so the leg, whose limit is that worst
 * price, meets nothing within it). Resolves once the exchange holds it.
 */
async function holdThinner(
  harness: CrashHarness,
  v: CrashVenue,
  thinner: VenueSession,
  url: string,
  svcId: string,
  outcome: string,
  size: number,
): Promise<{ taken: Promise<unknown> }> {
  const { asks } = await bookOf(url, svcId, outcome);
  let left = size;
  let worst = 0;
  for (const [p, s] of asks) {
    if (left <= 0) break;
    worst = p;
    left -= s;
  }
  const price = Math.min(0.99, Math.round((worst + 0.05) * 100) / 100);
  const depth = asks.filter(([p]) => p <= price + 1e-9).reduce((a, [, s]) => a + s, 0);
  const before = await harness.held(v);
  const create = v.adapter.trading.createOrder;
  assert.ok(create);
  const taken = create(venueContext(), thinner, {
    market_id: svcId.slice(svcId.indexOf(':') + 1),
    outcome,
    side: 'buy',
    price,
    // More than the depth (the order's amounts round down on Polymarket's market buy; it kills what is left), and
    // at least Polymarket's $1 minimum of a marketable buy.
    size: Math.max(Math.ceil(depth) + 1, Math.ceil(1 / price) + 1),
    order_type: 'ioc',
    client_order_id: `thin-${svcId}-${outcome}-${before}`.slice(0, 60),
  }).catch((error: unknown) => error);
  await waitFor(async () => (await harness.held(v)) > before, 20_000, `${v.exchange} holding the thinner`);
  // Wrapped: an async function returning the promise itself would wait for it (answered only on release).
  return { taken };
}

/** Repeats the POST until the execution is final (no leg pending; a retryable 503 is tried again), within a bound. */
async function settled(url: string, init: Parameters<typeof send>[3], round: number): Promise<Execution> {
  return waitFor(
    async () => {
      const res = await send(url, ADMIN_KEY, '/api/v1/arbitrage/execute', init);
      // An exchange that could not be asked in time (a loaded machine): asked again on the next try.
      if (res.status === 503 && (res.body as { retryable?: boolean }).retryable === true) return undefined;
      assert.equal(res.status, 200, `round ${round}: ${res.text}`);
      const e = res.body as Execution;
      return e.status === 'pending' ? undefined : e;
    },
    90_000,
    `round ${round}: the repeated POST settling the execution`,
  );
}

/** Rounds `from`..`to - 1` on a server started now (stopped cleanly after the last round). */
export async function arbitrageCrashRounds(harness: CrashHarness, from: number, to: number): Promise<void> {
  let server = await harness.start();
  let linked = linkedBy.get(harness);
  if (!linked) {
    linked = await waitFor(() => linkedNow(server.url), 60_000, 'the sync linking polymarket to kalshi');
    linkedBy.set(harness, linked);
  }
  const credentials = harness.credentials();
  const poly = harness.venue('polymarket');
  const kalshi = harness.venue('kalshi');
  const thinners = { polymarket: await poly.newSession(), kalshi: await kalshi.newSession() };
  for (let i = from; i < to; i++) {
    const kind = KINDS[i % KINDS.length] as Kind;
    const twins = linked[i % linked.length] as { poly: string; kalshi: string };
    const size = 10 + (i % 4);
    const pair: PairLegs =
      kind === 'killed-poly'
        ? {
            legs: [
              { svc_id: twins.poly, outcome: 'Yes' },
              { svc_id: twins.poly, outcome: 'No' },
            ],
          }
        : {
            legs: [
              { svc_id: twins.poly, outcome: 'Yes' },
              { svc_id: twins.kalshi, outcome: 'No' },
            ],
          };
    const venues: CrashVenue[] = kind === 'killed-poly' ? [poly] : [poly, kalshi];
    const before = new Map(
      await Promise.all(venues.map(async (v) => [v.exchange, await harness.ordersAt(v.exchange)] as const)),
    );
    const body = {
      ...pair,
      size: String(size),
      max_cost: '2',
      on_leg_risk: i % 2 === 0 ? 'unwind' : 'hold',
      credentials,
    };
    const key = `arbitrage-crash-${i}`;
    const init = { method: 'POST', body, headers: { 'idempotency-key': key } };
    const thinning: Array<Promise<unknown>> = [];
    if (kind === 'killed-poly' || kind === 'killed-cross') {
      for (const v of venues) {
        await harness.control(v, 'POST', 'faults', {
          latency_ms: 120_000,
          only: [ORDER_ROUTE[v.exchange as 'polymarket' | 'kalshi']],
        });
      }
      for (const l of pair.legs) {
        const v = l.svc_id.startsWith('kalshi:') ? kalshi : poly;
        thinning.push(
          (
            await holdThinner(
              harness,
              v,
              thinners[v.exchange as 'polymarket' | 'kalshi'],
              server.url,
              l.svc_id,
              l.outcome,
              size,
            )
          ).taken,
        );
      }
    } else {
      for (const v of venues) await harness.hold(v);
    }
    const heldBefore = new Map(
      await Promise.all(venues.map(async (v) => [v, await harness.held(v)] as const)),
    );
    const lost = fetch(`${server.url}/api/v1/arbitrage/execute`, {
      method: 'POST',
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(body),
    }).then(
      (res) => `answered ${res.status}: ${res.statusText}`,
      () => 'connection lost',
    );
    /** The venue holding one more request than before (the server's leg), once one does. */
    const legHeld = (what: string, among: CrashVenue[]) =>
      waitFor(
        async () => {
          for (const v of among) if ((await harness.held(v)) > (heldBefore.get(v) ?? 0)) return v;
          return undefined;
        },
        30_000,
        `round ${i}: ${what} held`,
      );
    const first = await legHeld('the first leg', venues);
    if (kind === 'second') {
      const other = venues.find((v) => v !== first) as CrashVenue;
      await harness.release(first, `round ${i}'s first leg`);
      const second = await Promise.race([legHeld('the second leg', [other]), lost]);
      assert.notEqual(
        typeof second,
        'string',
        `round ${i}: answered before its second leg was sent: ${second}`,
      );
    }
    await harness.kill();
    assert.equal(await lost, 'connection lost', `round ${i}: the server answered before it was killed`);
    for (const v of venues) await harness.release(v, `round ${i}`);
    await Promise.all(thinning);

    server = await harness.start();
    const got = await settled(server.url, init, i);
    const [l1, l2, l3] = got.legs;
    assert.ok(l1 && l1.role === 'first', `round ${i}: the first leg: ${JSON.stringify(got)}`);
    assert.ok(got.legs.length <= 3);
    for (const l of got.legs) assert.notEqual(l.state, 'pending', `round ${i}: ${JSON.stringify(got)}`);
    const filled1 = l1.order?.filled ?? 0;
    if (kind.startsWith('killed') && l1.exchange === first.exchange) {
      // The leg met only what the thinner left: nothing within its limit.
      assert.equal(l1.state, 'unfilled', `round ${i}: ${JSON.stringify(l1)}`);
      assert.equal(got.status, 'unfilled');
    }
    if (filled1 === 0)
      assert.equal(got.legs.length, 1, `round ${i}: nothing to hedge: ${JSON.stringify(got)}`);
    else {
      assert.ok(l2 && l2.role === 'second', `round ${i}: the second leg: ${JSON.stringify(got)}`);
      assert.equal(l2.planned.size, Math.floor(filled1 * 100 + 1e-6) / 100, 'sized to what the first filled');
      if (l3) assert.equal(l3.role, 'unwind');
    }
    for (const v of venues) {
      const now = await harness.ordersAt(v.exchange);
      const added = [...now].filter((id) => !before.get(v.exchange)?.has(id)).sort();
      const legs = got.legs.filter((l) => l.exchange === v.exchange && l.order);
      const ids = legs.map((l) => l.order?.id as string);
      assert.equal(new Set(ids).size, ids.length, `round ${i}: one order per leg`);
      if (v.exchange === 'kalshi') {
        assert.deepEqual(added, ids.sort(), `round ${i} (kalshi): the exchange holds each leg once`);
      } else {
        // Polymarket's history is its open orders and the orders behind the account's fills: a leg that matched
        // nothing is in neither. Every other order the exchange holds is one of the legs, once.
        const traded = legs.filter((l) => (l.order?.filled ?? 0) > 0).map((l) => l.order?.id as string);
        assert.deepEqual(added, traded.sort(), `round ${i} (polymarket): the exchange holds each leg once`);
      }
    }
    const read = await send(server.url, ADMIN_KEY, `/api/v1/arbitrage/executions/${got.id}`);
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(
      (read.body as Execution).legs.map((l) => [l.role, l.order?.id, l.state]),
      got.legs.map((l) => [l.role, l.order?.id, l.state]),
    );
  }
  await harness.stop();
}
