// Issue 38 end to end: a sandbox server records a window (the top market of every simulator, with the simulators'
// house trades), `omnibook replay` serves it at --fast to a paced WebSocket client, and a backtest of the example
// market maker on the same window gives the same report twice.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { runBacktest } from '../../../src/cli/backtest/run-backtest.js';
import { loadConfig } from '../../../src/config/load.js';
import type { Config } from '../../../src/config/schema.js';
import { startReplay } from '../../../src/replay/replay-session.js';
import { type CatalogueServer, simControl, startCatalogueServer } from '../../support/catalogue.js';
import { waitFor } from '../../support/server.js';
import { WsTestClient } from '../../support/ws-client.js';

let cat: CatalogueServer;
let config: Config;
let fromMs = 0;
let toMs = 0;

before(async () => {
  cat = await startCatalogueServer(12, { config: { recorder: { enabled: true, topN: 1, intervalMs: 50 } } });
  const job = cat.server.runtime.bookRecorderJob;
  assert.ok(job, 'the recorder job runs');
  await job.refresh();
  const db = cat.server.runtime.store.db;
  const trades = async () =>
    Number(
      (
        await db
          .selectFrom('recorded_trades')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  for (let i = 0; i < 3; i++) {
    const seen = await trades();
    await waitFor(
      async () => {
        await simControl(cat, 'polymarket', 'POST', 'advance', { steps: 1 });
        return (await trades()) > seen;
      },
      20_000,
      'a recorded trade',
    );
  }
  await job.stop();
  const span = await db
    .selectFrom('book_snapshots')
    .select((eb) => [eb.fn.min('ts_ms').as('first'), eb.fn.max('ts_ms').as('last')])
    .executeTakeFirstOrThrow();
  const lastTrade = await db
    .selectFrom('recorded_trades')
    .select((eb) => eb.fn.max('ts_ms').as('last'))
    .executeTakeFirstOrThrow();
  fromMs = Number(span.first);
  toMs = Math.max(Number(span.last), Number(lastTrade.last)) + 1;
  config = loadConfig({
    env: {},
    overrides: {
      dataDir: cat.server.dataDir,
      host: '127.0.0.1',
      port: 0,
      logLevel: 'silent',
      websocket: { heartbeatMs: 600_000 },
    },
  });
});
after(async () => {
  await cat?.stop();
});

test('the recorded window replays at --fast to a paced client: every recorded trade, then done', async () => {
  const session = await startReplay({ config, fromMs, toMs, pace: { kind: 'fast' }, seed: 1 });
  const abort = new AbortController();
  try {
    assert.ok(session.window.trades > 0 && session.window.bookStates > 0);
    const url = await session.runtime.listen();
    const { key } = await session.runtime.keys.create({ name: 'e2e', tier: 'admin' });
    const played = session.driver.runPaced(abort.signal);
    const ws = await WsTestClient.open(`${url.replace('http', 'ws')}/ws`);
    ws.send({ type: 'auth', api_key: key });
    await ws.next((m) => m.type === 'auth_ok');
    const traded = new Set(
      session.window.steps.flatMap((s) => s.events.filter((e) => e.kind === 'trade').map((e) => e.book)),
    );
    const markets = [...traded].map((i) => {
      const b = session.window.books[i];
      return { svc_id: b?.market.svc_id ?? '', outcome: b?.instrument.outcome ?? '' };
    });
    ws.send({ type: 'subscribe', markets });
    ws.send({ type: 'replay_pace' });
    for (let from = 0; ; ) {
      const clock = await ws.next((m) => m.type === 'replay_clock', from);
      from = ws.messages.indexOf(clock) + 1;
      if (clock.done) break;
      ws.send({ type: 'replay_ack', step: clock.step });
    }
    await played;
    const heard = ws.messages.filter((m) => m.type === 'activity' && m.kind === 'trade').length;
    const recorded = session.window.steps
      .flatMap((s) => s.events)
      .filter((e) => e.kind === 'trade' && traded.has(e.book)).length;
    assert.equal(heard, recorded);
    const health = (await (await fetch(`${url}/healthz`)).json()) as {
      replay: { done: boolean; clock_ms: number };
    };
    assert.deepEqual([health.replay.done, health.replay.clock_ms], [true, toMs]);
    ws.socket.close();
  } finally {
    abort.abort();
    await session.stop();
  }
});

test('a backtest of the example market maker on the recorded window gives the same report twice', async () => {
  const run = () =>
    runBacktest({
      config,
      strategyPath: 'examples/strategies/market-maker.ts',
      fromMs,
      toMs,
      seed: 2,
      params: new Map([['size', '5']]),
    });
  const first = await run();
  const second = await run();
  assert.ok(first.report.steps > 0);
  assert.equal(JSON.stringify(second.report), JSON.stringify(first.report));
  assert.ok(second.png.equals(first.png));
});
