// `omnibook replay --from T0 --to T1 [--speed N | --fast] [--seed S]`: the same server on a recorded window
// (docs/replay.md). Prints the API key and the `listening on` line, then plays the window: at N× recorded time, or
// (--fast) a step each time every paced WebSocket reader has acknowledged the last one.
import { loadConfig } from '../config/load.js';
import { EmptyWindowError, parseInstant, type ReplayPace, startReplay } from '../replay/replay-session.js';
import { parse, parseExchanges, SERVER_FLAGS, serverOverrides, UsageError } from './args.js';

const FLAGS = {
  ...SERVER_FLAGS,
  from: { type: 'string' },
  to: { type: 'string' },
  speed: { type: 'string' },
  fast: { type: 'boolean' },
  seed: { type: 'string' },
  cash: { type: 'string' },
  exchange: { type: 'string', multiple: true },
} as const;

const USAGE = `usage: omnibook replay --from T0 --to T1 [--speed N | --fast] [--seed S] [--exchange ID] [--cash USD]
                       [--data-dir DIR] [--port N] [--host H] [--config FILE] [--log-level L]

Serves the book states and trades recorded in --data-dir (or DATABASE_URL) between T0 and T1 (ISO 8601 or Unix ms)
through the same REST and WebSocket API, answering as of the replay clock; paper orders fill against the
recording (docs/replay.md). --speed N plays N× recorded time (default 1); --fast steps each time every paced
WebSocket client ({"type":"replay_pace"}) has acknowledged the last replay_clock ({"type":"replay_ack","step":k}).
`;

export async function replayCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, FLAGS);
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const pace = paceOf(values.speed, values.fast === true);
  const seed = values.seed === undefined ? 0 : Number(values.seed);
  if (!Number.isSafeInteger(seed)) throw new UsageError(`--seed: '${values.seed}' is not an integer`);
  if (values.cash !== undefined && !/^\d+(\.\d+)?$/.test(values.cash)) {
    throw new UsageError(`--cash: '${values.cash}' is not an amount`);
  }
  const config = loadConfig({
    ...(values.config ? { file: values.config } : {}),
    overrides: serverOverrides({ ...values, exchange: undefined }),
  });
  const exchanges = parseExchanges(values.exchange);
  let session: Awaited<ReturnType<typeof startReplay>>;
  try {
    session = await startReplay({
      config,
      fromMs: parseInstant('--from', values.from),
      toMs: parseInstant('--to', values.to),
      pace,
      seed,
      ...(exchanges ? { exchanges } : {}),
      ...(values.cash ? { startingCash: values.cash } : {}),
    });
  } catch (error) {
    if (error instanceof EmptyWindowError) throw new UsageError(error.message);
    throw error;
  }
  const { runtime, driver, window } = session;
  let url: string;
  try {
    url = await runtime.listen();
  } catch (error) {
    await session.stop();
    throw error;
  }
  const lines = [
    `Omnibook replay of ${new Date(window.fromMs).toISOString()} .. ${new Date(window.toMs).toISOString()}: ` +
      `${window.books.length} books, ${window.bookStates} book states, ${window.trades} trades, ${window.steps.length} steps`,
  ];
  if (runtime.config.adminKey) {
    lines.push('API key: the value of OMNIBOOK_ADMIN_KEY (admin tier)');
  } else {
    const { key } = await runtime.keys.create({ name: 'replay', tier: 'admin' });
    lines.push(`API key (admin tier): ${key}`);
  }
  lines.push('paper accounts: X-Exchange-Credentials {"account":"<any name>"} per exchange');
  process.stdout.write(`${lines.join('\n')}\nlistening on ${url}\n`);

  const abort = new AbortController();
  const play =
    pace.kind === 'fast'
      ? driver.runPaced(abort.signal)
      : driver.runAtSpeed(pace.kind === 'speed' ? pace.speed : 1, abort.signal);
  play.then(
    () => runtime.logger.info(driver.position, 'replay window played'),
    (err) => runtime.logger.error({ err }, 'replay failed'),
  );
  let signalled = false;
  const onSignal = () => {
    if (signalled) return;
    signalled = true;
    abort.abort();
    const force = setTimeout(() => process.exit(1), runtime.config.shutdownGraceMs);
    force.unref();
    session.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return new Promise<number>(() => undefined);
}

function paceOf(speed: string | undefined, fast: boolean): ReplayPace {
  if (fast && speed !== undefined) throw new UsageError('--speed and --fast exclude each other');
  if (fast) return { kind: 'fast' };
  if (speed === undefined) return { kind: 'speed', speed: 1 };
  const n = Number(speed);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--speed: '${speed}' is not a positive number`);
  return { kind: 'speed', speed: n };
}
