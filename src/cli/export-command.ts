// `omnibook export --from T0 --to T1 [--exchange X] --out FILE`: writes a recorded window (book states, trades, the
// books and catalogue rows a replay serves them with) to a versioned, gzip-compressed, checksummed archive that
// `omnibook import` reads on another machine (docs/replay-format.md).
import { loadConfig } from '../config/load.js';
import { isExchangeId } from '../domain/exchanges.js';
import { VERSION } from '../main.js';
import { exportWindow } from '../store/archive/export-window.js';
import { openStore } from '../store/database.js';
import { parse, UsageError } from './args.js';
import { parseTimeArg } from './time-arg.js';

const HELP = `usage: omnibook export --from T0 --to T1 [--exchange X] --out FILE [--data-dir DIR | --database-url URL]

Writes the recorder's window T0..T1 (both inclusive; ISO 8601 or Unix seconds) to FILE: every recorded book of
the window (of exchange X only, with --exchange) with its state when the window opens and every state and public
trade inside it, and the catalogue rows of those markets. The file is gzip-compressed JSON lines with a format
version and a sha256 of its content (docs/replay-format.md), owner-only (0600). Read from the configured store
(DATABASE_URL or --database-url, else the SQLite file in --data-dir).
`;

export async function exportCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, {
    from: { type: 'string' },
    to: { type: 'string' },
    exchange: { type: 'string' },
    out: { type: 'string' },
    'data-dir': { type: 'string' },
    'database-url': { type: 'string' },
    config: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const fromMs = parseTimeArg('from', values.from);
  const toMs = parseTimeArg('to', values.to);
  if (toMs < fromMs) throw new UsageError('--to is before --from');
  if (!values.out) throw new UsageError('--out FILE is required (omnibook export --help)');
  const exchange = values.exchange ?? null;
  if (exchange !== null && !isExchangeId(exchange))
    throw new UsageError(
      `--exchange must be polymarket, kalshi, limitless, opinion or predictfun, not ${exchange}`,
    );
  const store = openConfiguredStore(values);
  try {
    await store.migrate();
    const result = await exportWindow(store.db, { fromMs, toMs, exchange }, values.out, VERSION);
    const c = result.counts;
    process.stdout.write(
      `wrote ${values.out} (${result.bytes} bytes, sha256 ${result.sha256}): ${c.book} books, ${c.snapshot} states, ` +
        `${c.trade} trades, ${c.market} markets, ${c.event} events\n`,
    );
    return 0;
  } finally {
    await store.close();
  }
}

/** The store a data command works on: --database-url, else the config's (DATABASE_URL or the data dir's SQLite). */
export function openConfiguredStore(values: {
  'data-dir'?: string | undefined;
  'database-url'?: string | undefined;
  config?: string | undefined;
}) {
  const config = loadConfig({
    ...(values.config ? { file: values.config } : {}),
    overrides: {
      ...(values['data-dir'] ? { dataDir: values['data-dir'] } : {}),
      ...(values['database-url'] ? { databaseUrl: values['database-url'] } : {}),
    },
  });
  return openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
}
