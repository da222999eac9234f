// `omnibook backtest` on a recorded window: the example strategies run through the SDK against the replay server,
// and the same window, seed and strategy give the same report (and equity-curve PNG) twice — once through the
// command itself (a child process, --json) and once in process.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runBacktest } from '../../../src/cli/backtest/run-backtest.js';
import { loadConfig } from '../../../src/config/load.js';
import { openStore } from '../../../src/store/database.js';
import { standardRecording, T0, writeRecording } from '../../support/recording.js';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function recordingDir(): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'omnibook-recording-'));
  dirs.push(dataDir);
  const store = openStore({ dataDir });
  await store.migrate();
  const { books, links } = standardRecording();
  await writeRecording(store, books, links);
  await store.close();
  return dataDir;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

test('the market maker gives the same report twice: the command and in process', async () => {
  const dataDir = await recordingDir();
  const png = join(dataDir, 'equity.png');
  const cli = spawnSync(
    process.execPath,
    [
      'bin/omnibook.js',
      'backtest',
      'examples/strategies/market-maker.ts',
      '--from',
      new Date(T0).toISOString(),
      '--to',
      String(T0 + 10_000),
      '--seed',
      '5',
      '--param',
      'size=10',
      '--data-dir',
      dataDir,
      '--png',
      png,
      '--json',
      '--log-level',
      'silent',
    ],
    { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' }, timeout: 120_000 },
  );
  assert.equal(cli.status, 0, cli.stderr);
  const fromCli = JSON.parse(cli.stdout);
  assert.ok(readFileSync(png).subarray(0, 8).equals(PNG_SIGNATURE));

  const config = loadConfig({ env: {}, overrides: { dataDir, logLevel: 'silent' } });
  const params = new Map([['size', '10']]);
  const run = () =>
    runBacktest({
      config,
      strategyPath: 'examples/strategies/market-maker.ts',
      fromMs: T0,
      toMs: T0 + 10_000,
      seed: 5,
      params,
    });
  const first = await run();
  assert.deepEqual(first.report, fromCli);
  assert.equal(first.report.strategy, 'market-maker');
  assert.ok(first.report.fills > 0, JSON.stringify(first.report));
  assert.ok(first.report.maker_fills > 0);
  assert.ok(first.report.venues.length >= 1);
  // PnL is the sum of the markets' lines, and equity moved by it.
  assert.equal(
    first.report.markets.reduce((s, m) => s + Number(m.pnl), 0).toFixed(6),
    Number(first.report.pnl).toFixed(6),
  );
  const second = await run();
  assert.equal(JSON.stringify(second.report), JSON.stringify(first.report));
  assert.ok(second.png.equals(first.png));
});

test('the cross-venue spread strategy trades the recorded twins', async () => {
  const dataDir = await recordingDir();
  const config = loadConfig({ env: {}, overrides: { dataDir, logLevel: 'silent' } });
  const result = await runBacktest({
    config,
    strategyPath: 'examples/strategies/cross-venue-spread.ts',
    fromMs: T0,
    toMs: T0 + 10_000,
    seed: 1,
    params: new Map([['edge', '0.01']]),
  });
  const exchanges = result.report.markets.map((m) => m.exchange);
  assert.ok(exchanges.includes('polymarket') && exchanges.includes('kalshi'), JSON.stringify(result.report));
  assert.equal(result.report.taker_fills, result.report.fills);
});
