// Shared CLI flags (--port, --host, --data-dir, --config) mapped onto config overrides.
import { type ParseArgsConfig, parseArgs } from 'node:util';
import type { DeepPartial } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { EXCHANGE_IDS, type ExchangeId, isExchangeId } from '../domain/exchanges.js';

export const SERVER_FLAGS = {
  port: { type: 'string' },
  host: { type: 'string' },
  'data-dir': { type: 'string' },
  config: { type: 'string' },
  'log-level': { type: 'string' },
  /** sandbox: run without the local chain (approvals and CTF routes answer 503). */
  'no-chain': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export function parse<const O extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: O) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true as const, strict: true as const });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export function serverOverrides(values: Record<string, string | boolean | undefined>): DeepPartial<Config> {
  const out: DeepPartial<Config> = {};
  if (typeof values.port === 'string') {
    const port = Number(values.port);
    if (!Number.isInteger(port)) throw new UsageError(`--port: '${values.port}' is not an integer`);
    out.port = port;
  }
  if (typeof values.host === 'string') out.host = values.host;
  if (typeof values['data-dir'] === 'string') out.dataDir = values['data-dir'];
  if (values['no-chain'] === true) out.chain = { enabled: false };
  if (typeof values['log-level'] === 'string') out.logLevel = values['log-level'] as Config['logLevel'];
  return out;
}

/** `--exchange a,b --exchange c` → the ids, checked; null when the flag was not given (every exchange). */
export function parseExchanges(raw: string[] | undefined): ExchangeId[] | null {
  if (!raw || raw.length === 0) return null;
  const ids = raw.flatMap((r) => r.split(',')).map((s) => s.trim().toLowerCase());
  for (const id of ids) {
    if (!isExchangeId(id))
      throw new UsageError(`--exchange: unknown exchange '${id}' (${EXCHANGE_IDS.join(', ')})`);
  }
  return ids as ExchangeId[];
}
