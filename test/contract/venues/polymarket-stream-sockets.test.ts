// Polymarket's market stream over several sockets: the venue stops delivering past about 500 assets on one
// connection (NautilusTrader PR #2915; the simulator enforces a cap, here a small one), so the adapter spreads
// its assets over sockets of at most `wsAssetsPerConnection`. Every asset gets its snapshot, each is carried by
// exactly one socket, a dropped socket resyncs only what it carried (its feed state names those books), and a socket
// left with nothing is closed.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type PolymarketSim, startPolymarketSim } from '../../../sim/polymarket/index.js';
import type { Market } from '../../../src/domain/market.js';
import type { MarketStreamEvent } from '../../../src/domain/stream.js';
import { createPolymarketAdapter } from '../../../src/venues/polymarket/index.js';
import type { MarketStream, VenueAdapter } from '../../../src/venues/port.js';
import { waitFor } from '../../support/server.js';
import { silentLogger } from './harness.js';

const SIM_CAP = 6;
const PER_SOCKET = 5;
let sim: PolymarketSim;
let adapter: VenueAdapter;
let markets: Market[];

before(async () => {
  sim = await startPolymarketSim({ seed: 11, size: 40, wsMaxAssetsPerConnection: SIM_CAP });
  adapter = createPolymarketAdapter({
    gammaUrl: sim.urls.gamma,
    clobUrl: sim.urls.clob,
    dataUrl: sim.urls.data,
    wsMarketUrl: sim.urls.wsMarket,
    wsUserUrl: sim.urls.wsUser,
    timeoutMs: 5_000,
    streamHeartbeatMs: 200,
    wsAssetsPerConnection: PER_SOCKET,
    unpaced: true,
  });
  const page = await adapter.catalog.fetchMarketsPage?.(
    { signal: AbortSignal.timeout(10_000), requestId: 't', logger: silentLogger, tenant: null },
    null,
  );
  markets = (page?.items ?? []).filter((m) => m.status === 'active' && m.outcomes.every((o) => o.token_id));
  assert.ok(markets.length >= 8, `only ${markets.length} active markets`);
});
after(async () => {
  await adapter?.close?.();
  await sim?.close();
});

async function subscriptions(): Promise<Record<string, number>> {
  const res = await fetch(`${sim.control}/__sim/ws/subscriptions`);
  return ((await res.json()) as { subscriptions: Record<string, number> }).subscriptions;
}

function read(stream: MarketStream): MarketStreamEvent[] {
  const seen: MarketStreamEvent[] = [];
  void (async () => {
    for await (const e of stream) seen.push(e);
  })();
  return seen;
}

test('more assets than one connection is served: spread over sockets, every book delivered, each asset on one socket', async () => {
  const abort = new AbortController();
  const stream = adapter.marketData.openMarketStream?.({ signal: abort.signal, logger: silentLogger });
  assert.ok(stream);
  const seen = read(stream);
  const chosen = markets.slice(0, 8);
  // Two calls, as consumers subscribe over time: the first fills sockets, the second tops up the last one first.
  stream.subscribe(
    chosen.slice(0, 3).flatMap((market) => market.outcomes.map((o) => ({ market, outcome: o.name }))),
  );
  stream.subscribe(
    chosen.slice(3).flatMap((market) => market.outcomes.map((o) => ({ market, outcome: o.name }))),
  );
  const tokens = chosen.flatMap((m) => m.outcomes.map((o) => o.token_id as string));
  assert.equal(tokens.length, 16);
  try {
    const snapshots = () =>
      new Set(seen.flatMap((e) => (e.type === 'book_snapshot' ? [e.book.token_id] : [])));
    await waitFor(
      async () => snapshots().size === tokens.length || undefined,
      15_000,
      'a snapshot per asset',
    );
    const subs = await subscriptions();
    for (const token of tokens) assert.equal(subs[token], 1, `${token} is carried by ${subs[token]} sockets`);

    // A dropped connection: each socket reconnects on its own, and only what it carried is resynced.
    const at = seen.length;
    await fetch(`${sim.control}/__sim/ws/drop`, { method: 'POST' });
    await waitFor(
      async () => {
        const fresh = new Set(
          seen.slice(at).flatMap((e) => (e.type === 'book_snapshot' ? [e.book.token_id] : [])),
        );
        return fresh.size === tokens.length || undefined;
      },
      15_000,
      'fresh snapshots after the drop',
    );
    const states = seen.slice(at).filter((e) => e.type === 'feed_state' && e.state === 'disconnected');
    assert.ok(states.length >= Math.ceil(tokens.length / PER_SOCKET));
    for (const s of states) {
      assert.ok(s.type === 'feed_state' && s.instruments, 'a socket names the books it carried');
      assert.ok(s.instruments.length <= PER_SOCKET);
    }

    // Unsubscribing everything on one socket closes it; the others keep their assets.
    const gone = chosen
      .slice(0, 3)
      .flatMap((market) => market.outcomes.map((o) => ({ market, outcome: o.name })));
    stream.unsubscribe(gone);
    const goneTokens = new Set(
      gone.map((g) => g.market.outcomes.find((o) => o.name === g.outcome)?.token_id),
    );
    await waitFor(
      async () => {
        const now = await subscriptions();
        return [...goneTokens].every((t) => !now[String(t)]) || undefined;
      },
      15_000,
      'the unsubscribed assets to leave',
    );
    const left = await subscriptions();
    for (const token of tokens.filter((t) => !goneTokens.has(t))) assert.equal(left[token], 1);
  } finally {
    abort.abort();
    await stream.close();
  }
});
