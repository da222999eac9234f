// Loads configuration as defaults < JSON file < environment < explicit overrides (CLI flags), then validates it.
// This is the only module that reads process.env; everything else receives a Config.
import { readFileSync } from 'node:fs';
import Value from 'typebox/value';
import { type Config, ConfigSchema, DEFAULT_CONFIG } from './schema.js';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

export type DeepPartial<T> = {
  [K in keyof T]?: NonNullable<T[K]> extends object ? DeepPartial<NonNullable<T[K]>> : T[K];
};

export interface LoadConfigOptions {
  env?: Record<string, string | undefined>;
  /** Path of a JSON config file; OMNIBOOK_CONFIG in env is used when absent. */
  file?: string;
  overrides?: DeepPartial<Config>;
}

export function loadConfig(options: LoadConfigOptions = {}): Config {
  const env = options.env ?? process.env;
  const filePath = options.file ?? env.OMNIBOOK_CONFIG;
  const fromFile = filePath ? readJsonFile(filePath) : {};
  const merged = [fromFile, fromEnv(env), options.overrides ?? {}].reduce<Record<string, unknown>>(
    (acc, layer) => deepMerge(acc, layer as Record<string, unknown>),
    structuredClone(DEFAULT_CONFIG) as unknown as Record<string, unknown>,
  );
  const problems = [...Value.Errors(ConfigSchema, merged)].map(
    (e) => `${e.instancePath || '/'}: ${e.message}`,
  );
  if (problems.length > 0) throw new ConfigError(problems);
  return merged as unknown as Config;
}

/** The variables read below; a literal type, so `env[name]` never looks up an arbitrary string. */
type EnvName =
  | 'PORT'
  | 'HOST'
  | 'OMNIBOOK_DATA_DIR'
  | 'DATABASE_URL'
  | 'REDIS_URL'
  | 'OMNIBOOK_REDIS_PREFIX'
  | 'OMNIBOOK_ADMIN_KEY'
  | 'LOG_LEVEL'
  | 'OMNIBOOK_ACCESS_LOG'
  | 'OMNIBOOK_CATALOGUE_SYNC'
  | 'OMNIBOOK_RECORDER'
  | 'OMNIBOOK_RECORDER_BOOKS'
  | 'OMNIBOOK_RECORDER_TOP_N'
  | 'OMNIBOOK_RECORDER_INTERVAL_MS'
  | 'OMNIBOOK_RECORDER_RETENTION_DAYS'
  | 'OPINION_API_KEY'
  | 'POLYGON_RPC_URL'
  | 'KALSHI_STREAM_API_KEY_ID'
  | 'KALSHI_STREAM_PRIVATE_KEY'
  | 'PREDICTFUN_API_KEY'
  | 'OMNIBOOK_MASTER_KEY'
  | 'OMNIBOOK_MASTER_KEY_PREVIOUS'
  | 'OMNIBOOK_FEE_ESCROW_OPERATOR_KEY';

function fromEnv(env: Record<string, string | undefined>): DeepPartial<Config> {
  const out: DeepPartial<Config> = {};
  const str = (name: EnvName) => {
    const v = env[name];
    return v === undefined || v === '' ? undefined : v;
  };
  const port = str('PORT');
  if (port !== undefined) out.port = toInt(port, 'PORT');
  const host = str('HOST');
  if (host !== undefined) out.host = host;
  const dataDir = str('OMNIBOOK_DATA_DIR');
  if (dataDir !== undefined) out.dataDir = dataDir;
  const databaseUrl = str('DATABASE_URL');
  if (databaseUrl !== undefined) out.databaseUrl = databaseUrl;
  const redisUrl = str('REDIS_URL');
  if (redisUrl !== undefined) out.redisUrl = redisUrl;
  const redisPrefix = str('OMNIBOOK_REDIS_PREFIX');
  if (redisPrefix !== undefined) out.redisPrefix = redisPrefix;
  const adminKey = str('OMNIBOOK_ADMIN_KEY');
  if (adminKey !== undefined) out.adminKey = adminKey;
  const logLevel = str('LOG_LEVEL');
  if (logLevel !== undefined) out.logLevel = logLevel as Config['logLevel'];
  const accessLog = str('OMNIBOOK_ACCESS_LOG');
  if (accessLog !== undefined) out.accessLog = accessLog === '1' || accessLog === 'true';
  const catalogueSync = str('OMNIBOOK_CATALOGUE_SYNC');
  if (catalogueSync !== undefined)
    out.catalogue = { sync: catalogueSync !== '0' && catalogueSync !== 'false' };
  const recorder: NonNullable<DeepPartial<Config>['recorder']> = {};
  const recorderOn = str('OMNIBOOK_RECORDER');
  if (recorderOn !== undefined) recorder.enabled = recorderOn !== '0' && recorderOn !== 'false';
  const recorderBooks = str('OMNIBOOK_RECORDER_BOOKS');
  if (recorderBooks !== undefined)
    recorder.books = recorderBooks
      .split(',')
      .map((b) => b.trim())
      .filter((b) => b.length > 0);
  const topN = str('OMNIBOOK_RECORDER_TOP_N');
  if (topN !== undefined) recorder.topN = toInt(topN, 'OMNIBOOK_RECORDER_TOP_N');
  const recorderInterval = str('OMNIBOOK_RECORDER_INTERVAL_MS');
  if (recorderInterval !== undefined)
    recorder.intervalMs = toInt(recorderInterval, 'OMNIBOOK_RECORDER_INTERVAL_MS');
  const retention = str('OMNIBOOK_RECORDER_RETENTION_DAYS');
  if (retention !== undefined) recorder.retentionDays = toInt(retention, 'OMNIBOOK_RECORDER_RETENTION_DAYS');
  if (Object.keys(recorder).length > 0) out.recorder = recorder;
  const opinionApiKey = str('OPINION_API_KEY');
  if (opinionApiKey !== undefined) out.venues = { ...out.venues, opinion: { apiKey: opinionApiKey } };
  const kalshiKeyId = str('KALSHI_STREAM_API_KEY_ID');
  const kalshiKey = str('KALSHI_STREAM_PRIVATE_KEY');
  if (kalshiKeyId !== undefined || kalshiKey !== undefined) {
    out.venues = { ...out.venues, kalshi: { streamApiKeyId: kalshiKeyId, streamPrivateKey: kalshiKey } };
  }
  const predictfunApiKey = str('PREDICTFUN_API_KEY');
  if (predictfunApiKey !== undefined)
    out.venues = { ...out.venues, predictfun: { apiKey: predictfunApiKey } };
  const polygonRpc = str('POLYGON_RPC_URL');
  if (polygonRpc !== undefined) out.chain = { rpcUrl: polygonRpc };
  const operatorKey = str('OMNIBOOK_FEE_ESCROW_OPERATOR_KEY');
  if (operatorKey !== undefined) out.builder = { escrow: { operatorKey } };
  const masterKey = str('OMNIBOOK_MASTER_KEY');
  const previousKeys = str('OMNIBOOK_MASTER_KEY_PREVIOUS');
  if (masterKey !== undefined || previousKeys !== undefined) {
    out.vault = {
      masterKey,
      previousMasterKeys: previousKeys
        ?.split(',')
        .map((k) => k.trim())
        .filter((k) => k.length > 0),
    };
  }
  return out;
}

function toInt(raw: string, name: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n)) throw new ConfigError([`${name}: '${raw}' is not an integer`]);
  return n;
}

function readJsonFile(path: string): Record<string, unknown> {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new ConfigError([`config file ${path}: ${(error as Error).message}`]);
  }
}

/**
 * `layer` over `base` as a new object. Keys go through a Map and Object.fromEntries: a config file's `__proto__`
 * key is then an ignored entry like any unknown one, where `base[key] = value` would have replaced the prototype
 * and let its fields show through as settings.
 */
function deepMerge(base: Record<string, unknown>, layer: Record<string, unknown>): Record<string, unknown> {
  const merged = new Map(Object.entries(base));
  for (const [key, value] of Object.entries(layer)) {
    if (value === undefined) continue;
    const current = merged.get(key);
    merged.set(key, isPlainObject(value) && isPlainObject(current) ? deepMerge(current, value) : value);
  }
  return Object.fromEntries(merged);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
