// What one customer can make the server do upstream through the WebSocket (issue 31, items 4 and 5), through the
// real server over the simulators, with exchange calls counted by the simulators themselves (GET /__sim/requests):
// a subscribe frame of unknown ids is held to the subscriptions the customer has left before anything is looked up;
// the tier's subscription cap counts every connection of the customer, not each one alone.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { ExchangeId } from '../../../src/domain/exchanges.js';
import type { Market } from '../../../src/domain/market.js';
import { TIERS } from '../../../src/domain/tiers.js';
import { type CatalogueServer, simControl, startCatalogueServer } from '../../support/catalogue.js';
import { waitFor } from '../../support/server.js';
import { type WsMessage, WsTestClient } from '../../support/ws-client.js';

let cat: CatalogueServer;
let wsUrl: string;
const clients: WsTestClient[] = [];

before(async () => {
  cat = await startCatalogueServer(20, { config: { websocket: { heartbeatMs: 200, walletPollMs: 200 } } });
  wsUrl = `${cat.server.url.replace(/^http/, 'ws')}/ws`;
});
after(async () => {
  for (const c of clients) c.close();
  await cat?.stop();
});

const isError = (code: number) => (m: WsMessage) => m.type === 'error' && m.code === code;

async function freeKey(): Promise<string> {
  return (await cat.server.runtime.keys.create({ name: 'ws limits', tier: 'free' })).key;
}

async function authed(key: string): Promise<WsTestClient> {
  const client = await WsTestClient.open(wsUrl);
  clients.push(client);
  client.send({ type: 'auth', api_key: key });
  await client.next((m) => m.type === 'auth_ok');
  return client;
}

function activeMarkets(exchange: ExchangeId): Market[] {
  return [...cat.markets.values()].filter(
    (m) => m.exchange === exchange && m.status === 'active' && m.outcomes.every((o) => o.token_id),
  );
}

/** Polymarket ids of the right shape that no market has: each one the CLOB is asked for answers 404. */
function unknownIds(n: number): string[] {
  return Array.from({ length: n }, () => `polymarket:0x${randomBytes(32).toString('hex')}`);
}

async function clobLookups(): Promise<number> {
  const { counts } = (await simControl(cat, 'polymarket', 'GET', 'requests')) as {
    counts: Record<string, number>;
  };
  return Object.entries(counts)
    .filter(([route]) => route.startsWith('clob GET /markets/'))
    .reduce((sum, [, n]) => sum + n, 0);
}

function wallets(n: number, from: number): Array<{ exchange: string; address: string }> {
  return Array.from({ length: n }, (_, i) => ({
    exchange: 'polymarket',
    address: `0x${(from + i).toString(16).padStart(40, '0')}`,
  }));
}

async function activeSubscriptions(key: string): Promise<number> {
  const res = await cat.server.request('/api/v1/ws/usage', { key });
  assert.equal(res.status, 200, res.text);
  return (res.body as { customer: { active_subscriptions: number } }).customer.active_subscriptions;
}

describe('upstream amplification', () => {
  test('three subscribe frames of 500 unknown ids cost at most the subscriptions left each, not 1,500 lookups', async () => {
    const max = TIERS.free.wsMaxSubscriptions;
    const key = await freeKey();
    await simControl(cat, 'polymarket', 'DELETE', 'requests');
    const frames = [unknownIds(500), unknownIds(500), unknownIds(500)];
    // A connection each (the customer's), so that no frame meets the 3-a-second control limit with its auth.
    const connections = await Promise.all(frames.map(() => authed(key)));
    for (const [i, ids] of frames.entries()) {
      const client = connections[i] as WsTestClient;
      client.send({ type: 'subscribe', markets: ids.map((svc_id) => ({ svc_id })) });
      const refused = await client.next(isError(3002));
      assert.deepEqual(refused.svc_ids, ids.slice(max), 'everything past the subscriptions left, in order');
      // The first `max` were asked for: not found, or refused by the lookup budget (then not sent upstream).
      const answered = client.messages.filter((m) => isError(2002)(m) || isError(3001)(m));
      assert.deepEqual(
        answered.map((m) => m.svc_id),
        ids.slice(0, max),
      );
    }
    const lookups = await clobLookups();
    assert.ok(lookups <= frames.length * max, `${lookups} exchange lookups for 3 frames`);
  });
});

describe('the subscription cap counts every connection of the customer', () => {
  test('a free key with four connections holds 5 subscriptions between them, and one closing frees its share', async () => {
    const key = await freeKey();
    const max = TIERS.free.wsMaxSubscriptions;
    const [a, b, c, d] = await Promise.all([authed(key), authed(key), authed(key), authed(key)]);
    assert.ok(a && b && c && d);
    const onA = wallets(3, 0x1000);
    a.send({ type: 'subscribe', addresses: onA });
    for (const w of onA) await a.next((m) => m.type === 'wallet_activity' && m.address === w.address);

    const onB = wallets(3, 0x2000);
    b.send({ type: 'subscribe', addresses: onB });
    const refused = await b.next(isError(3002));
    assert.deepEqual(refused.addresses, onB.slice(max - 3), 'what is past the customer-wide cap');
    for (const w of onB.slice(0, max - 3)) {
      await b.next((m) => m.type === 'wallet_activity' && m.address === w.address);
    }

    // A book on a third connection is refused before its market is even resolved.
    const book = activeMarkets('polymarket')[0] as Market;
    c.send({ type: 'subscribe', markets: [{ svc_id: book.svc_id }] });
    const full = await c.next(isError(3002));
    assert.deepEqual(full.svc_ids, [book.svc_id]);
    d.send({ type: 'subscribe', addresses: wallets(5, 0x3000) });
    assert.equal(((await d.next(isError(3002))).addresses as unknown[]).length, 5);
    assert.equal(await activeSubscriptions(key), max);

    a.close();
    await waitFor(async () => ((await activeSubscriptions(key)) === max - 3 ? true : undefined));
    const from = c.mark;
    c.send({ type: 'subscribe', markets: [{ svc_id: book.svc_id }] });
    await c.next((m) => m.type === 'orderbook' && m.svc_id === book.svc_id, from);
    assert.equal(await activeSubscriptions(key), max - 2);
  });
});
