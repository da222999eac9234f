// `omnibook doctor [--exchange ID[,ID…]] [--credentials FILE] [--json] [--sandbox]`: the live check of
// src/cli/doctor/doctor.ts for each exchange, as a table on standard output (or JSON), exit 1 when a check failed.
// `--sandbox` runs it against the bundled simulators on loopback (what the tests do).
import { EXCHANGE_IDS } from '../domain/exchanges.js';
import { parse, parseExchanges } from './args.js';
import { DOCTOR_DEFAULTS, type ExchangeReport, runDoctor } from './doctor/doctor.js';
import { VENUE_TARGET_FLAGS, withVenueTargets } from './venue-targets.js';

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
  const { values } = parse(argv, { ...VENUE_TARGET_FLAGS, json: { type: 'boolean' } });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  return withVenueTargets(values, parseExchanges(values.exchange), async (targets, _config, logger) => {
    const reports = await runDoctor(targets, { ...DOCTOR_DEFAULTS, logger });
    process.stdout.write(values.json ? `${JSON.stringify(reports, null, 2)}\n` : table(reports));
    return reports.every((r) => r.ok) ? 0 : 1;
  });
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
