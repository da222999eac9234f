// `omnibook doctor [--exchange ID[,ID…]] [--credentials FILE] [--json] [--sandbox]`: the live check of
// src/cli/doctor/doctor.ts for each exchange, as a table on standard output (or JSON), exit 1 when a check failed.
// `--sandbox` runs it against the bundled simulators on loopback (what the tests do).
import { readFileSync } from 'node:fs';
import { loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { EXCHANGE_IDS, type ExchangeId, isExchangeId } from '../domain/exchanges.js';
import { ownValue } from '../domain/own-key.js';
import { createLogger } from '../main.js';
import type { VenueSession } from '../venues/port.js';
import { parse, parseExchanges, UsageError } from './args.js';
import { DOCTOR_DEFAULTS, type DoctorTarget, type ExchangeReport, runDoctor } from './doctor/doctor.js';
import { LIVE_VENUE_FACTORIES } from './live-venues.js';

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
    const targets = await buildTargets(config, only, credentials, closers);
    const reports = await runDoctor(targets, { ...DOCTOR_DEFAULTS, logger });
    process.stdout.write(values.json ? `${JSON.stringify(reports, null, 2)}\n` : table(reports));
    return reports.every((r) => r.ok) ? 0 : 1;
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    logger.flush();
  }
}

async function buildTargets(
  config: Config,
  only: readonly ExchangeId[] | null,
  credentials: ReadonlyMap<ExchangeId, Record<string, string>>,
  closers: Array<() => Promise<unknown>>,
): Promise<DoctorTarget[]> {
  const wanted = (id: ExchangeId) => only === null || only.includes(id);
  const session = (id: ExchangeId): VenueSession | null => {
    const fields = credentials.get(id);
    return fields ? { exchange: id, credentials: fields, source: 'per_request' } : null;
  };
  const targets: DoctorTarget[] = [];
  if (config.mode === 'sandbox') {
    // Loaded only here: the simulators use development dependencies that a production install may omit.
    const { SIM_VENUE_LAUNCHERS } = await import('./sandbox-venues.js');
    for (const [id, launch] of Object.entries(SIM_VENUE_LAUNCHERS) as Array<
      [ExchangeId, NonNullable<(typeof SIM_VENUE_LAUNCHERS)[ExchangeId]>]
    >) {
      if (!wanted(id)) continue;
      const running = await launch(config, {});
      closers.push(() => running.close());
      // A simulator serves its API and its control surface on one loopback origin.
      targets.push({
        adapter: running.adapter,
        urls: [running.control],
        session: session(id) ?? {
          exchange: id,
          credentials: running.account.credentials,
          source: 'per_request',
        },
      });
    }
    return targets;
  }
  for (const [id, build] of Object.entries(LIVE_VENUE_FACTORIES) as Array<
    [ExchangeId, NonNullable<(typeof LIVE_VENUE_FACTORIES)[ExchangeId]>]
  >) {
    if (!wanted(id)) continue;
    const adapter = build(config);
    closers.push(async () => adapter.close?.());
    targets.push({ adapter, urls: venueUrls(config, id), session: session(id) });
  }
  return targets;
}

/** Every URL among an exchange's settings (REST, streams, auxiliary APIs). */
function venueUrls(config: Config, id: ExchangeId): string[] {
  const settings = ownValue(config.venues, id) as Record<string, unknown> | undefined;
  return Object.values(settings ?? {}).filter(
    (v): v is string => typeof v === 'string' && /^(https?|wss?):\/\//.test(v),
  );
}

function readCredentials(path: string): Map<ExchangeId, Record<string, string>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`--credentials: cannot read ${path} as JSON (${(error as Error).message})`);
  }
  if (typeof parsed !== 'object' || parsed === null) throw new UsageError('--credentials: not a JSON object');
  const out = new Map<ExchangeId, Record<string, string>>();
  for (const [key, value] of Object.entries(parsed)) {
    if (!isExchangeId(key)) continue;
    // sandbox-accounts.json nests the fields under `credentials`.
    const fields = (value as { credentials?: unknown })?.credentials ?? value;
    if (typeof fields !== 'object' || fields === null) continue;
    out.set(
      key,
      Object.fromEntries(
        Object.entries(fields).filter((e): e is [string, string] => typeof e[1] === 'string'),
      ),
    );
  }
  return out;
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
