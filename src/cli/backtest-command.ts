// `omnibook backtest STRATEGY.(ts|js) --from T0 --to T1 [--seed S] [--param k=v] [--png FILE] [--json]`: runs a
// strategy module on a recorded window (docs/replay.md) and prints its report; the equity curve goes to a PNG.
import { writeFileSync } from 'node:fs';
import { loadConfig } from '../config/load.js';
import { formatReport } from '../domain/replay/backtest-report.js';
import { EmptyWindowError, parseInstant } from '../replay/replay-session.js';
import { parse, SERVER_FLAGS, serverOverrides, UsageError } from './args.js';
import { runBacktest } from './backtest/run-backtest.js';

const FLAGS = {
  'data-dir': SERVER_FLAGS['data-dir'],
  config: SERVER_FLAGS.config,
  'log-level': SERVER_FLAGS['log-level'],
  help: SERVER_FLAGS.help,
  from: { type: 'string' },
  to: { type: 'string' },
  seed: { type: 'string' },
  cash: { type: 'string' },
  param: { type: 'string', multiple: true },
  png: { type: 'string' },
  json: { type: 'boolean' },
} as const;

const USAGE = `usage: omnibook backtest STRATEGY.(ts|js) --from T0 --to T1 [--seed S] [--param k=v ...] [--cash USD]
                         [--png FILE (default backtest-equity.png)] [--json] [--data-dir DIR] [--config FILE]

Replays the window recorded in --data-dir (or DATABASE_URL) and drives the strategy module's onStep after every
recorded step; prints PnL, fees, fills, exposure per market and venue and max drawdown (docs/replay.md).
`;

export async function backtestCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, FLAGS);
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const strategyPath = positionals[0];
  if (!strategyPath || positionals.length > 1)
    throw new UsageError(`one strategy module is needed\n\n${USAGE}`);
  const seed = values.seed === undefined ? 0 : Number(values.seed);
  if (!Number.isSafeInteger(seed)) throw new UsageError(`--seed: '${values.seed}' is not an integer`);
  if (values.cash !== undefined && !/^\d+(\.\d+)?$/.test(values.cash)) {
    throw new UsageError(`--cash: '${values.cash}' is not an amount`);
  }
  const params = new Map<string, string>();
  for (const p of values.param ?? []) {
    const at = p.indexOf('=');
    if (at <= 0) throw new UsageError(`--param: '${p}' is not k=v`);
    params.set(p.slice(0, at), p.slice(at + 1));
  }
  const config = loadConfig({
    ...(values.config ? { file: values.config } : {}),
    overrides: {
      ...serverOverrides({ 'data-dir': values['data-dir'], 'log-level': values['log-level'] ?? 'warn' }),
    },
  });
  let result: Awaited<ReturnType<typeof runBacktest>>;
  try {
    result = await runBacktest({
      config,
      strategyPath,
      fromMs: parseInstant('--from', values.from),
      toMs: parseInstant('--to', values.to),
      seed,
      params,
      ...(values.cash ? { startingCash: values.cash } : {}),
    });
  } catch (error) {
    if (error instanceof EmptyWindowError) throw new UsageError(error.message);
    throw error;
  }
  const pngPath = values.png ?? 'backtest-equity.png';
  writeFileSync(pngPath, result.png);
  process.stdout.write(
    values.json
      ? `${JSON.stringify(result.report, null, 2)}\n`
      : `${formatReport(result.report)}equity curve: ${pngPath}\n`,
  );
  return 0;
}
