// The simulated WebSocket: command errors with the documented codes, book snapshot + deltas with per-subscription
// sequence numbers that rebuild the REST book exactly, the test-only sequence skip, unsubscribe/update, the
// private fill and user_orders channels, pongs, a stalled feed and dropped connections.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { type KalshiSim, startKalshiSim } from '../../../sim/kalshi/index.js';
import { waitFor } from '../../support/server.js';
import { type Account, account, call, control, type Json, liquid, signHeaders } from './client.js';

let sim: KalshiSim;
let acct: Account;
before(async () => {
  sim = await startKalshiSim({ seed: 21, size: 30 });
  acct = await account(sim);
});
after(() => sim.close());

class Client {
  readonly frames: Json[] = [];
  /** Payloads of the pongs received, in order. */
  readonly pongs: string[] = [];
  readonly ws: WebSocket;
  private id = 1;
  constructor(who: Account) {
    this.ws = new WebSocket(sim.wsUrl, { headers: signHeaders(who, 'GET', '/trade-api/ws/v2') });
    this.ws.on('message', (d) => this.frames.push(JSON.parse(String(d)) as Json));
    this.ws.on('pong', (d) => this.pongs.push(String(d)));
  }
  async open(): Promise<this> {
    await new Promise((resolve, reject) => {
      this.ws.once('open', resolve);
      this.ws.once('error', reject);
    });
    return this;
  }
  send(cmd: string, params?: Json): number {
    const id = this.id++;
    this.ws.send(JSON.stringify(params === undefined ? { id, cmd } : { id, cmd, params }));
    return id;
  }
  async next(pred: (f: Json) => boolean, what: string): Promise<Json> {
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const index = this.frames.findIndex(pred);
      if (index >= 0) return this.frames.splice(index, 1)[0] as Json;
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.fail(`no ${what}; got ${JSON.stringify(this.frames).slice(0, 400)}`);
  }
  /**
   * Frames on one connection arrive in order: once the answer to a command sent now is back, everything the
   * server sent before it has arrived too. Returns the frames received before that answer.
   */
  async settle(): Promise<Json[]> {
    const id = this.send('list_subscriptions');
    await this.next((f) => f.id === id && f.type === 'ok', 'the list_subscriptions answer');
    return this.frames.splice(0);
  }
  close(): void {
    this.ws.terminate();
  }
}

test('bad commands get the documented error codes', async () => {
  const c = await new Client(acct).open();
  try {
    const cases: Array<[string, Json | undefined, number]> = [
      ['subscribe', undefined, 2],
      ['subscribe', {}, 3],
      ['subscribe', { channels: ['nonsense'] }, 8],
      ['subscribe', { channels: ['orderbook_delta'] }, 14],
      ['unsubscribe', { sids: [999] }, 7],
      ['update_subscription', { sids: [1, 2], action: 'add_markets' }, 12],
      ['frobnicate', {}, 5],
    ];
    for (const [cmd, params, code] of cases) {
      const id = c.send(cmd, params);
      const err = await c.next((f) => f.type === 'error' && f.id === id, `error for ${cmd}`);
      assert.equal((err.msg as Json).code, code, `${cmd} ${JSON.stringify(params)}`);
    }
    c.ws.send('{not json');
    const err = await c.next((f) => f.type === 'error', 'error for malformed JSON');
    assert.equal((err.msg as Json).code, 1);
  } finally {
    c.close();
  }
});

test('snapshot then numbered deltas rebuild the REST book; a skipped number shows as a gap', async () => {
  const { ticker } = await liquid(sim);
  const c = await new Client(acct).open();
  try {
    c.send('subscribe', { channels: ['orderbook_delta'], market_ticker: ticker });
    const ack = await c.next((f) => f.type === 'subscribed', 'subscribed');
    const sid = (ack.msg as Json).sid as number;
    const snap = await c.next((f) => f.type === 'orderbook_snapshot', 'snapshot');
    assert.deepEqual([snap.sid, snap.seq], [sid, 1]);
    const local = {
      yes: new Map(((snap.msg as Json).yes_dollars_fp as string[][]).map(([p, s]) => [p, Number(s)])),
      no: new Map(((snap.msg as Json).no_dollars_fp as string[][]).map(([p, s]) => [p, Number(s)])),
    };
    await control(sim, 'POST', 'advance', { steps: 3 });
    // Every delta of the advance was sent before the answer to a command sent after it.
    let seq = 1;
    for (const f of (await c.settle()).filter((x) => x.type === 'orderbook_delta')) {
      assert.equal(f.seq, ++seq, 'one sequence number per message of the subscription');
      const m = f.msg as { side: 'yes' | 'no'; price_dollars: string; delta_fp: string };
      const side = local[m.side];
      const size = Math.round(((side.get(m.price_dollars) ?? 0) + Number(m.delta_fp)) * 100) / 100;
      if (size === 0) side.delete(m.price_dollars);
      else side.set(m.price_dollars, size);
    }
    assert.ok(seq > 1, 'deltas arrived');
    const rest = ((await call(sim, 'GET', `/markets/${ticker}/orderbook`)).body as { orderbook_fp: Json })
      .orderbook_fp;
    for (const s of ['yes', 'no'] as const) {
      assert.deepEqual(
        [...local[s]].sort(),
        (rest[`${s}_dollars`] as string[][]).map(([p, sz]) => [p, Number(sz)]).sort(),
        `${s} book rebuilt from the snapshot and deltas equals REST`,
      );
    }
    await fetch(`${sim.control}/__sim/kalshi/skip-seq`, {
      method: 'POST',
      body: JSON.stringify({ market_ticker: ticker }),
    });
    await control(sim, 'POST', 'advance', { steps: 1 });
    const gap = await c.next((f) => f.type === 'orderbook_delta', 'delta after skip');
    assert.equal(gap.seq, seq + 2, 'one sequence number skipped');
    const id = c.send('unsubscribe', { sids: [sid] });
    const unsub = await c.next((f) => f.type === 'unsubscribed', 'unsubscribed');
    assert.deepEqual([unsub.id, unsub.sid], [id, sid]);
  } finally {
    c.close();
  }
});

test('update_subscription adds markets (with snapshots) and get_snapshot answers with the command id', async () => {
  const tickers = (
    (await call(sim, 'GET', '/markets?status=open&limit=2')).body as { markets: Json[] }
  ).markets.map((m) => m.ticker as string);
  const c = await new Client(acct).open();
  try {
    c.send('subscribe', { channels: ['orderbook_delta'], market_ticker: tickers[0], use_yes_price: true });
    const sid = ((await c.next((f) => f.type === 'subscribed', 'subscribed')).msg as Json).sid;
    const first = await c.next((f) => f.type === 'orderbook_snapshot', 'snapshot');
    // With use_yes_price the NO ladder is priced as YES asks (recorded on the demo exchange).
    const rest = ((await call(sim, 'GET', `/markets/${tickers[0]}/orderbook`)).body as { orderbook_fp: Json })
      .orderbook_fp;
    const bestNo = Number((rest.no_dollars as string[][]).at(-1)?.[0]);
    assert.equal(
      Number(((first.msg as Json).no_dollars_fp as string[][])[0]?.[0]),
      Math.round((1 - bestNo) * 100) / 100,
    );
    const add = c.send('update_subscription', { sid, action: 'add_markets', market_tickers: [tickers[1]] });
    const ok = await c.next((f) => f.type === 'ok' && f.id === add, 'ok');
    assert.deepEqual((ok.msg as Json).market_tickers, tickers);
    const added = await c.next((f) => f.type === 'orderbook_snapshot', 'snapshot of the added market');
    assert.equal((added.msg as Json).market_ticker, tickers[1]);
    const get = c.send('update_subscription', {
      sids: [sid],
      action: 'get_snapshot',
      market_tickers: [tickers[0]],
    });
    const snap = await c.next((f) => f.type === 'orderbook_snapshot' && f.id === get, 'get_snapshot');
    assert.equal((snap.msg as Json).market_ticker, tickers[0]);
  } finally {
    c.close();
  }
});

test('fill and user_orders reach the owner; a delta the owner caused names its client_order_id', async () => {
  const { ticker, ask } = await liquid(sim);
  const c = await new Client(acct).open();
  const stranger = await new Client(await account(sim)).open();
  try {
    c.send('subscribe', { channels: ['fill', 'user_orders'] });
    c.send('subscribe', { channels: ['orderbook_delta', 'trade'], market_ticker: ticker });
    const strangerSub = stranger.send('subscribe', { channels: ['fill'] });
    await c.next((f) => f.type === 'orderbook_snapshot', 'snapshot');
    // The stranger listens before the order is placed, so a leaked fill would have somewhere to go.
    await stranger.next(
      (f) => f.type === 'subscribed' && f.id === strangerSub,
      "the stranger's subscription",
    );
    const clientOrderId = randomUUID();
    await call(sim, 'POST', '/portfolio/events/orders', {
      account: acct,
      body: {
        ticker,
        client_order_id: clientOrderId,
        side: 'bid',
        count: '1.00',
        price: ask.toFixed(4),
        time_in_force: 'immediate_or_cancel',
        self_trade_prevention_type: 'taker_at_cross',
      },
    });
    const fill = await c.next((f) => f.type === 'fill', 'fill');
    const msg = fill.msg as Json;
    assert.deepEqual(
      [
        msg.market_ticker,
        msg.is_taker,
        msg.count_fp,
        msg.yes_price_dollars,
        msg.client_order_id,
        msg.outcome_side,
        msg.book_side,
      ],
      [ticker, true, '1.00', ask.toFixed(4), clientOrderId, 'yes', 'bid'],
    );
    for (const key of [
      'trade_id',
      'order_id',
      'fee_cost',
      'post_position_fp',
      'purchased_side',
      'action',
      'ts',
      'ts_ms',
    ]) {
      assert.ok(key in msg, `fill.${key}`);
    }
    const order = await c.next((f) => f.type === 'user_order', 'user_order');
    assert.equal((order.msg as Json).client_order_id, clientOrderId);
    const delta = await c.next((f) => f.type === 'orderbook_delta', 'delta');
    assert.equal((delta.msg as Json).client_order_id, clientOrderId);
    const trade = await c.next((f) => f.type === 'trade', 'trade');
    assert.equal((trade.msg as Json).taker_outcome_side, 'yes');
    // The fill went out while the order was placed; anything for the stranger precedes this later answer.
    assert.deepEqual(
      (await stranger.settle()).filter((f) => f.type === 'fill'),
      [],
      'nobody else sees the fill',
    );
  } finally {
    c.close();
    stranger.close();
  }
});

test('pings are answered; a stalled feed answers nothing; ws/drop closes every connection', async () => {
  const c = await new Client(acct).open();
  const withheld = async () => ((await control(sim, 'GET', 'feed')) as { withheld: number }).withheld;
  const pongs = async (n: number) => {
    const deadline = Date.now() + 10_000;
    while (c.pongs.length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    return c.pongs;
  };
  try {
    c.ws.ping('live');
    assert.deepEqual(await pongs(1), ['live']);
    await control(sim, 'POST', 'faults', { stall_feed: true });
    const before = await withheld();
    c.ws.ping('stalled');
    // The simulator counts the pong it withheld: proof that it received this ping while stalled.
    await waitFor(async () => (await withheld()) > before || undefined, 10_000, 'the withheld pong');
    await control(sim, 'DELETE', 'faults');
    c.ws.ping('live again');
    // A late pong to the stalled ping would arrive before this one.
    assert.deepEqual(await pongs(2), ['live', 'live again'], 'a stalled feed does not even pong');
    const closed = new Promise((resolve) => c.ws.once('close', resolve));
    assert.ok(((await control(sim, 'POST', 'ws/drop', {})) as { dropped: number }).dropped >= 1);
    await closed;
  } finally {
    c.close();
  }
});
