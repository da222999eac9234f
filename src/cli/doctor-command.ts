// `omnibook doctor [--exchange ID[,ID…]] [--credentials FILE] [--json] [--sandbox]`: the live check of
// src/cli/doctor/doctor.ts for each exchange, as a table on standard output (or JSON), exit 1 when a check failed.
// `--sandbox` runs it against the bundled simulators on loopback (what the tests do).
import { loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { EXCHANGE_IDS } from '../domain/exchanges.js';
import { createLogger } from '../main.js';
import { parse, parseExchanges } from './args.js';
import { DOCTOR_DEFAULTS, type ExchangeReport, runDoctor } from './doctor/doctor.js';
import { readCredentials, venueTargets } from './venue-targets.js';

const USAGE = `usage: omnibook doctor [--exchange ID[,ID…]] [--credentials FILE] [--json] [--sandbox] [--config FILE]
  Checks each exchange from this machine, read-only: DNS, a TLS connection to every host, the clock against the
  venue's, one catalogue page, one order book and one stream message decoded, and with credentials one
  authenticated read.
  --exchange      only these exchanges (${EXCHANGE_IDS.join(', ')})
  --credentials   a JSON file { "<exchange>": { <credential fields> } } (the X-Exchange-Credentials fields; the
                  sandbox's sandbox-accounts.json works as it is); values are never printed
  --json          the reports as JSON instead of a table
  --sandbox       check the bundled simulators instead of the live exchanges (offline)
  exit status: 0 when every check passed or was skipped, 1 when one failed
`;

export async function doctorCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, {
    exchange: { type: 'string', multiple: true },
    credentials: { type: 'string' },
    json: { type: 'boolean' },
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
  const config = loadConfig({
    ...(values.config ? { file: values.config } : {}),
    overrides: {
      mode: values.sandbox ? 'sandbox' : 'serve',
      logLevel: (values['log-level'] as Config['logLevel'] | undefined) ?? 'silent',
      // The doctor opens no database and no chain.
      chain: { enabled: false },
    },
  });
  const credentials = values.credentials ? readCredentials(values.credentials) : new Map();
  const logger = createLogger(config.logLevel);
  const closers: Array<() => Promise<unknown>> = [];
  try {
    const targets = await venueTargets(config, only, credentials, closers);
    const reports = await runDoctor(targets, { ...DOCTOR_DEFAULTS, logger });
    process.stdout.write(values.json ? `${JSON.stringify(reports, null, 2)}\n` : table(reports));
    return reports.every((r) => r.ok) ? 0 : 1;
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    logger.flush();
  }
}

function table(reports: readonly ExchangeReport[]): string {
  const rows = reports.flatMap((r) =>
    r.checks.map((c) => [r.exchange, c.check, c.result, `${c.ms} ms`, c.detail.replace(/\s+/g, ' ')]),
  );
  const head = ['exchange', 'check', 'result', 'time', 'detail'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  const failed = reports.filter((r) => !r.ok).map((r) => r.exchange);
  const verdict = failed.length === 0 ? 'all checks passed' : `failed: ${failed.join(', ')}`;
  return `${[line(head), ...rows.map(line), '', verdict].join('\n')}\n`;
}
