// `omnibook record --exchange ID[,ID…] --out DIR [--credentials FILE] [--sandbox]`: the adapters' own read calls made
// once against each exchange, and their answers written as fixtures under DIR/<exchange>/ (src/cli/record/).
import { EXCHANGE_IDS } from '../domain/exchanges.js';
import { VERSION } from '../main.js';
import { parse, parseExchanges, UsageError } from './args.js';
import { recordExchange } from './record/recorder.js';
import { VENUE_TARGET_FLAGS, withVenueTargets } from './venue-targets.js';

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
  const { values } = parse(argv, { ...VENUE_TARGET_FLAGS, out: { type: 'string' } });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const only = parseExchanges(values.exchange);
  if (!only) throw new UsageError('--exchange is required (record one exchange at a time, or a list)');
  const out = values.out;
  if (!out) throw new UsageError('--out DIR is required');
  return withVenueTargets(values, only, async (targets, config, logger) => {
    let failed = false;
    for (const target of targets) {
      const result = await recordExchange(target.adapter, target.session, {
        out,
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
  });
}
