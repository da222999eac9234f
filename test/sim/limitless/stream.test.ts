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

test('subscribe, then every advance pushes the whole YES book of each subscribed market', async () => {
  const client = await connect();
  try {
    client.socket.emit('subscribe_market_prices', { marketSlugs: [slugs[0], slugs[1]] });
    await waitFor(
      async () => client.frames.some((f) => f.event === 'system') || undefined,
      5_000,
      'confirmation',
    );
    assert.equal(updates(client).length, 0, 'the feed pushes on change only');
    await control(sim, 'POST', 'advance', { steps: 1 });
    await waitFor(async () => updates(client).length >= 2 || undefined, 5_000, 'two updates');
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
    client.socket.emit('subscribe_market_prices', { marketSlugs: [slugs[0]] });
    client.socket.emit('subscribe_market_prices', { marketSlugs: [slugs[2]] });
    await waitFor(async () => client.frames.filter((f) => f.event === 'system').length >= 2 || undefined);
    await control(sim, 'POST', 'advance', { steps: 1 });
    await waitFor(async () => updates(client).length >= 1 || undefined, 5_000, 'an update');
    assert.deepEqual(
      updates(client).map((u) => u.marketSlug),
      [slugs[2]],
    );
    const ack = await client.socket.timeout(2_000).emitWithAck('unsubscribe', {
      channel: 'subscribe_market_prices',
      marketSlugs: [slugs[2]],
    });
    assert.ok(ack && typeof ack === 'object' && !('error' in ack));
    const before = updates(client).length;
    await control(sim, 'POST', 'advance', { steps: 1 });
    client.socket.emit('subscribe_market_prices', { marketSlugs: [slugs[3]] });
    await control(sim, 'POST', 'advance', { steps: 1 });
    await waitFor(async () => updates(client).length > before || undefined);
    assert.ok(
      updates(client)
        .slice(before)
        .every((u) => u.marketSlug === slugs[3]),
    );
    client.socket.emit('subscribe_market_prices', 'not an object');
    await waitFor(
      async () => client.frames.some((f) => f.event === 'exception') || undefined,
      5_000,
      'exception',
    );
  } finally {
    client.socket.disconnect();
  }
});

test('a stalled feed stays connected but pushes nothing until the fault clears', async () => {
  const client = await connect();
  try {
    client.socket.emit('subscribe_market_prices', { marketSlugs: [slugs[0]] });
    await waitFor(async () => client.frames.some((f) => f.event === 'system') || undefined);
    await control(sim, 'POST', 'faults', { stall_feed: true });
    await control(sim, 'POST', 'advance', { steps: 2 });
    await control(sim, 'DELETE', 'faults');
    assert.equal(updates(client).length, 0);
    assert.ok(client.socket.connected);
    await control(sim, 'POST', 'advance', { steps: 1 });
    await waitFor(async () => updates(client).length > 0 || undefined, 5_000, 'updates after the stall');
  } finally {
    client.socket.disconnect();
  }
});

test('the handshake: no credentials is public, a signed handshake is `authenticated`, a bad one is refused', async () => {
  const account = await sim.createAccount();
  const good = await connect(signed(account.credentials, 'GET', WS_SIGNED_PATH));
  await waitFor(
    async () => good.frames.some((f) => f.event === 'authenticated') || undefined,
    5_000,
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
  assert.equal(dropped, 2);
  await waitFor(async () => (!a.socket.connected && !b.socket.connected) || undefined, 5_000, 'both closed');
  assert.deepEqual(reasons, ['transport close']);
});
