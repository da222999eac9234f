import { loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import type { ExchangeId } from '../domain/exchanges.js';
import { ownValue } from '../domain/own-key.js';
import { createLogger } from '../main.js';
import type { LoggerLike, VenueAdapter, VenueSession } from '../venues/port.js';
import { readCredentials } from './credentials-file.js';
import { LIVE_VENUE_FACTORIES } from './live-venues.js';

export interface VenueTarget {
  adapter: VenueAdapter;
  /** Every base URL the adapter talks to (REST and streams). */
  urls: string[];
  /** The user's credentials for it; in the sandbox, the simulator's funded paper account unless given. */
  session: VenueSession | null;
}

/** The flags every such command takes. */
export const VENUE_TARGET_FLAGS = {
  exchange: { type: 'string', multiple: true },
  credentials: { type: 'string' },
  sandbox: { type: 'boolean' },
  config: { type: 'string' },
  'log-level': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export interface VenueTargetValues {
  credentials?: string | undefined;
  sandbox?: boolean | undefined;
  config?: string | undefined;
  'log-level'?: string | undefined;
}

/**
 * Runs `body` on the exchanges `only` names (null: all), built from the command's flags: the configuration (no
 * database, no chain, silent logs unless asked), the venues, the credentials; every venue is closed afterwards.
 */
export async function withVenueTargets<T>(
  values: VenueTargetValues,
  only: readonly ExchangeId[] | null,
  body: (targets: VenueTarget[], config: Config, logger: LoggerLike) => Promise<T>,
): Promise<T> {
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
    return await body(await venueTargets(config, only, credentials, closers), config, logger);
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    logger.flush();
  }
}

async function venueTargets(
  config: Config,
  only: readonly ExchangeId[] | null,
  credentials: ReadonlyMap<ExchangeId, Record<string, string>>,
  closers: Array<() => Promise<unknown>>,
): Promise<VenueTarget[]> {
  const wanted = (id: ExchangeId) => only === null || only.includes(id);
  const session = (id: ExchangeId, fallback?: Record<string, string>): VenueSession | null => {
    const fields = credentials.get(id) ?? fallback;
    return fields ? { exchange: id, credentials: fields, source: 'per_request' } : null;
  };
  const targets: VenueTarget[] = [];
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
        session: session(id, running.account.credentials),
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
