// The Limitless simulator's Socket.IO feed (namespace /markets, websocket transport): subscriptions that replace
// the previous set, whole-book orderbookUpdate frames after advance, unsubscribe with ack, a malformed payload,
// a stalled feed, the handshake's HMAC check and /__sim/ws/drop.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { io, type Socket } from 'socket.io-client';
import { WS_SIGNED_PATH } from '../../../sim/limitless/auth.js';
import { type LimitlessSim, startLimitlessSim } from '../../../sim/limitless/index.js';
import { waitFor } from '../../support/server.js';
import { activeRows, control, getJson, signed } from './helpers.js';

let sim: LimitlessSim;
let slugs: string[];
before(async () => {
  sim = await startLimitlessSim({ seed: 21, size: 80 });
  slugs = (await activeRows(sim)).filter((r) => r.marketType === 'single').map((r) => r.slug as string);
});
after(() => sim.close());

interface Client {
  socket: Socket;
  frames: Array<{ event: string; data: unknown }>;
}

async function connect(headers?: Record<string, string>): Promise<Client> {
  const socket = io(`${sim.wsUrl}/markets`, {
    transports: ['websocket'],
    reconnection: false,
    extraHeaders: headers,
  });
  const frames: Client['frames'] = [];
  socket.onAny((event: string, data: unknown) => frames.push({ event, data }));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  return { socket, frames };
}

const updates = (c: Client) =>
  c.frames.filter((f) => f.event === 'orderbookUpdate').map((f) => f.data as Record<string, unknown>);

/**
 * Packets on one connection arrive in order: once the server has acknowledged a request sent now, everything it
 * pushed before has arrived too. An unsubscribe from a channel the feed does not have changes nothing.
 */
async function settle(c: Client): Promise<void> {
  const ack = await c.socket.timeout(10_000).emitWithAck('unsubscribe', { channel: 'settle' });
  assert.deepEqual(ack, { error: 'Unsupported channel: settle' });
}

/** Subscribes and waits for the feed's confirmation, so a later advance is published to the new set. */
async function subscribe(c: Client, marketSlugs: string[]): Promise<void> {
  const confirmations = c.frames.filter((f) => f.event === 'system').length;
  c.socket.emit('subscribe_market_prices', { marketSlugs });
  await waitFor(
    async () => c.frames.filter((f) => f.event === 'system').length > confirmations || undefined,
    10_000,
    'the subscription confirmed',
  );
}

test('subscribe, then every advance pushes the whole YES book of each subscribed market', async () => {
  const client = await connect();
  try {
    await subscribe(client, [slugs[0] as string, slugs[1] as string]);
    await settle(client);
    assert.equal(updates(client).length, 0, 'the feed pushes on change only');
    await control(sim, 'POST', 'advance', { steps: 1 });
    await settle(client);
    assert.deepEqual(
      updates(client)
        .map((u) => u.marketSlug)
        .sort(),
      [slugs[0], slugs[1]].sort(),
      'one push each',
    );
    const frame = updates(client).find((u) => u.marketSlug === slugs[0]) as {
      marketSlug: string;
      orderbook: Record<string, unknown> & { bids: Array<{ price: number; size: number }> };
      timestamp: string;
    };
    assert.deepEqual(Object.keys(frame).sort(), ['marketSlug', 'orderbook', 'timestamp']);
    assert.deepEqual(Object.keys(frame.orderbook).sort(), [
      'adjustedMidpoint',
      'asks',
      'bids',
      'maxSpread',
      'minSize',
      'tokenId',
    ]);
    assert.ok(!Number.isNaN(Date.parse(frame.timestamp)));
    const rest = (await getJson(sim, `/markets/${slugs[0]}/orderbook`)).body as {
      bids: unknown;
      asks: unknown;
    };
    assert.deepEqual(frame.orderbook.bids, rest.bids, 'the frame carries the same book as REST');
  } finally {
    client.socket.disconnect();
  }
});

test('a new subscribe_market_prices replaces the set; unsubscribe answers its ack', async () => {
  const client = await connect();
  try {
    await subscribe(client, [slugs[0] as string]);
    await subscribe(client, [slugs[2] as string]);
    await control(sim, 'POST', 'advance', { steps: 1 });
    await settle(client);
    assert.deepEqual(
      updates(client).map((u) => u.marketSlug),
      [slugs[2]],
    );
    const ack = await client.socket.timeout(10_000).emitWithAck('unsubscribe', {
      channel: 'subscribe_market_prices',
      marketSlugs: [slugs[2]],
    });
    assert.ok(ack && typeof ack === 'object' && !('error' in ack));
    const before = updates(client).length;
    await control(sim, 'POST', 'advance', { steps: 1 });
    await subscribe(client, [slugs[3] as string]);
    await control(sim, 'POST', 'advance', { steps: 1 });
    await settle(client);
    assert.deepEqual(
      updates(client)
        .slice(before)
        .map((u) => u.marketSlug),
      [slugs[3]],
      'nothing after the unsubscribe, then the new market only',
    );
    client.socket.emit('subscribe_market_prices', 'not an object');
    await waitFor(
      async () => client.frames.some((f) => f.event === 'exception') || undefined,
      10_000,
      'exception',
    );
  } finally {
    client.socket.disconnect();
  }
});

test('a stalled feed stays connected but pushes nothing until the fault clears', async () => {
  const client = await connect();
  try {
    await subscribe(client, [slugs[0] as string]);
    await control(sim, 'POST', 'faults', { stall_feed: true });
    const withheld = async () => ((await control(sim, 'GET', 'feed')) as { withheld: number }).withheld;
    const before = await withheld();
    await control(sim, 'POST', 'advance', { steps: 2 });
    assert.ok((await withheld()) > before, 'the push of the subscribed market was withheld');
    await control(sim, 'DELETE', 'faults');
    await settle(client);
    assert.equal(updates(client).length, 0);
    assert.ok(client.socket.connected);
    await control(sim, 'POST', 'advance', { steps: 1 });
    await settle(client);
    assert.equal(updates(client).length, 1, 'the push after the stall');
  } finally {
    client.socket.disconnect();
  }
});

test('the handshake: no credentials is public, a signed handshake is `authenticated`, a bad one is refused', async () => {
  const account = await sim.createAccount();
  const good = await connect(signed(account.credentials, 'GET', WS_SIGNED_PATH));
  await waitFor(
    async () => good.frames.some((f) => f.event === 'authenticated') || undefined,
    10_000,
    'auth ack',
  );
  good.socket.disconnect();
  const forged = { ...account.credentials, secret: Buffer.from('forged').toString('base64') };
  await assert.rejects(connect(signed(forged, 'GET', WS_SIGNED_PATH)), /Unauthorized/);
  const stale = signed(account.credentials, 'GET', WS_SIGNED_PATH, new Date(Date.now() - 120_000));
  await assert.rejects(connect(stale), /Unauthorized/);
});

test('/__sim/ws/drop closes every connection; the client sees a transport close', async () => {
  const a = await connect();
  const b = await connect();
  const reasons: string[] = [];
  a.socket.on('disconnect', (r) => reasons.push(r));
  const { dropped } = (await control(sim, 'POST', 'ws/drop', {})) as { dropped: number };
  // At least these two: a socket an earlier test closed may not have been reaped by the server yet.
  assert.ok(dropped >= 2, `dropped ${dropped}`);
  await waitFor(async () => (!a.socket.connected && !b.socket.connected) || undefined, 10_000, 'both closed');
  assert.deepEqual(reasons, ['transport close']);
});
