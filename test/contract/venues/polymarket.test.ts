// Polymarket's own contract cases against its simulator over loopback: signatures and HMACs the exchange refuses
// surface as 403, fills move the balance in base units, FOK kills, FAK partially fills, GTD expires, credentials are
// derived from the wallet when left out, lost order answers are reconciled by the order hash, and the user channel
// reports the caller's orders and fills.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { PriceSeries } from '../../../src/domain/candles.js';
import type { Market } from '../../../src/domain/market.js';
import type { UserStreamEvent } from '../../../src/domain/stream.js';
import type { OrderRequest } from '../../../src/domain/trading.js';
import { AppError } from '../../../src/errors/app-error.js';
import { l2Headers } from '../../../src/venues/polymarket/auth.js';
import { PolymarketClient } from '../../../src/venues/polymarket/client.js';
import { mapPolymarketError } from '../../../src/venues/polymarket/errors.js';
import { PolymarketOrderResponse } from '../../../src/venues/polymarket/payloads.js';
import { signOrder } from '../../../src/venues/polymarket/signing.js';
import { isProtocolV2PositionId } from '../../../src/venues/polymarket/trading.js';
import type { VenueSession } from '../../../src/venues/port.js';
import { payloadDecoder } from '../../../src/venues/shared/payload.js';
import { waitFor } from '../../support/server.js';
import {
  allMarkets,
  liquidMarkets,
  rejectsWith,
  silentLogger,
  startVenue,
  type VenueUnderTest,
} from './harness.js';

describe('polymarket: exchange-specific contract', () => {
  let venue: VenueUnderTest;
  let market: Market;
  let session: VenueSession;
  let address: string;

  before(async () => {
    venue = await startVenue('polymarket');
    [market] = (await liquidMarkets(venue, 1)) as [Market];
    ({ session, address } = (await venue.newSession()) as { session: VenueSession; address: string });
  });
  after(() => venue?.close());

  const trading = () => venue.adapter.trading;
  const request = (over: Partial<OrderRequest>): OrderRequest => ({
    market_id: market.exchange_market_id,
    outcome: 'Yes',
    side: 'buy',
    price: 0.01,
    size: 5,
    order_type: 'gtc',
    client_order_id: randomUUID(),
    ...over,
  });
  const book = async () => {
    const fetchBook = venue.adapter.marketData.fetchOrderBook;
    assert.ok(fetchBook);
    return fetchBook.call(venue.adapter.marketData, venue.ctx(), market, 'Yes');
  };
  const balance = async (s: VenueSession = session) => {
    const fetchBalance = trading().fetchBalance;
    assert.ok(fetchBalance);
    const { raw } = await fetchBalance.call(trading(), venue.ctx(), s);
    return BigInt(raw.balance as string);
  };
  const withSecret = (secret: string): VenueSession => ({
    ...session,
    credentials: { ...session.credentials, clob_api_secret: secret },
  });

  test('a wrong HMAC secret is refused by the exchange and surfaces as 403 authentication_failed', async () => {
    const wrong = withSecret(Buffer.from('not the secret the exchange issued').toString('base64url'));
    const error = await rejectsWith(
      trading().listOpenOrders?.(venue.ctx(), wrong, null) as Promise<unknown>,
      'authentication_failed',
    );
    assert.equal(error.status, 403);
    assert.ok(
      !error.message.includes(session.credentials.clob_api_secret ?? '\u0000'),
      'secret in the error',
    );
  });

  test('a tampered order signature is refused by the exchange and surfaces as 403 authentication_failed', async () => {
    // The simulator serves its CLOB on the control host: a client of our own sends what the adapter never would.
    const clob = venue.controlUrl;
    const client = new PolymarketClient({
      gammaUrl: clob,
      clobUrl: clob,
      dataUrl: clob,
      wsMarketUrl: '',
      wsUserUrl: '',
      timeoutMs: 3_000,
    });
    try {
      const auth = await client.authenticate(venue.ctx(), session);
      const yes = market.outcomes.find((o) => o.name === 'Yes');
      const signed = await signOrder(auth.signer, 137, {
        tokenId: yes?.token_id as string,
        price: 0.01,
        size: 5,
        side: 'buy',
        tickSize: market.tick_size ?? 0.01,
        negRisk: false,
        orderType: 'GTC',
        owner: auth.creds.key,
      });
      // Raise the amount after signing: the signature no longer covers the order.
      const body = JSON.parse(signed.body) as { order: { makerAmount: string } };
      body.order.makerAmount = String(BigInt(body.order.makerAmount) * 2n);
      const sent = client.private(venue.ctx(), auth, payloadDecoder(PolymarketOrderResponse), {
        method: 'POST',
        path: '/order',
        body: JSON.stringify(body),
        idempotent: false,
        operation: 'create_order',
      });
      const error = await sent.then(
        () => assert.fail('the exchange accepted a tampered order'),
        (e: unknown) => mapPolymarketError(e),
      );
      assert.ok(
        error instanceof AppError && error.code === 'authentication_failed' && error.status === 403,
        String(error),
      );
      assert.deepEqual(await trading().listOpenOrders?.(venue.ctx(), session, market.exchange_market_id), []);
    } finally {
      await client.close();
    }
  });

  test('a crossing buy fills at the best ask and takes exactly its cost from the balance in base units', async () => {
    const before = await balance();
    const [askPrice, askSize] = (await book()).asks[0] as [number, number];
    const size = Math.min(5, askSize);
    const order = await trading().createOrder?.(venue.ctx(), session, request({ price: askPrice, size }));
    assert.equal(order?.status, 'filled');
    const fills = (await trading().fetchFills?.(venue.ctx(), session, market.exchange_market_id, 50)) ?? [];
    const mine = fills.filter((f) => f.order_id === order?.id);
    const cost = mine.reduce((sum, f) => sum + f.price * f.size + (f.fee ?? 0), 0);
    const spent = Number(before - (await balance())) / 1e6;
    assert.ok(Math.abs(spent - cost) < 1e-6, `spent ${spent}, fills cost ${cost}`);
    const positions =
      (await trading().fetchPositions?.(venue.ctx(), session, market.exchange_market_id)) ?? [];
    assert.ok(
      positions.some((p) => p.outcome === 'Yes' && p.size >= size - 1e-9 && p.average_price !== null),
    );
  });

  test('a FOK order that cannot fill completely is killed and changes nothing', async () => {
    const before = await balance();
    const levels = (await book()).asks;
    const available = levels.reduce((sum, [, s]) => sum + s, 0);
    const worst = levels.at(-1)?.[0] as number;
    const order = await trading().createOrder?.(
      venue.ctx(),
      session,
      request({ order_type: 'fok', price: worst, size: Math.ceil(available) + 100 }),
    );
    assert.equal(order?.status, 'cancelled');
    assert.equal(order?.filled, 0);
    assert.equal(await balance(), before);
    assert.deepEqual(await trading().listOpenOrders?.(venue.ctx(), session, market.exchange_market_id), []);
  });

  test('an IOC (FAK) order fills what the limit allows and cancels the rest', async () => {
    const [bestAsk, bestSize] = (await book()).asks[0] as [number, number];
    const size = Math.floor(bestSize) + 50;
    const order = await trading().createOrder?.(
      venue.ctx(),
      session,
      request({ order_type: 'ioc', price: bestAsk, size }),
    );
    assert.equal(order?.status, 'cancelled', JSON.stringify(order));
    assert.ok((order?.filled ?? 0) > 0 && (order?.filled ?? 0) < size, `filled ${order?.filled} of ${size}`);
    assert.deepEqual(await trading().listOpenOrders?.(venue.ctx(), session, market.exchange_market_id), []);
  });

  test('a GTD order rests, then expires at the exchange and reads back as expired', async () => {
    // The exchange takes a GTD order off the book a minute before its expiration and refuses one that is not more
    // than a minute out: 65 s leaves the order several seconds to reach it, and it then expires in about 5 s.
    const expiration = Math.floor(Date.now() / 1000) + 65;
    const order = await trading().createOrder?.(
      venue.ctx(),
      session,
      request({ order_type: 'gtd', expiration }),
    );
    assert.equal(order?.status, 'open');
    const id = order?.id as string;
    await waitFor(
      async () => (await trading().getOrder?.(venue.ctx(), session, id))?.status === 'expired' || undefined,
      30_000,
      'the GTD order to expire',
    );
    assert.ok(
      !((await trading().listOpenOrders?.(venue.ctx(), session, null)) ?? []).some((o) => o.id === id),
    );
  });

  test('orders refused by the exchange rules are 400s or 402 and change nothing', async () => {
    await rejectsWith(
      trading().createOrder?.(venue.ctx(), session, request({ outcome: 'Maybe' })) as Promise<unknown>,
      'validation_error',
    );
    await rejectsWith(
      trading().createOrder?.(venue.ctx(), session, request({ price: 0.015 })) as Promise<unknown>,
      'validation_error',
    );
    await rejectsWith(
      trading().createOrder?.(venue.ctx(), session, request({ size: 1 })) as Promise<unknown>,
      'bad_request',
    );
    const poor = (await venue.newSession()).session;
    await rejectsWith(
      trading().createOrder?.(venue.ctx(), poor, request({ price: 0.5, size: 100_000 })) as Promise<unknown>,
      'insufficient_funds',
    );
    await rejectsWith(
      trading().createOrder?.(
        venue.ctx(),
        session,
        request({ market_id: `0x${'cd'.repeat(32)}` }),
      ) as Promise<unknown>,
      'market_not_found',
    );
  });

  test('a market is found by condition id in any state, without Gamma’s sunset offset-paged /markets', async () => {
    // Every market the CLOB lists, with its state, straight from the simulator (its CLOB is the control host).
    const listed: Array<{ condition_id: string; closed: boolean }> = [];
    for (let cursor = 'MA=='; cursor !== 'LTE=' && listed.length < 10_000; ) {
      const page = (await (await fetch(`${venue.controlUrl}/markets?next_cursor=${cursor}`)).json()) as {
        data: typeof listed;
        next_cursor: string;
      };
      listed.push(...page.data);
      cursor = page.next_cursor;
    }
    const live = listed.find((m) => !m.closed);
    const finished = listed.find((m) => m.closed);
    assert.ok(live && finished, 'the world has a live and a finished market');
    await venue.sim.clearRequests();
    const catalog = venue.adapter.catalog;
    const found = await catalog.fetchMarket?.(venue.ctx(), live.condition_id);
    assert.equal(found?.exchange_market_id, live.condition_id);
    assert.equal(found?.status, 'active');
    const old = await catalog.fetchMarket?.(
      venue.ctx(),
      finished.condition_id.toUpperCase().replace('0X', '0x'),
    );
    assert.equal(old?.exchange_market_id, finished.condition_id);
    assert.notEqual(old?.status, 'active');
    assert.equal(await catalog.fetchMarket?.(venue.ctx(), `0x${'ef'.repeat(32)}`), null);
    const requests = await venue.sim.requests();
    const gammaRoutes = [...requests.keys()].filter((route) => route.startsWith('gamma '));
    assert.equal(requests.get('gamma GET /markets'), undefined, 'the sunset endpoint was not called');
    assert.equal(gammaRoutes.length, 2, `only slug lookups on Gamma: ${gammaRoutes.join(', ')}`);
    assert.ok(gammaRoutes.every((route) => route.startsWith('gamma GET /markets/slug/')));
  });

  test('the order path tells a Protocol-V2 market by its position ids: refused 501, and Gamma is never asked', async () => {
    const create = trading().createOrder;
    const cancel = trading().cancelOrder;
    assert.ok(create && cancel);
    const [, , v2, fresh] = (await liquidMarkets(venue, 4)) as [Market, Market, Market, Market];
    const moved = await fetch(`${venue.controlUrl}/__sim/polymarket/protocol-v2`, {
      method: 'POST',
      body: JSON.stringify({ condition_id: v2.exchange_market_id }),
    });
    assert.equal(moved.status, 200, await moved.clone().text());
    const { position_ids: positionIds } = (await moved.json()) as { position_ids: [string, string] };
    assert.ok(positionIds.every(isProtocolV2PositionId));
    await venue.sim.clearRequests();
    // A V1 market's first order: no version lookup anywhere (Gamma's /markets?condition_ids= is sunset).
    const resting = await create.call(
      trading(),
      venue.ctx(),
      session,
      request({ market_id: fresh.exchange_market_id }),
    );
    assert.equal(resting.status, 'open');
    await cancel.call(trading(), venue.ctx(), session, resting.id);
    const refused = await rejectsWith(
      create.call(trading(), venue.ctx(), session, request({ market_id: v2.exchange_market_id })),
      'not_supported',
    );
    assert.match(refused.message, /Protocol-V2/);
    const requests = await venue.sim.requests();
    const gamma = [...requests.keys()].filter((route) => route.startsWith('gamma '));
    assert.deepEqual(gamma, [], `no Gamma call on the order path: ${gamma.join(', ')}`);
    assert.equal(requests.get('clob POST /order'), 1, 'only the V1 order was sent');
  });

  test('candles of a resolved market are not empty below 12-hour fidelity: the exchange answers those only coarser', async () => {
    const markets = await allMarkets(venue);
    const resolved = markets.find((m) => m.status === 'resolved' && m.end_date !== null);
    assert.ok(resolved, 'the world has a resolved market');
    const outcome = resolved.outcomes[0]?.name ?? 'Yes';
    const fetchHistory = venue.adapter.marketData.fetchPriceHistory;
    assert.ok(fetchHistory);
    const endTs = Math.floor(Date.parse(resolved.end_date as string) / 1000);
    for (const [interval, span] of [
      ['1h', 3 * 86_400],
      ['1d', 20 * 86_400],
    ] as const) {
      const series: PriceSeries = await fetchHistory.call(
        venue.adapter.marketData,
        venue.ctx(),
        resolved,
        outcome,
        {
          interval,
          startTs: endTs - span,
          endTs,
        },
      );
      assert.equal(series.kind, 'ticks');
      assert.ok(
        series.kind === 'ticks' && series.ticks.length > 0,
        `${interval}: no points for ${resolved.slug}`,
      );
    }
    // A window narrower than the 12-hour points holds none of them: the market's trade tape is read for it instead
    // (the simulator's tape of a resolved market is empty, so only the request is checked here).
    await venue.sim.clearRequests();
    const narrowEnd = Math.floor(endTs / 43_200) * 43_200 - 3_600;
    await fetchHistory.call(venue.adapter.marketData, venue.ctx(), resolved, outcome, {
      interval: '1m',
      startTs: narrowEnd - 3 * 3_600,
      endTs: narrowEnd,
    });
    const requests = await venue.sim.requests();
    assert.equal(requests.get('clob GET /prices-history'), 1);
    assert.ok((requests.get('data GET /trades') ?? 0) >= 1, [...requests.keys()].join(', '));
  });

  test('a wallet key alone is enough: the CLOB credentials are derived (L1) and work', async () => {
    const keyOnly: VenueSession = {
      ...session,
      credentials: { private_key: session.credentials.private_key as string },
    };
    const orders = await trading().listOpenOrders?.(venue.ctx(), keyOnly, null);
    assert.ok(Array.isArray(orders));
    assert.equal(await balance(keyOnly), await balance());
    const ping = await venue.adapter.ping(venue.ctx(), keyOnly);
    assert.deepEqual([ping.reachable, ping.authenticated], [true, true]);
    assert.match(ping.message, new RegExp(address, 'i'));
  });

  test('with only a wallet key the CLOB key is derived once (L1) for every call; a deleted key once more', async () => {
    const fresh = await venue.newSession();
    const full = fresh.session.credentials;
    const keyOnly: VenueSession = {
      ...fresh.session,
      credentials: { private_key: full.private_key as string },
    };
    const l1 = async () => {
      const requests = await venue.sim.requests();
      return {
        derive: requests.get('clob GET /auth/derive-api-key') ?? 0,
        create: requests.get('clob POST /auth/api-key') ?? 0,
      };
    };
    await venue.sim.clearRequests();
    // Concurrent first calls of one wallet share one derivation.
    await Promise.all([
      trading().listOpenOrders?.(venue.ctx(), keyOnly, null),
      balance(keyOnly),
      trading().fetchFills?.(venue.ctx(), keyOnly, null, 10),
    ]);
    for (let i = 0; i < 3; i++) await trading().listOpenOrders?.(venue.ctx(), keyOnly, null);
    assert.equal((await venue.adapter.ping(venue.ctx(), keyOnly)).authenticated, true);
    assert.deepEqual(await l1(), { derive: 1, create: 0 });
    assert.equal((await venue.sim.requests()).get('clob GET /data/orders'), 4, 'every call reached the CLOB');

    // The wallet deletes its key elsewhere: the cached one is refused (401), derived again once, and works.
    const headers = l2Headers(
      fresh.address as string,
      {
        key: full.clob_api_key as string,
        secret: full.clob_api_secret as string,
        passphrase: full.clob_api_passphrase as string,
      },
      'DELETE',
      '/auth/api-key',
      undefined,
    );
    const deleted = await fetch(`${venue.controlUrl}/auth/api-key`, { method: 'DELETE', headers });
    assert.equal(deleted.status, 200);
    await venue.sim.clearRequests();
    assert.deepEqual(await trading().listOpenOrders?.(venue.ctx(), keyOnly, null), []);
    assert.deepEqual(await trading().listOpenOrders?.(venue.ctx(), keyOnly, null), []);
    // No key for nonce 0 any more: derive answers 400, so the adapter creates one.
    assert.deepEqual(await l1(), { derive: 1, create: 1 });
    assert.equal((await venue.sim.requests()).get('clob GET /data/orders'), 3, 'one refused, two accepted');
  });

  test('a derived key the CLOB keeps refusing is derived again once, then the caller gets authentication_failed', async () => {
    const fresh = await venue.newSession();
    const keyOnly: VenueSession = {
      ...fresh.session,
      credentials: { private_key: fresh.session.credentials.private_key as string },
    };
    await trading().listOpenOrders?.(venue.ctx(), keyOnly, null);
    await venue.sim.clearRequests();
    await venue.sim.faults({ error_rate: 1, error_status: 401, only: ['GET /data/orders'] });
    try {
      await rejectsWith(
        trading().listOpenOrders?.(venue.ctx(), keyOnly, null) as Promise<unknown>,
        'authentication_failed',
      );
    } finally {
      await venue.sim.clearFaults();
    }
    const requests = await venue.sim.requests();
    assert.equal(requests.get('clob GET /auth/derive-api-key'), 1);
    assert.equal(requests.get('clob GET /data/orders'), 2);
  });

  test('an order whose answer is lost is looked up by its hash, never sent again', async () => {
    // The exchange books the order at once but holds its answer until the fault is cleared, long after the
    // adapter's 3 s deadline.
    await venue.sim.faults({ hold_response_ms: 120_000, only: ['POST /order'] });
    try {
      const order = await trading().createOrder?.(venue.ctx(), session, request({}));
      assert.equal(order?.status, 'open', 'reconciled from the order hash');
      const open = (await trading().listOpenOrders?.(venue.ctx(), session, null)) ?? [];
      assert.equal(open.filter((o) => o.id === order?.id).length, 1, 'the order exists exactly once');
      await trading().cancelOrder?.(venue.ctx(), session, order?.id as string);
    } finally {
      await venue.sim.clearFaults();
    }
  });

  test('an order the exchange has not booked when the deadline passes is reported unknown, with its id', async () => {
    const openBefore = (await trading().listOpenOrders?.(venue.ctx(), session, null)) ?? [];
    // The exchange is slow: it books the order only when the fault is cleared, after the adapter gave up and
    // found nothing by the hash.
    await venue.sim.faults({ latency_ms: 120_000, only: ['POST /order'] });
    let orderId = '';
    try {
      const error = await rejectsWith(
        trading().createOrder?.(venue.ctx(), session, request({})) as Promise<unknown>,
        'service_unavailable',
      );
      assert.equal(error.retryable, true);
      const extra = error.extra as { order_status?: string; order_id?: string };
      assert.equal(extra.order_status, 'unknown');
      assert.match(String(extra.order_id), /^0x[0-9a-f]{64}$/);
      orderId = extra.order_id as string;
    } finally {
      await venue.sim.clearFaults();
    }
    // The id the error gave is how a client finds out: the order did reach the book, once, and was not re-sent.
    const order = await waitFor(
      async () =>
        (await trading()
          .getOrder?.(venue.ctx(), session, orderId)
          .catch(() => undefined)) ?? undefined,
      10_000,
      'the slow order to appear',
    );
    assert.equal(order.status, 'open');
    const openAfter = (await trading().listOpenOrders?.(venue.ctx(), session, null)) ?? [];
    assert.equal(openAfter.length, openBefore.length + 1);
    await trading().cancelOrder?.(venue.ctx(), session, orderId);
  });

  test('the user channel reports the caller’s own order and fill, once each', async () => {
    const open = trading().openUserStream;
    assert.ok(open);
    const stream = open.call(
      trading(),
      { signal: new AbortController().signal, logger: silentLogger },
      session,
    );
    const events: UserStreamEvent[] = [];
    const reading = (async () => {
      for await (const e of stream) events.push(e);
    })();
    try {
      await waitFor(
        async () => events.some((e) => e.type === 'feed_state' && e.state === 'healthy') || undefined,
        10_000,
        'user channel',
      );
      const [askPrice] = (await book()).asks[0] as [number, number];
      const order = await trading().createOrder?.(
        venue.ctx(),
        session,
        request({ price: askPrice, size: 5 }),
      );
      assert.equal(order?.status, 'filled');
      await waitFor(
        async () => events.some((e) => e.type === 'fill' && e.fill.order_id === order?.id) || undefined,
        10_000,
        'the fill on the user channel',
      );
      // The exchange reported the trade (MATCHED, then CONFIRMED) while the order was placed; the events of an
      // order placed after it come later on the channel, so once they are here every repeat would be too.
      const marker = await trading().createOrder?.(venue.ctx(), session, request({ price: 0.01, size: 5 }));
      await waitFor(
        async () => events.some((e) => e.type === 'order' && e.order.id === marker?.id) || undefined,
        10_000,
        'the later order on the user channel',
      );
      await trading().cancelOrder?.(venue.ctx(), session, marker?.id as string);
      const fills = events.filter((e) => e.type === 'fill' && e.fill.order_id === order?.id);
      assert.equal(
        new Set(fills.map((e) => e.type === 'fill' && e.fill.fill_id)).size,
        fills.length,
        'a fill reported twice',
      );
      assert.ok(
        events.some((e) => e.type === 'order' && e.order.id === order?.id),
        'no order event',
      );
    } finally {
      await stream.close();
      await reading;
    }
  });

  test('wallet activity (/activity) is oldest first, and an item has the same id in every read that covers it', async () => {
    const fetchActivity = venue.adapter.marketData.fetchWalletActivity;
    assert.ok(fetchActivity);
    const read = (sinceMs: number, max = 500) =>
      fetchActivity.call(venue.adapter.marketData, venue.ctx(), address, { sinceMs, max });
    const before = await read(0);
    const [askPrice] = (await book()).asks[0] as [number, number];
    for (let i = 0; i < 2; i += 1) {
      const order = await trading().createOrder?.(
        venue.ctx(),
        session,
        request({ price: askPrice, size: 5 }),
      );
      assert.equal(order?.status, 'filled');
    }
    const all = await read(0);
    assert.ok(all.length >= before.length + 2, `two trades, ${all.length - before.length} new rows`);
    assert.deepEqual(
      all.map((i) => i.timestamp_ms),
      [...all.map((i) => i.timestamp_ms)].sort((a, b) => a - b),
    );
    assert.equal(new Set(all.map((i) => i.id)).size, all.length, 'ids are unique');
    for (const item of all) {
      assert.equal(item.raw.type, 'TRADE');
      assert.equal(item.timestamp_ms % 1000, 0, 'the Data API counts seconds');
    }
    const last = all.at(-1);
    assert.ok(last);
    const overlap = await read(last.timestamp_ms);
    assert.ok(
      overlap.some((i) => i.id === last.id),
      'the newest item read again has the same id',
    );
    assert.ok(overlap.every((i) => i.timestamp_ms >= last.timestamp_ms));
    assert.deepEqual(
      (await read(0, 1)).map((i) => i.id),
      [all[0]?.id],
    );
    await rejectsWith(
      fetchActivity.call(venue.adapter.marketData, venue.ctx(), '0x12', { sinceMs: 0, max: 1 }),
      'validation_error',
    );
  });

  test('market info is read once per market, and again when the tick size changed under it', async () => {
    // A world large enough to hold markets priced near 0.04 or 0.96, where the tick changes.
    const big = await startVenue('polymarket', { size: 400 });
    try {
      const createOrder = big.adapter.trading.createOrder;
      assert.ok(createOrder);
      const { session: trader } = await big.newSession();
      const place = (m: Market, price: number) =>
        createOrder.call(
          big.adapter.trading,
          big.ctx(),
          trader,
          request({ market_id: m.exchange_market_id, price }),
        );
      const tickOf = async (m: Market) => {
        const res = await fetch(`${big.controlUrl}/clob-markets/${m.exchange_market_id}`);
        return Number(((await res.json()) as { mts: number }).mts);
      };
      const until = async (m: Market, tick: number) => {
        for (let i = 0; i < 200 && (await tickOf(m)) !== tick; i++) await big.sim.advance(5);
        assert.equal(await tickOf(m), tick, `${m.exchange_market_id} reaches tick ${tick}`);
      };
      // The markets priced closest to where the tick changes; the first whose tick moves swings across the line
      // on a period of at most about 160 steps, so it will be quoted in tenths of a cent and in cents by turns.
      const nearLine = (m: Market) => {
        const p = m.outcomes[0]?.price ?? 0.5;
        return Math.min(Math.abs(p - 0.04), Math.abs(p - 0.96));
      };
      const candidates = (await allMarkets(big))
        .filter((m) => m.status === 'active')
        .sort((a, b) => nearLine(a) - nearLine(b))
        .slice(0, 24);
      let moving: Market | undefined;
      let before = await Promise.all(candidates.map(tickOf));
      for (let i = 0; i < 200 && !moving; i++) {
        await big.sim.advance(5);
        const now = await Promise.all(candidates.map(tickOf));
        moving = candidates.find((_, k) => before[k] !== now[k]);
        before = now;
      }
      assert.ok(moving, 'a market whose tick changes');
      await until(moving, 0.001);
      await place(moving, 0.005);
      await big.sim.clearRequests();
      await place(moving, 0.006);
      const infoReads = [...(await big.sim.requests()).keys()].filter((k) => k.includes('/clob-markets/'));
      assert.deepEqual(infoReads, [], 'the second order reuses the market info');
      // Back to cents: the cached 0.001 tick lets 0.005 through, the exchange refuses it for its tick, and the
      // entry is dropped, so the next attempt is judged by the current tick before anything is signed.
      await until(moving, 0.01);
      const refused = await rejectsWith(place(moving, 0.005), 'bad_request');
      assert.match(refused.message, /tick/i);
      const local = await rejectsWith(place(moving, 0.005), 'validation_error');
      assert.match(local.message, /not a multiple of the tick 0\.01/);
      // And a cached cents tick does not refuse what the exchange's current 0.001 tick allows.
      await place(moving, 0.01);
      await until(moving, 0.001);
      const accepted = await place(moving, 0.005);
      assert.equal(accepted.price, 0.005);
    } finally {
      await big.close();
    }
  });
});
