// What this node polls upstream for WebSocket clients is a bounded pool shared fairly between customers (issue 31,
// item 5; src/realtime/fair-pool.ts): watched wallets (websocket.maxWalletWatchers, 6 here) and books of a polled
// venue (websocket.maxPolledBooks, 2 here; Opinion polls its books). A customer alone gets half a pool, each next
// one a share of what is left, a full pool refuses new addresses (3003) but not one that is already polled, and
// books of a venue with a native stream are not held to it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ExchangeId } from '../../../src/domain/exchanges.js';
import type { Market } from '../../../src/domain/market.js';
import { type CatalogueServer, startCatalogueServer } from '../../support/catalogue.js';
import { waitFor } from '../../support/server.js';
import { type WsMessage, WsTestClient } from '../../support/ws-client.js';

let cat: CatalogueServer;
let wsUrl: string;
const clients: WsTestClient[] = [];

before(async () => {
  cat = await startCatalogueServer(20, {
    config: { websocket: { heartbeatMs: 200, walletPollMs: 200, maxWalletWatchers: 6, maxPolledBooks: 2 } },
  });
  wsUrl = `${cat.server.url.replace(/^http/, 'ws')}/ws`;
});
after(async () => {
  for (const c of clients) c.close();
  await cat?.stop();
});

const isError = (code: number) => (m: WsMessage) => m.type === 'error' && m.code === code;

/** A pro customer's key: its tier allows 500 subscriptions, so only the pools can refuse it here. */
async function proKey(): Promise<string> {
  return (await cat.server.runtime.keys.create({ name: 'ws pools', tier: 'pro' })).key;
}

async function customer(key?: string): Promise<WsTestClient> {
  key ??= await proKey();
  const client = await WsTestClient.open(wsUrl);
  clients.push(client);
  client.send({ type: 'auth', api_key: key });
  await client.next((m) => m.type === 'auth_ok');
  return client;
}

function wallets(n: number, from: number): Array<{ exchange: string; address: string }> {
  return Array.from({ length: n }, (_, i) => ({
    exchange: 'polymarket',
    address: `0x${(from + i).toString(16).padStart(40, '0')}`,
  }));
}

/** Subscribes to the addresses; resolves with the ones watched (snapshot received) once the refused are known. */
async function watch(client: WsTestClient, addresses: Array<{ exchange: string; address: string }>) {
  const from = client.mark;
  client.send({ type: 'subscribe', addresses });
  const outcome = await Promise.all(
    addresses.map((a) =>
      client.next(
        (m) => m.address === a.address && (m.type === 'wallet_activity' || m.type === 'error'),
        from,
      ),
    ),
  );
  return outcome.map((m) => (m.type === 'wallet_activity' ? 'watched' : m.code));
}

function activeMarkets(exchange: ExchangeId): Market[] {
  return [...cat.markets.values()].filter(
    (m) => m.exchange === exchange && m.status === 'active' && m.outcomes.every((o) => o.token_id),
  );
}

test('watched wallets: half the pool for a customer alone, a fair share for the next, none new when full', async () => {
  const keyA = await proKey();
  const a = await customer(keyA);
  const onA = wallets(4, 0x100);
  assert.deepEqual(await watch(a, onA), ['watched', 'watched', 'watched', 3003]);
  const b = await customer();
  assert.deepEqual(await watch(b, wallets(3, 0x200)), ['watched', 'watched', 3003]);
  const c = await customer();
  assert.deepEqual(await watch(c, wallets(2, 0x300)), ['watched', 3003]);
  // 3 + 2 + 1: the pool of 6 is full. A fourth customer gets no new address, but one already polled costs nothing.
  const keyD = await proKey();
  const d = await customer(keyD);
  assert.deepEqual(await watch(d, wallets(1, 0x400)), [3003]);
  assert.deepEqual(await watch(d, [onA[0] as { exchange: string; address: string }]), ['watched']);
  const full = d.messages.find(isError(3003));
  assert.match(String(full?.message), /polls as many watched wallets as it may \(6\)/);

  // A customer leaving gives its room back: a newcomer refused while the pool was full gets an address. (d does not:
  // holding one of the 4 polled among 4 customers, it holds its share, floor(6 / 5).)
  const keyF = await proKey();
  assert.deepEqual(await watch(await customer(keyF), wallets(1, 0x500)), [3003]);
  a.close();
  await waitFor(async () => {
    const res = await cat.server.request('/api/v1/ws/usage', { key: keyA });
    return (res.body as { customer: { active_subscriptions: number } }).customer.active_subscriptions === 0;
  });
  assert.deepEqual(await watch(await customer(keyF), wallets(1, 0x500)), ['watched']);
  assert.deepEqual(await watch(await customer(keyD), wallets(1, 0x600)), [3003]);
});

test('books of a polled venue are held to their pool; streamed venues are not', async () => {
  const e = await customer();
  const [p1, p2] = activeMarkets('opinion');
  assert.ok(p1 && p2, 'two active Opinion markets');
  const from = e.mark;
  e.send({ type: 'subscribe', markets: [{ svc_id: p1.svc_id }, { svc_id: p2.svc_id }] });
  const refused = await e.next(isError(3003), from);
  assert.equal(refused.svc_id, p2.svc_id);
  assert.match(String(refused.message), /fair share of this server's polled books is 1 of 2/);
  await e.next((m) => m.type === 'orderbook' && m.svc_id === p1.svc_id, from);

  const streamed = activeMarkets('polymarket').slice(0, 3);
  const mark = e.mark;
  e.send({ type: 'subscribe', markets: streamed.map((m) => ({ svc_id: m.svc_id })) });
  for (const m of streamed) await e.next((x) => x.type === 'orderbook' && x.svc_id === m.svc_id, mark);
  assert.ok(!e.messages.slice(mark).some(isError(3003)));
});
