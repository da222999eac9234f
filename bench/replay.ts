// `npm run bench:replay`: replay throughput against the rate the recorder wrote the same window, in one run.
// A recording is written through the recorder's repositories (BENCH_BOOKS books, one state per book per recorder
// interval, config recorder.intervalMs = 1 s, for BENCH_SECONDS of recorded time, plus a trade every 5 s per book;
// 50-level books on a random walk), then replayed with --fast pacing to one WebSocket client that subscribes to
// every book and acknowledges each replay_clock as soon as it reads it. Figures: book events per second received by
// the client (wall time from its first replay_ack to the last replay_clock), the recording's own rate (book states
// per second of recorded time), their ratio, and CPU time per book event; BENCH_RUNS (default 3) runs give the
// spread. Printed, never asserted. Run it under `nice -n 10` on a shared machine.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { loadConfig } from '../src/config/load.js';
import type { BookLevel } from '../src/domain/book.js';
import { startReplay } from '../src/replay/replay-session.js';
import { openStore } from '../src/store/database.js';
import { binaryMarket, type RecordedBookSpec, T0, writeRecording } from '../test/support/recording.js';

const BOOKS = Number(process.env.BENCH_BOOKS ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 300);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const INTERVAL_MS = 1_000;

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function recording(): RecordedBookSpec[] {
  const rand = rng(7);
  return Array.from({ length: BOOKS }, (_, i) => {
    let mid = 300 + ((i * 37) % 400);
    const states = Array.from({ length: SECONDS }, (_, s) => {
      mid = Math.min(900, Math.max(100, mid + Math.round((rand() - 0.5) * 4)));
      const level = (k: number, side: 1 | -1): BookLevel => [
        (mid + side * (k + 1)) / 1000,
        Math.round(rand() * 50_000) / 100 + 1,
      ];
      return {
        tsMs: T0 + s * INTERVAL_MS + i,
        book: {
          bids: Array.from({ length: 50 }, (_, k) => level(k, -1)),
          asks: Array.from({ length: 50 }, (_, k) => level(k, 1)),
          tick_size: 0.001,
        },
      };
    });
    const trades = Array.from({ length: Math.floor(SECONDS / 5) }, (_, k) => ({
      tradeId: `t${i}-${k}`,
      tsMs: T0 + k * 5_000 + 500 + i,
      price: '0.5',
      size: '3',
      side: 'buy' as const,
      aggressorSide: 'buy' as const,
    }));
    return {
      market: binaryMarket('polymarket', `bench-${i}`, `Bench market ${i}?`),
      outcome: 'Yes' as const,
      states,
      trades,
    };
  });
}

async function once(
  dataDir: string,
): Promise<{ eventsPerS: number; recordedPerS: number; cpuUsPerEvent: number }> {
  const config = loadConfig({
    env: {},
    overrides: { dataDir, host: '127.0.0.1', port: 0, logLevel: 'warn', websocket: { heartbeatMs: 600_000 } },
  });
  // The window opens once every book has its first state, so each subscription starts with a snapshot.
  const session = await startReplay({
    config,
    fromMs: T0 + BOOKS,
    toMs: T0 + SECONDS * INTERVAL_MS,
    pace: { kind: 'fast' },
    seed: 1,
  });
  const abort = new AbortController();
  try {
    const url = await session.runtime.listen();
    const { key } = await session.runtime.keys.create({ name: 'bench', tier: 'admin' });
    const played = session.driver.runPaced(abort.signal);
    const ws = new WebSocket(`${url.replace('http', 'ws')}/ws`);
    await new Promise((r) => ws.once('open', r));
    let bookEvents = 0;
    let started = 0;
    let cpuStart = process.cpuUsage();
    const done = new Promise<number>((resolve) => {
      ws.on('message', (data: Buffer) => {
        const text = data.toString();
        if (text.startsWith('{"type":"orderbook')) {
          // Before the first replay_clock: the subscription's snapshots, not replayed events.
          if (started !== 0) bookEvents += 1;
          return;
        }
        if (text.startsWith('{"type":"replay_clock"')) {
          const m = JSON.parse(text) as { step: number; done: boolean };
          if (m.done) return resolve(performance.now());
          if (started === 0) {
            started = performance.now();
            cpuStart = process.cpuUsage();
          }
          ws.send(JSON.stringify({ type: 'replay_ack', step: m.step }));
        }
      });
    });
    ws.send(JSON.stringify({ type: 'auth', api_key: key }));
    ws.send(
      JSON.stringify({
        type: 'subscribe',
        markets: session.window.markets.map((m) => ({ svc_id: m.svc_id, depth: 50 })),
      }),
    );
    // Handled after the subscribe (a connection's messages are handled in order): pacing starts with the books held.
    ws.send(JSON.stringify({ type: 'replay_pace' }));
    const ended = await done;
    const cpu = process.cpuUsage(cpuStart);
    await played;
    ws.close();
    const span = (session.window.steps.at(-1)?.tsMs ?? T0) - (session.window.steps[0]?.tsMs ?? T0);
    return {
      eventsPerS: bookEvents / ((ended - started) / 1000),
      recordedPerS: session.window.bookStates / (span / 1000),
      cpuUsPerEvent: (cpu.user + cpu.system) / Math.max(1, bookEvents),
    };
  } finally {
    abort.abort();
    await session.stop();
  }
}

const dataDir = mkdtempSync(join(tmpdir(), 'omnibook-bench-replay-'));
try {
  const store = openStore({ dataDir });
  await store.migrate();
  await writeRecording(store, recording());
  await store.close();
  console.log(
    `recording: ${BOOKS} books × ${SECONDS} states (1 per ${INTERVAL_MS} ms) + ${BOOKS * Math.floor(SECONDS / 5)} trades`,
  );
  const runs = [];
  for (let i = 0; i < RUNS; i++) {
    const r = await once(dataDir);
    runs.push(r);
    console.log(
      `run ${i + 1}: replay ${r.eventsPerS.toFixed(0)} book events/s to one client at --fast; recorded ${r.recordedPerS.toFixed(1)}/s; ratio ${(r.eventsPerS / r.recordedPerS).toFixed(1)}×; ${r.cpuUsPerEvent.toFixed(0)} µs CPU per book event (server and client in one process)`,
    );
  }
  const ratios = runs.map((r) => r.eventsPerS / r.recordedPerS).sort((a, b) => a - b);
  console.log(
    `ratio replay/recorded: median ${ratios[Math.floor(ratios.length / 2)]?.toFixed(1)}×, min ${ratios[0]?.toFixed(1)}×, max ${ratios.at(-1)?.toFixed(1)}×`,
  );
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(0);
