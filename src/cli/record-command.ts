// `omnibook record --exchange ID[,ID…] --out DIR [--credentials FILE] [--sandbox]`: the adapters' own read calls made
// once against each exchange, and their answers written as fixtures under DIR/<exchange>/ (src/cli/record/).
import { loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { EXCHANGE_IDS } from '../domain/exchanges.js';
import { createLogger, VERSION } from '../main.js';
import { parse, parseExchanges, UsageError } from './args.js';
import { recordExchange } from './record/recorder.js';
import { readCredentials, venueTargets } from './venue-targets.js';

const USAGE = `usage: omnibook record --exchange ID[,ID…] --out DIR [--credentials FILE] [--sandbox] [--config FILE]
  Makes the adapters' read calls once against each exchange (a catalogue page, an events page, one market, its
  book, price history and trades, a few seconds of its stream; with credentials the balance and positions) and
  writes each answer as a fixture in the layout of test/fixtures/: DIR/<exchange>/http_<method>_<operation>.json
  and ws_<type>.json, fields named as secrets redacted, and a README.md with each file's provenance.
  --exchange      the exchanges to record (${EXCHANGE_IDS.join(', ')})
  --credentials   a JSON file { "<exchange>": { <credential fields> } } for the account reads
  --sandbox       record the bundled simulators instead of the live exchanges
  exit status: 0 when every call was recorded, 1 when one failed (the others are still written)
`;

/** Stream frames are listened to this long. */
const STREAM_MS = 3_000;

export async function recordCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, {
    exchange: { type: 'string', multiple: true },
    out: { type: 'string' },
    credentials: { type: 'string' },
    sandbox: { type: 'boolean' },
    config: { type: 'string' },
    'log-level': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const only = parseExchanges(values.exchange);
  if (!only) throw new UsageError('--exchange is required (record one exchange at a time, or a list)');
  if (!values.out) throw new UsageError('--out DIR is required');
  const config = loadConfig({
    ...(values.config ? { file: values.config } : {}),
    overrides: {
      mode: values.sandbox ? 'sandbox' : 'serve',
      logLevel: (values['log-level'] as Config['logLevel'] | undefined) ?? 'silent',
      chain: { enabled: false },
    },
  });
  const credentials = values.credentials ? readCredentials(values.credentials) : new Map();
  const logger = createLogger(config.logLevel);
  const closers: Array<() => Promise<unknown>> = [];
  try {
    const targets = await venueTargets(config, only, credentials, closers);
    let failed = false;
    for (const target of targets) {
      const result = await recordExchange(target.adapter, target.session, {
        out: values.out,
        timeoutMs: config.venues.timeoutMs,
        streamMs: STREAM_MS,
        logger,
        version: VERSION,
        origin: config.mode === 'sandbox' ? 'the sandbox simulator' : 'live',
      });
      process.stdout.write(`${result.exchange}: ${result.files.length} files in ${result.dir}\n`);
      for (const failure of result.failures) process.stdout.write(`  not recorded: ${failure}\n`);
      failed ||= result.failures.length > 0;
    }
    return failed ? 1 : 0;
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    logger.flush();
  }
}
