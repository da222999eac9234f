// `omnibook sync`: one catalogue pass in the foreground, against the live exchanges or (--sandbox) the simulators.
// Progress goes to standard error, the summary to standard output. Ctrl-C stops at a page boundary with the cursor
// saved, so running the command again resumes.
import { mkdirSync } from 'node:fs';
import { loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { EXCHANGE_IDS, type ExchangeId } from '../domain/exchanges.js';
import { CatalogSync, type VenuePassResult } from '../ingestion/catalog-sync.js';
import { createLogger } from '../main.js';
import { openStore } from '../store/database.js';
import { EventsRepo } from '../store/events-repo.js';
import { MarketsRepo } from '../store/markets-repo.js';
import { PRIVATE_DIR_MODE } from '../store/private-file.js';
import { SyncStateRepo } from '../store/sync-state-repo.js';
import type { VenueAdapter } from '../venues/port.js';
import { VenueRegistry } from '../venues/registry.js';
import { parse, parseExchanges, UsageError } from './args.js';
import { LIVE_VENUE_FACTORIES } from './live-venues.js';
import { SyncProgress } from './sync-progress.js';

const USAGE = `usage: omnibook sync [--exchange ID[,ID…]] [--sandbox [--size N] [--seed N]] [--data-dir DIR] [--config FILE]
  Walks every market and event of each exchange into the database, resuming an interrupted pass.
  --exchange   only these exchanges (${EXCHANGE_IDS.join(', ')})
  --sandbox    sync the bundled simulators instead of the live exchanges
  --size N     propositions in the simulated world (with --sandbox)
  exit status: 0 when every exchange completed, 1 when one failed, 130 when interrupted
`;

export async function syncCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, {
    exchange: { type: 'string', multiple: true },
    sandbox: { type: 'boolean' },
    size: { type: 'string' },
    seed: { type: 'string' },
    'data-dir': { type: 'string' },
    config: { type: 'string' },
    'log-level': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const exchanges = parseExchanges(values.exchange);
  const size = optionalInt(values.size, '--size');
  const seed = optionalInt(values.seed, '--seed');
  if ((size !== undefined || seed !== undefined) && !values.sandbox) {
    throw new UsageError('--size and --seed need --sandbox');
  }
  const config = loadConfig({
    ...(values.config ? { file: values.config } : {}),
    overrides: {
      mode: values.sandbox ? 'sandbox' : 'serve',
      // JSON log lines would tear the progress display: warnings and errors only, unless asked.
      logLevel: (values['log-level'] as Config['logLevel'] | undefined) ?? 'warn',
      ...(values['data-dir'] ? { dataDir: values['data-dir'] } : {}),
    },
  });
  mkdirSync(config.dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const logger = createLogger(config.logLevel);
  const store = openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const closers: Array<() => Promise<unknown>> = [() => store.close()];
  const stopper = new AbortController();
  const onSignal = () => {
    if (stopper.signal.aborted) process.exit(130);
    process.stderr.write('\nstopping at the next page; the cursor is saved (Ctrl-C again to quit at once)\n');
    stopper.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    await store.migrate();
    const venues = await buildVenues(config, exchanges, { size, seed }, closers);
    const registry = new VenueRegistry(venues);
    const sync = new CatalogSync({
      venues: () => registry.list(),
      markets: new MarketsRepo(store.db, store.dialect),
      events: new EventsRepo(store.db),
      state: new SyncStateRepo(store.db),
      logger,
    });
    const ids = sync.exchanges();
    const progress = new SyncProgress(process.stderr, ids);
    progress.start();
    let results: VenuePassResult[];
    try {
      results = await sync.runAll({ signal: stopper.signal, onProgress: (p) => progress.update(p) });
    } finally {
      progress.stop();
    }
    process.stdout.write(summary(results));
    if (stopper.signal.aborted) return 130;
    return results.some((r) => r.error !== null) ? 1 : 0;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    for (const close of closers.reverse()) await close().catch(() => undefined);
    logger.flush();
  }
}

async function buildVenues(
  config: Config,
  only: readonly ExchangeId[] | null,
  world: { size: number | undefined; seed: number | undefined },
  closers: Array<() => Promise<unknown>>,
): Promise<VenueAdapter[]> {
  const wanted = (id: ExchangeId) => only === null || only.includes(id);
  const venues: VenueAdapter[] = [];
  if (config.mode === 'sandbox') {
    // Loaded only here: the simulators use development dependencies that a production install may omit.
    const { SIM_VENUE_LAUNCHERS } = await import('./sandbox-venues.js');
    for (const [id, launch] of Object.entries(SIM_VENUE_LAUNCHERS)) {
      if (!launch || !wanted(id as ExchangeId)) continue;
      const running = await launch(config, {
        ...(world.size !== undefined ? { size: world.size } : {}),
        ...(world.seed !== undefined ? { seed: world.seed } : {}),
      });
      closers.push(() => running.close());
      venues.push(running.adapter);
    }
    return venues;
  }
  for (const [id, build] of Object.entries(LIVE_VENUE_FACTORIES)) {
    if (!build || !wanted(id as ExchangeId)) continue;
    const adapter = build(config);
    closers.push(async () => adapter.close?.());
    venues.push(adapter);
  }
  return venues;
}

function optionalInt(raw: string | undefined, flag: string): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag}: '${raw}' is not a positive integer`);
  return n;
}

function summary(results: readonly VenuePassResult[]): string {
  const head = `${'exchange'.padEnd(11)} ${'markets'.padStart(9)} ${'events'.padStart(8)} ${'written'.padStart(9)} ${'seconds'.padStart(8)}  status`;
  const rows = results.map((r) => {
    const status = r.error
      ? `failed: ${r.error}`
      : r.aborted
        ? 'interrupted (resumes)'
        : r.resumed
          ? 'ok (resumed)'
          : 'ok';
    return `${r.exchange.padEnd(11)} ${String(r.markets).padStart(9)} ${String(r.events).padStart(8)} ${String(r.written).padStart(9)} ${r.seconds.toFixed(1).padStart(8)}  ${status}`;
  });
  return `${[head, ...rows].join('\n')}\n`;
}
