// Paired execution across a crash: the real `omnibook serve` runs as a child process against the polymarket and
// kalshi simulators in this process (test/support/crash-harness.ts), with links from the first server's sync. Each
// round POSTs /arbitrage/execute for Yes on a polymarket market and the complementary outcome on its kalshi twin
// while both exchanges hold orders (polymarket: processed, answer held; kalshi: held before processing), and kills
// the server with SIGKILL while a leg is held: the first leg in even rounds; in odd rounds the first leg's exchange
// is released, so the server sends the second leg, and the kill comes while that one is held. After the release and
// a restart, the same POST (same Idempotency-Key) answers the execution with both legs settled; the orders each
// exchange holds for the account grew by exactly the execution's legs on it (no leg sent twice, none lost), and
// GET /arbitrage/executions/:id reads the same legs.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ExchangeId } from '../../../src/domain/exchanges.js';
import { CrashHarness } from '../../support/crash-harness.js';
import { send, waitFor } from '../../support/server.js';

const CRASHES = 6;
const SIZE = 5;
const ADMIN_KEY = 'arbitrage_crash_admin_key_012345';

let harness: CrashHarness;
before(async () => {
  harness = await CrashHarness.create({
    exchanges: ['polymarket', 'kalshi'],
    world: { seed: 11, size: 60 },
    adminKey: ADMIN_KEY,
    syncFirst: true,
  });
});
after(async () => {
  await harness?.close();
});

interface Leg {
  exchange: ExchangeId;
  role: string;
  state: string;
  order: { id: string; filled: number } | null;
}
interface Execution {
  id: string;
  status: string;
  legs: Leg[];
}

type Pair = Array<{ svc_id: string; outcome: string }>;

/** Polymarket markets with an active HIGH kalshi twin, as the first server's sync linked them. */
async function twins(url: string): Promise<Array<[string, string]> | undefined> {
  const res = await send(
    url,
    ADMIN_KEY,
    '/api/v1/markets?exchanges=polymarket&include_matches=true&limit=100',
  );
  assert.equal(res.status, 200, res.text);
  const found: Array<[string, string]> = [];
  for (const m of (
    res.body as {
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
    const k = (m.matched_markets ?? []).find(
      (t) => t.exchange === 'kalshi' && t.confidence_tier === 'HIGH' && t.status === 'active',
    );
    if (m.status === 'active' && k) found.push([m.svc_id, k.svc_id]);
  }
  return found.length > 0 ? found : undefined;
}

/** Whether the outcome's book asks at least `size` contracts now. */
async function deep(url: string, svcId: string, outcome: string, size: number): Promise<boolean> {
  const res = await send(
    url,
    ADMIN_KEY,
    `/api/v1/orderbook?svc_id=${encodeURIComponent(svcId)}&outcome=${outcome}`,
  );
  if (res.status !== 200) return false;
  const asks = (res.body as { asks: Array<[number, number]> }).asks;
  return asks.reduce((t, [, s]) => t + s, 0) >= size;
}

/** The two legs of a pair on `poly` and `kalshi` (the complementary outcome through the link), or null. */
async function pairOf(url: string, poly: string, kalshi: string): Promise<Pair | null> {
  for (const other of ['No', 'Yes']) {
    const legs = [
      { svc_id: poly, outcome: 'Yes' },
      { svc_id: kalshi, outcome: other },
    ];
    if (!(await deep(url, poly, 'Yes', SIZE)) || !(await deep(url, kalshi, other, SIZE))) continue;
    // A cap no pair meets is refused (409, nothing sent) after the legs are checked for being a pair (400).
    const probe = await send(url, ADMIN_KEY, '/api/v1/arbitrage/execute', {
      method: 'POST',
      body: { legs, size: String(SIZE), max_cost: '0.000001', credentials: harness.credentials() },
      headers: { 'idempotency-key': `probe-${poly}-${other}` },
    });
    if (probe.status === 409) return legs;
  }
  return null;
}

test(`a paired execution killed while a leg is held is completed after restart, ${CRASHES} times`, async () => {
  let server = await harness.start();
  const linked = await waitFor(
    () => twins(server.url),
    60_000,
    'the sync linking polymarket markets to kalshi',
  );
  const credentials = harness.credentials();
  let next = 0;
  for (let i = 0; i < CRASHES; i++) {
    let legs: Pair | null = null;
    while (!legs && next < linked.length) {
      const [poly, kalshi] = linked[next++] as [string, string];
      legs = await pairOf(server.url, poly, kalshi);
    }
    assert.ok(legs, `round ${i}: a linked pair whose books hold ${SIZE} contracts`);
    const exchanges: ExchangeId[] = ['polymarket', 'kalshi'];
    const before = new Map(
      await Promise.all(exchanges.map(async (e) => [e, await harness.ordersAt(e)] as const)),
    );
    const body = { legs, size: String(SIZE), max_cost: '2', on_leg_risk: 'unwind', credentials };
    const key = `arbitrage-crash-${i}`;
    for (const e of exchanges) await harness.hold(harness.venue(e));
    const lost: Promise<string> = fetch(`${server.url}/api/v1/arbitrage/execute`, {
      method: 'POST',
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(body),
    }).then(
      (res) => `answered ${res.status}`,
      () => 'connection lost',
    );
    const heldAt = async () => {
      for (const e of exchanges) if ((await harness.held(harness.venue(e))) > 0) return e;
      return undefined;
    };
    const first = await waitFor(heldAt, 20_000, `round ${i}'s first leg held`);
    if (i % 2 === 1) {
      // The first leg's answer comes back; the second leg goes to the other exchange, which holds it.
      await harness.release(harness.venue(first), `round ${i}'s first leg`);
      const second = exchanges.find((e) => e !== first) as ExchangeId;
      await harness.waitHeld(harness.venue(second), `round ${i}'s second leg`);
    }
    await harness.kill();
    assert.equal(await lost, 'connection lost', `round ${i}: the server answered before it was killed`);
    for (const e of exchanges) await harness.release(harness.venue(e), `round ${i}`);

    server = await harness.start();
    const retried = await send(server.url, ADMIN_KEY, '/api/v1/arbitrage/execute', {
      method: 'POST',
      body,
      headers: { 'idempotency-key': key },
    });
    assert.equal(retried.status, 200, `round ${i}: ${retried.text}`);
    const execution = retried.body as Execution;
    assert.notEqual(execution.status, 'pending', `round ${i}: ${retried.text}`);
    assert.deepEqual(
      execution.legs.slice(0, 2).map((l) => l.role),
      ['first', 'second'],
      `round ${i}: both legs: ${retried.text}`,
    );
    assert.ok(
      execution.legs.every((l) => l.state !== 'pending' && l.state !== 'unsent'),
      `round ${i}: every leg settled: ${retried.text}`,
    );
    assert.equal(execution.legs[0]?.exchange, first, `round ${i}: the held leg went first`);
    for (const e of exchanges) {
      const now = await harness.ordersAt(e);
      const added = [...now].filter((id) => !before.get(e)?.has(id));
      const mine = execution.legs.filter((l) => l.exchange === e && l.order).map((l) => l.order?.id);
      assert.deepEqual(added.sort(), mine.sort(), `round ${i} (${e}): the exchange holds each leg once`);
    }
    const read = await send(server.url, ADMIN_KEY, `/api/v1/arbitrage/executions/${execution.id}`);
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(
      (read.body as Execution).legs.map((l) => l.order?.id),
      execution.legs.map((l) => l.order?.id),
    );
  }
  await harness.stop();
});
