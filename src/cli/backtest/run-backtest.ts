// Runs one backtest: a replay of the window (pace: the backtest itself), the strategy driven step by step through
// the SDK client against the replay server, the equity of the paper account marked after every step, and the
// report built from the paper fills (src/domain/replay/backtest-report.ts) with its equity-curve PNG.

import { basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DestinationStream } from 'pino';
import { OmnibookClient } from '../../../clients/typescript/src/index.js';
import type { Config } from '../../config/schema.js';
import { Decimal } from '../../domain/decimal.js';
import {
  type BacktestReport,
  buildReport,
  type EquityPoint,
  markKey,
} from '../../domain/replay/backtest-report.js';
import { lineChart } from '../../replay/line-chart.js';
import { startReplay } from '../../replay/replay-session.js';
import type { Strategy, StrategyContext, StrategyMarket, StrategyModule } from './strategy.js';

/** The paper account every backtest trades on, on each recorded exchange. */
export const BACKTEST_ACCOUNT = 'backtest';

export interface BacktestOptions {
  config: Config;
  strategyPath: string;
  fromMs: number;
  toMs: number;
  seed: number;
  params: ReadonlyMap<string, string>;
  startingCash?: string;
  logDestination?: DestinationStream;
  pgSchema?: string;
}

export interface BacktestResult {
  report: BacktestReport;
  equity: EquityPoint[];
  /** The equity curve as a PNG. */
  png: Buffer;
}

export async function loadStrategy(path: string, params: ReadonlyMap<string, string>): Promise<Strategy> {
  const mod = (await import(pathToFileURL(resolve(path)).href)) as { default?: StrategyModule };
  const exported = mod.default;
  const strategy = typeof exported === 'function' ? exported(params) : exported;
  if (!strategy || typeof strategy.onStep !== 'function') {
    throw new Error(`${path} has no default export with onStep (docs/replay.md, "Strategies")`);
  }
  return strategy;
}

export async function runBacktest(options: BacktestOptions): Promise<BacktestResult> {
  const strategy = await loadStrategy(options.strategyPath, options.params);
  const cash = options.startingCash ?? '10000';
  const session = await startReplay({
    config: { ...options.config, host: '127.0.0.1', port: 0 },
    fromMs: options.fromMs,
    toMs: options.toMs,
    pace: { kind: 'backtest' },
    seed: options.seed,
    startingCash: cash,
    ...(options.logDestination ? { logDestination: options.logDestination } : {}),
    ...(options.pgSchema ? { pgSchema: options.pgSchema } : {}),
  });
  try {
    const url = await session.runtime.listen();
    const { key } = await session.runtime.keys.create({ name: 'backtest', tier: 'admin' });
    const exchanges = [...session.venues.keys()];
    const client = new OmnibookClient({
      baseUrl: url,
      apiKey: key,
      credentials: Object.fromEntries(exchanges.map((id) => [id, { account: BACKTEST_ACCOUNT }])),
      retry: { maxRetries: 0 },
    });
    const markets: StrategyMarket[] = session.window.markets
      .map((m) => ({
        svc_id: m.svc_id,
        exchange: m.exchange,
        market_id: m.exchange_market_id,
        question: m.question,
        outcomes: session.window.books
          .filter((b) => b.market.svc_id === m.svc_id)
          .map(
            (b) => m.outcomes.find((o) => o.token_id === b.instrument.token_id)?.name ?? b.instrument.outcome,
          ),
      }))
      .sort((a, b) => (a.svc_id < b.svc_id ? -1 : a.svc_id > b.svc_id ? 1 : 0));
    const ctx: StrategyContext = {
      client,
      clock: { now: session.clock.now },
      markets,
      params: options.params,
    };
    const startEquity = Decimal.parse(cash).mul(Decimal.fromInt(exchanges.length));
    const equity: EquityPoint[] = [];
    const mark = (): Decimal => {
      let total = Decimal.ZERO;
      for (const venue of session.venues.values()) total = total.add(venue.equityOf(BACKTEST_ACCOUNT, cash));
      return total;
    };
    await strategy.start?.(ctx);
    const steps = session.window.steps.length;
    while (await session.driver.step()) {
      await strategy.onStep(ctx, { step: session.driver.position.step, steps, clockMs: session.clock.now() });
      equity.push({ tMs: session.clock.now(), equity: mark() });
    }
    await strategy.finish?.(ctx);
    equity.push({ tMs: session.clock.now(), equity: mark() });
    const fills = [...session.venues.values()].flatMap((v) =>
      v.fillLog
        .filter((f) => f.account === BACKTEST_ACCOUNT)
        .map((f) => ({
          exchange: f.exchange,
          marketId: f.fill.market_id,
          outcome: f.fill.outcome,
          side: f.fill.side,
          price: f.fill.price,
          size: f.fill.size,
          fee: f.fill.fee,
          isTaker: f.fill.is_taker,
        })),
    );
    const marks = new Map<string, Decimal | null>();
    for (const f of fills) {
      const venue = session.venues.get(f.exchange as never);
      marks.set(markKey(f.exchange, f.marketId, f.outcome), venue?.markOf(f.marketId, f.outcome) ?? null);
    }
    const report = buildReport({
      strategy: strategy.name ?? basename(options.strategyPath),
      fromMs: options.fromMs,
      toMs: options.toMs,
      seed: options.seed,
      steps,
      fills,
      marks,
      equity,
      startEquity,
    });
    const png = lineChart(
      [
        {
          label: 'equity USD',
          color: [30, 90, 200],
          points: equity.map((p) => [(p.tMs - options.fromMs) / 1000, p.equity.toNumber()] as const),
        },
      ],
      { title: `backtest ${report.strategy}`, xLabel: 'seconds into the window', yLabel: 'equity USD' },
    );
    return { report, equity, png };
  } finally {
    await session.stop();
  }
}
