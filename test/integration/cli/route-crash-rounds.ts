// The rounds of the routed-order SIGKILL test, shared by route-crash.test.ts (rounds 1-10) and route-crash-2.test.ts
// (rounds 11-20): two files, each with its own simulators and data directory, so the runner runs them side by side.
// Each round quotes a route, then POSTs it while every exchange it goes to holds its leg (polymarket: processed,
// answer held; kalshi: held before processing), and kills the server with SIGKILL once every leg is held. After the
// release and a restart, the same POST (same Idempotency-Key) answers the route with every leg settled: the orders
// each exchange holds for the account grew by exactly the route's legs on it (no leg sent twice, none lost), and
// GET /route/orders/:id reads the same legs. Rounds take both venues, polymarket alone and kalshi alone in turn.
import assert from 'node:assert/strict';
import type { ExchangeId } from '../../../src/domain/exchanges.js';
import { CrashHarness } from '../../support/crash-harness.js';
import { send, waitFor } from '../../support/server.js';

const ADMIN_KEY = 'route_crash_admin_key_0123456789';

/** The harness a file's rounds run on: polymarket and kalshi, the first server syncing the catalogue. */
export function routeCrashHarness(): Promise<CrashHarness> {
  return CrashHarness.create({
    exchanges: ['polymarket', 'kalshi'],
    world: { seed: 7, size: 60 },
    adminKey: ADMIN_KEY,
    syncFirst: true,
  });
}

interface Leg {
  exchange: ExchangeId;
  state: string;
  order: { id: string; filled: number } | null;
}

/** The linked markets, found by the first server (which syncs the catalogue), by harness. */
const linkedBy = new WeakMap<CrashHarness, Array<{ svc_id: string }>>();

/** Polymarket markets with a HIGH kalshi twin the sync linked (undefined until there is one). */
async function linkedNow(url: string): Promise<Array<{ svc_id: string }> | undefined> {
  const markets = await send(
    url,
    ADMIN_KEY,
    '/api/v1/markets?exchanges=polymarket&include_matches=true&limit=100',
  );
  assert.equal(markets.status, 200, markets.text);
  const found = (
    markets.body as {
      markets: Array<{
        svc_id: string;
        status: string;
        matched_markets?: Array<{ exchange: string; confidence_tier: string }>;
      }>;
    }
  ).markets.filter(
    (m) =>
      m.status === 'active' &&
      (m.matched_markets ?? []).some((t) => t.exchange === 'kalshi' && t.confidence_tier === 'HIGH'),
  );
  return found.length > 0 ? found : undefined;
}

/** Rounds `from`..`to - 1` on a server started now (stopped cleanly after the last round). */
export async function crashRounds(harness: CrashHarness, from: number, to: number): Promise<void> {
  let server = await harness.start();
  let linked = linkedBy.get(harness);
  if (!linked) {
    linked = await waitFor(
      () => linkedNow(server.url),
      60_000,
      'the sync linking polymarket markets to kalshi',
    );
    linkedBy.set(harness, linked);
  }
  const credentials = harness.credentials();
  for (let i = from; i < to; i++) {
    // Alternately both venues, polymarket alone and kalshi alone.
    const exchanges = [['polymarket', 'kalshi'], ['polymarket'], ['kalshi']][i % 3] as ExchangeId[];
    const amount = 10 + i;
    // The first linked market (from this round's turn on) whose books take the order on those venues now.
    let svcId = '';
    let legVenues: ExchangeId[] = [];
    for (let k = 0; k < linked.length && legVenues.length === 0; k++) {
      svcId = (linked[(i + k) % linked.length] as { svc_id: string }).svc_id;
      const terms = `svc_id=${encodeURIComponent(svcId)}&side=buy&amount=${amount}&exchanges=${exchanges.join(',')}`;
      const quote = await send(server.url, ADMIN_KEY, `/api/v1/route/quote?${terms}`);
      assert.equal(quote.status, 200, quote.text);
      legVenues = (quote.body as { legs: Array<{ exchange: ExchangeId }> }).legs.map((l) => l.exchange);
    }
    assert.ok(legVenues.length > 0, `round ${i}: some linked market's books take the order`);
    const before = new Map(
      await Promise.all(legVenues.map(async (e) => [e, await harness.ordersAt(e)] as const)),
    );
    const body = {
      svc_id: svcId,
      side: 'buy',
      amount: String(amount),
      exchanges,
      max_slippage: '1',
      on_leg_failure: 'cancel_rest',
      credentials,
    };
    const init = { method: 'POST', body, headers: { 'idempotency-key': `route-crash-${i}` } };
    for (const e of legVenues) await harness.hold(harness.venue(e));
    const lost: Promise<string> = fetch(`${server.url}/api/v1/route/orders`, {
      method: 'POST',
      headers: {
        'x-api-key': ADMIN_KEY,
        'content-type': 'application/json',
        'idempotency-key': `route-crash-${i}`,
      },
      body: JSON.stringify(body),
    }).then(
      (res) => `answered ${res.status}`,
      () => 'connection lost',
    );
    for (const e of legVenues) await harness.waitHeld(harness.venue(e), `round ${i}'s leg`);
    await harness.kill();
    assert.equal(await lost, 'connection lost', `round ${i}: the server answered before it was killed`);
    for (const e of legVenues) await harness.release(harness.venue(e), `round ${i}`);

    server = await harness.start();
    const retried = await send(server.url, ADMIN_KEY, '/api/v1/route/orders', init);
    assert.equal(retried.status, 200, `round ${i}: ${retried.text}`);
    const route = retried.body as { id: string; status: string; legs: Leg[] };
    assert.deepEqual(
      route.legs
        .filter((l) => l.state !== 'pending')
        .map((l) => l.exchange)
        .sort(),
      [...legVenues].sort(),
      `round ${i}: every planned leg settled: ${retried.text}`,
    );
    for (const e of legVenues) {
      const now = await harness.ordersAt(e);
      const added = [...now].filter((id) => !before.get(e)?.has(id));
      const legs = route.legs.filter((l) => l.exchange === e && l.order).map((l) => l.order?.id);
      assert.deepEqual(added.sort(), legs.sort(), `round ${i} (${e}): the exchange holds each leg once`);
    }
    const read = await send(server.url, ADMIN_KEY, `/api/v1/route/orders/${route.id}`);
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(
      (read.body as { legs: Leg[] }).legs.map((l) => l.order?.id),
      route.legs.map((l) => l.order?.id),
    );
  }
  await harness.stop();
}
