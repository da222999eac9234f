// `omnibook replay`'s server on a recorded window written into a real SQLite store: REST answers as of the replay
// clock, paper orders filled by docs/replay.md's rules, and the same window, seed and orders giving byte-identical
// fills and WebSocket streams (own fills on the user stream included) in two runs at --fast; the same recording
// written into PostgreSQL and read through DATABASE_URL gives those same bytes.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadConfig } from '../../../src/config/load.js';
import type { Config } from '../../../src/config/schema.js';
import { Decimal } from '../../../src/domain/decimal.js';
import { feeFor } from '../../../src/domain/fees/fee-for.js';
import { type ReplaySession, startReplay } from '../../../src/replay/replay-session.js';
import { REPLAY_FEE_SCHEDULES } from '../../../src/replay/replay-venue.js';
import { openStore } from '../../../src/store/database.js';
import { standardRecording, T0, writeRecording } from '../../support/recording.js';
import { createPgSchema } from '../../support/services.js';
import { WsTestClient } from '../../support/ws-client.js';

const dirs: string[] = [];
const schemas: Array<() => Promise<void>> = [];
after(async () => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  for (const drop of schemas) await drop();
});

async function sqliteRecording(): Promise<Config> {
  const dataDir = mkdtempSync(join(tmpdir(), 'omnibook-recording-'));
  dirs.push(dataDir);
  const store = openStore({ dataDir });
  await store.migrate();
  const { books, links } = standardRecording();
  await writeRecording(store, books, links);
  await store.close();
  return loadConfig({
    env: {},
    overrides: {
      dataDir,
      host: '127.0.0.1',
      port: 0,
      logLevel: 'silent',
      websocket: { heartbeatMs: 600_000 },
    },
  });
}

/** The same recording in a PostgreSQL schema of its own, read through DATABASE_URL as a user points replay at it. */
async function pgRecording(): Promise<Config> {
  const pg = await createPgSchema();
  schemas.push(pg.drop);
  const store = openStore({ databaseUrl: pg.url, dataDir: '.' });
  await store.migrate();
  const { books, links } = standardRecording();
  await writeRecording(store, books, links);
  await store.close();
  const dataDir = mkdtempSync(join(tmpdir(), 'omnibook-recording-pg-'));
  dirs.push(dataDir);
  return loadConfig({
    env: { DATABASE_URL: pg.url },
    overrides: {
      dataDir,
      host: '127.0.0.1',
      port: 0,
      logLevel: 'silent',
      websocket: { heartbeatMs: 600_000 },
    },
  });
}

/** The API's JSON answers, read field by field by the assertions. */
// biome-ignore lint/suspicious/noExplicitAny: a test reads whatever the answer holds and asserts on it
type Json = any;

interface Api {
  url: string;
  key: string;
  call(
    method: string,
    path: string,
    options?: { account?: string; body?: unknown },
  ): Promise<{ status: number; body: Json }>;
}

async function serve(session: ReplaySession): Promise<Api> {
  const url = await session.runtime.listen();
  const { key } = await session.runtime.keys.create({ name: 'test', tier: 'admin' });
  return {
    url,
    key,
    async call(method, path, options = {}) {
      const headers: Record<string, string> = { 'x-api-key': key };
      if (options.account) {
        headers['x-exchange-credentials'] = Buffer.from(
          JSON.stringify({ account: options.account }),
        ).toString('base64');
      }
      if (options.body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${url}/api/v1${path}`, {
        method,
        headers,
        ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
      });
      return { status: res.status, body: await res.json() };
    },
  };
}

const PM = 'svc_id=polymarket:pm-1&outcome=Yes';
const order = (body: Record<string, unknown>) => ({ market_id: 'pm-1', outcome: 'Yes', ...body });

test('REST answers follow the replay clock, and paper orders fill by the documented rules', async () => {
  const config = await sqliteRecording();
  const session = await startReplay({
    config,
    fromMs: T0,
    toMs: T0 + 10_000,
    pace: { kind: 'backtest' },
    seed: 7,
  });
  try {
    const api = await serve(session);
    const ping = await api.call('GET', '/ping');
    assert.equal(ping.status, 200);
    for (const r of ping.body) assert.equal(r.clock, new Date(T0).toISOString());

    let book = await api.call('GET', `/orderbook?${PM}`);
    assert.equal(book.status, 200, JSON.stringify(book.body));
    assert.deepEqual(book.body.asks, [
      [0.52, 10],
      [0.53, 20],
      [0.55, 40],
    ]);
    assert.equal(book.body.timestamp, new Date(T0 - 1_000).toISOString());

    // A crossing buy takes the recorded asks level by level, priced by the venue's fee model.
    const taker = await api.call('POST', '/orders?exchange=polymarket', {
      account: 'a',
      body: order({ side: 'buy', price: 0.53, size: 15, params: { order_type: 'ioc' } }),
    });
    assert.equal(taker.status, 200, JSON.stringify(taker.body));
    assert.equal(taker.body.status, 'filled');
    assert.equal(taker.body.filled, 15);
    const fills = await api.call('GET', '/fills?exchange=polymarket', { account: 'a' });
    const expectedFee = feeFor(REPLAY_FEE_SCHEDULES.get('polymarket')!, {
      side: 'buy',
      fills: [
        { price: Decimal.parse('0.52'), size: Decimal.parse('10') },
        { price: Decimal.parse('0.53'), size: Decimal.parse('5') },
      ],
    }).fee!;
    const mine = [...fills.body].reverse();
    assert.deepEqual(
      mine.map((f: Json) => [f.price, f.size, f.is_taker, f.created_at]),
      [
        [0.52, 10, true, new Date(T0).toISOString()],
        [0.53, 5, true, new Date(T0).toISOString()],
      ],
    );
    const feeSum = mine.reduce((s: Decimal, f: Json) => s.add(Decimal.fromNumber(f.fee)), Decimal.ZERO);
    assert.equal(feeSum.toString(), expectedFee.toString());
    assert.ok(expectedFee.gt(Decimal.ZERO));

    // Liquidity taken from a recorded state is gone for later orders until the next state.
    const second = await api.call('POST', '/orders?exchange=polymarket', {
      account: 'b',
      body: order({ side: 'buy', price: 0.52, size: 5, params: { order_type: 'ioc' } }),
    });
    assert.equal(second.body.filled, 0);
    assert.equal(second.body.status, 'cancelled');
    // fok: all or nothing.
    const fok = await api.call('POST', '/orders?exchange=polymarket', {
      account: 'b',
      body: order({ side: 'buy', price: 0.55, size: 100, params: { order_type: 'fok' } }),
    });
    assert.equal(fok.body.status, 'cancelled');
    assert.equal(fok.body.filled, 0);
    const broke = await api.call('POST', '/orders?exchange=polymarket', {
      account: 'c',
      body: order({ side: 'buy', price: 0.5, size: 1_000_000 }),
    });
    assert.equal(broke.status, 402);
    assert.equal(broke.body.code, 'insufficient_funds');

    // Resting orders wait behind the size recorded ahead of them.
    const resting = await api.call('POST', '/orders?exchange=polymarket', {
      account: 'a',
      body: order({ side: 'buy', price: 0.5, size: 10 }),
    });
    assert.equal(resting.body.status, 'open');
    const gtd = await api.call('POST', '/orders?exchange=polymarket', {
      account: 'a',
      body: order({
        side: 'buy',
        price: 0.49,
        size: 5,
        params: { order_type: 'gtd', expiration: T0 / 1000 + 3 },
      }),
    });
    assert.equal(gtd.body.status, 'open', JSON.stringify(gtd.body));
    const get = async (id: string) =>
      (await api.call('GET', `/orders/${id}?exchange=polymarket`, { account: 'a' })).body;

    await session.driver.step(); // T0+1s: 20 traded at 0.50, 30 were ahead: 10 still ahead
    assert.equal((await get(resting.body.id)).filled, 0);
    await session.driver.step(); // T0+2s: 15 traded at 0.50: 10 pass the queue, 5 fill us
    let r = await get(resting.body.id);
    assert.deepEqual([r.status, r.filled], ['partially_filled', 5]);
    await session.driver.step(); // T0+2.5s (kalshi)
    await session.driver.step(); // T0+3s: the gtd order expires; the book shows 5 left at 0.50 (queue ≤ 5)
    assert.equal((await get(gtd.body.id)).status, 'expired');
    book = await api.call('GET', `/orderbook?${PM}`);
    assert.deepEqual(book.body.bids[0], [0.5, 5]);
    assert.equal(book.body.timestamp, new Date(T0 + 3_000).toISOString());
    const trades = await api.call('GET', `/trades?${PM}`);
    assert.deepEqual(
      trades.body.trades.map((t: Json) => t.id),
      ['t2', 't1'],
    );
    const healthz: Json = await fetch(`${api.url}/healthz`).then((res) => res.json());
    assert.equal(healthz.mode, 'replay');
    assert.equal(healthz.replay.clock_ms, T0 + 3_000);
    assert.equal(healthz.replay.step, 4);

    await session.driver.step(); // T0+4s: a trade through 0.50 (at 0.49) fills the rest
    r = await get(resting.body.id);
    assert.deepEqual([r.status, r.filled], ['filled', 10]);
    const makerFills = (await api.call('GET', '/fills?exchange=polymarket', { account: 'a' })).body.filter(
      (f: Json) => f.order_id === resting.body.id,
    );
    assert.deepEqual(makerFills.map((f: Json) => [f.price, f.size, f.is_taker, f.fee]).sort(), [
      [0.5, 5, false, 0],
      [0.5, 5, false, 0],
    ]);

    await session.driver.step(); // T0+5s: asks [0.54 x 25]
    const sell = await api.call('POST', '/orders?exchange=polymarket', {
      account: 'a',
      body: order({ side: 'sell', price: 0.54, size: 5 }),
    });
    assert.equal(sell.body.status, 'open');
    await session.driver.step(); // T0+6s: 7 bought at 0.54, 25 ahead: no fill
    assert.equal((await get(sell.body.id)).filled, 0);
    const cancelled = await api.call('DELETE', `/orders/${sell.body.id}?exchange=polymarket`, {
      account: 'a',
    });
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.equal((await get(sell.body.id)).status, 'cancelled');
    const positions = await api.call('GET', '/positions?exchange=polymarket', { account: 'a' });
    assert.equal(positions.body[0].size, 25);
  } finally {
    await session.stop();
  }
});

test('at the replay clock a book answers its last state before it; one with none yet answers 404, never a 500', async () => {
  const config = await sqliteRecording();
  // Kalshi's first recorded state is at T0-0.5s: at T0-0.8s only Polymarket's (T0-1s) is there.
  const session = await startReplay({
    config,
    fromMs: T0 - 800,
    toMs: T0 + 10_000,
    pace: { kind: 'backtest' },
    seed: 1,
  });
  try {
    const api = await serve(session);
    const pm = await api.call('GET', `/orderbook?${PM}`);
    assert.equal(pm.status, 200, JSON.stringify(pm.body));
    assert.equal(pm.body.timestamp, new Date(T0 - 1_000).toISOString());
    const kx = await api.call('GET', '/orderbook?svc_id=kalshi:KX-1&outcome=Yes');
    assert.equal(kx.status, 404, JSON.stringify(kx.body));
    assert.deepEqual([kx.body.code, kx.body.retryable], ['not_found', false]);
    assert.match(kx.body.error, /no state of this book was recorded at or before the replay clock/);

    // A WebSocket subscribe at the clock: Polymarket's seeded book at once; Kalshi's when its first state plays.
    const ws = await WsTestClient.open(`${api.url.replace('http', 'ws')}/ws`);
    ws.send({ type: 'auth', api_key: api.key });
    await ws.next((m) => m.type === 'auth_ok');
    ws.send({ type: 'subscribe', markets: [{ svc_id: 'polymarket:pm-1' }, { svc_id: 'kalshi:KX-1' }] });
    const pmBook = await ws.next((m) => m.type === 'orderbook' && m.exchange === 'polymarket');
    assert.equal(pmBook.exchange_ts_ms, T0 - 1_000);
    await session.driver.step(); // T0-0.5s: Kalshi's first state
    const kxBook = await ws.next((m) => m.type === 'orderbook' && m.exchange === 'kalshi');
    assert.equal(kxBook.exchange_ts_ms, T0 - 500);
    assert.ok(!ws.messages.some((m) => m.type === 'error'), JSON.stringify(ws.messages));
    assert.equal((await api.call('GET', '/orderbook?svc_id=kalshi:KX-1&outcome=Yes')).status, 200);
    ws.socket.close();
  } finally {
    await session.stop();
  }
});

test('a paper balance read right after a fill shows it (no balance cached across the replay)', async () => {
  const session = await startReplay({
    config: await sqliteRecording(),
    fromMs: T0,
    toMs: T0 + 10_000,
    pace: { kind: 'backtest' },
    seed: 2,
  });
  try {
    const api = await serve(session);
    const balance = async () =>
      (await api.call('GET', '/balance?exchange=polymarket', { account: 'b' })).body;
    const before = await balance();
    assert.equal(JSON.stringify(before).includes('"10000"'), true, JSON.stringify(before));
    const bought = await api.call('POST', '/orders?exchange=polymarket', {
      account: 'b',
      body: order({ side: 'buy', price: 0.52, size: 10, params: { order_type: 'ioc' } }),
    });
    assert.equal(bought.body.status, 'filled', JSON.stringify(bought.body));
    const after = await balance();
    assert.notDeepEqual(after, before);
    assert.equal(JSON.stringify(after).includes('"10000"'), false, JSON.stringify(after));
  } finally {
    await session.stop();
  }
});

/**
 * One scripted --fast run: a paced WebSocket reader whose customer stored paper account `a` (so its own fills come
 * on the user stream), orders at step 2, every frame and fill kept as text.
 */
async function fastRun(config: Config): Promise<{ frames: string[]; fills: string }> {
  const session = await startReplay({
    config,
    fromMs: T0,
    toMs: T0 + 10_000,
    pace: { kind: 'fast' },
    seed: 3,
  });
  const abort = new AbortController();
  try {
    const api = await serve(session);
    const played = session.driver.runPaced(abort.signal);
    for (const exchange of ['polymarket', 'kalshi']) {
      const onboarded = await api.call('POST', '/onboard', {
        body: { exchange, mode: 'self', account: 'a' },
      });
      assert.equal(onboarded.status, 200, JSON.stringify(onboarded.body));
    }
    const ws = await WsTestClient.open(`${api.url.replace('http', 'ws')}/ws`);
    const raw: string[] = [];
    ws.socket.on('message', (data: Buffer) => raw.push(data.toString()));
    ws.send({ type: 'auth', api_key: api.key });
    await ws.next((m) => m.type === 'auth_ok');
    ws.send({ type: 'subscribe', markets: [{ svc_id: 'polymarket:pm-1' }, { svc_id: 'kalshi:KX-1' }] });
    await ws.next((m) => m.type === 'orderbook' && m.exchange === 'kalshi');
    await ws.next((m) => m.type === 'orderbook' && m.exchange === 'polymarket');
    for (const exchange of ['polymarket', 'kalshi'])
      await ws.next((m) => m.type === 'fill_feed' && m.exchange === exchange && m.feed_state === 'healthy');
    ws.send({ type: 'replay_pace' });
    for (let from = 0; ; ) {
      const clock = await ws.next((m) => m.type === 'replay_clock', from);
      from = ws.messages.indexOf(clock) + 1;
      if (clock.step === 2) {
        await api.call('POST', '/orders?exchange=polymarket', {
          account: 'a',
          body: order({ side: 'buy', price: 0.56, size: 12, params: { order_type: 'ioc' } }),
        });
        // Rests at 0.50 until t3 trades through it at T0+4s: a maker fill on the user stream.
        await api.call('POST', '/orders?exchange=polymarket', {
          account: 'a',
          body: order({ side: 'buy', price: 0.5, size: 5 }),
        });
        await api.call('POST', '/orders?exchange=kalshi', {
          account: 'a',
          body: { market_id: 'KX-1', outcome: 'Yes', side: 'buy', price: 0.57, size: 4 },
        });
      }
      if (clock.done) break;
      ws.send({ type: 'replay_ack', step: clock.step });
    }
    await played;
    const fills = JSON.stringify([
      (await api.call('GET', '/fills?exchange=polymarket', { account: 'a' })).body,
      (await api.call('GET', '/fills?exchange=kalshi', { account: 'a' })).body,
    ]);
    ws.socket.close();
    // auth_ok names the run's own key and customer; everything after it is the replay's. Before pacing, the
    // subscription's snapshots and the two fill feeds' states come as each is ready (kept in sorted order); from
    // the first replay_clock on, the replay alone orders the frames.
    const frames = raw.filter((f) => !f.includes('"auth_ok"'));
    const paced = frames.findIndex((f) => f.includes('"replay_clock"'));
    return { frames: [...frames.slice(0, paced).sort(), ...frames.slice(paced)], fills };
  } finally {
    abort.abort();
    await session.stop();
  }
}

test('--fast: paced by replay_ack, and two runs give byte-identical streams and fills', async () => {
  const config = await sqliteRecording();
  const first = await fastRun(config);
  const second = await fastRun(config);
  const clocks = first.frames.filter((f) => f.includes('"replay_clock"')).map((f) => JSON.parse(f));
  // One replay_clock at pace, then one per recorded step (9 distinct milliseconds), the last one done.
  assert.deepEqual(
    clocks.map((c) => c.step),
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  );
  assert.equal(clocks.at(-1).done, true);
  assert.ok(first.frames.some((f) => f.includes('"kind":"trade"') && f.includes('"trade_id":"t4"')));
  assert.ok(JSON.parse(first.fills)[0].length > 0);
  // Every fill of account a reached its owner's WebSocket once, on the replay clock, as the sandbox sends fills.
  const restFills = (JSON.parse(first.fills) as Json[][]).flat();
  const wsFills = first.frames
    .map((f) => JSON.parse(f))
    .filter((m) => m.type === 'activity' && m.kind === 'fill');
  assert.deepEqual(wsFills.map((m) => m.fill_id).sort(), restFills.map((f) => f.fill_id).sort());
  for (const m of wsFills) {
    const f = restFills.find((x) => x.fill_id === m.fill_id);
    assert.deepEqual(
      [m.order_id, m.price, m.size, m.side, m.liquidity_role, m.fee, m.source_channel],
      [
        f.order_id,
        f.price,
        f.size,
        f.side,
        f.is_taker ? 'taker' : 'maker',
        f.fee,
        `${m.exchange}_user_stream`,
      ],
    );
    assert.equal(m.ingest_ts_ms, Date.parse(f.created_at));
  }
  assert.deepEqual([...new Set(wsFills.map((m) => m.liquidity_role))].sort(), ['maker', 'taker']);
  assert.deepEqual(second.frames, first.frames);
  assert.equal(second.fills, first.fills);
});

test('a recording in PostgreSQL (DATABASE_URL) replays to the same bytes as the same recording in SQLite', async () => {
  const pgConfig = await pgRecording();
  assert.ok(pgConfig.databaseUrl, 'the replay reads PostgreSQL');
  const fromPg = await fastRun(pgConfig);
  const fromSqlite = await fastRun(await sqliteRecording());
  assert.ok(fromPg.frames.some((f) => f.includes('"kind":"fill"')));
  assert.deepEqual(fromPg.frames, fromSqlite.frames);
  assert.equal(fromPg.fills, fromSqlite.fills);
});
