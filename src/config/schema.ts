// The configuration schema: one TypeBox object is the type, the defaults and the validation of every setting.
import { type Static, Type } from 'typebox';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const ConfigSchema = Type.Object({
  mode: Type.Union([Type.Literal('serve'), Type.Literal('sandbox')]),
  host: Type.String({ minLength: 1 }),
  port: Type.Integer({ minimum: 0, maximum: 65535 }),
  dataDir: Type.String({ minLength: 1 }),
  /** PostgreSQL connection string; when absent the embedded SQLite file under dataDir is used. */
  databaseUrl: Type.Optional(Type.String({ minLength: 1 })),
  /** Redis connection string; when absent rate limits and counters are in-process. */
  redisUrl: Type.Optional(Type.String({ minLength: 1 })),
  /** When set, an admin-tier key with exactly this value is ensured at start. */
  adminKey: Type.Optional(Type.String({ minLength: 16 })),
  logLevel: Type.Enum(LOG_LEVELS),
  /** Log one line per request at info level (off by default: each line costs throughput). */
  accessLog: Type.Boolean(),
  http: Type.Object({
    bodyLimitBytes: Type.Integer({ minimum: 1024 }),
    requestTimeoutMs: Type.Integer({ minimum: 0 }),
    trustProxy: Type.Boolean(),
  }),
  auth: Type.Object({
    /** How long a verified key stays cached in memory; bounds how late a revocation takes effect. */
    keyCacheTtlMs: Type.Integer({ minimum: 0 }),
  }),
  usage: Type.Object({
    /** How often monthly request counters are written to the database. */
    flushIntervalMs: Type.Integer({ minimum: 50 }),
  }),
  /** After SIGTERM, how long new requests get 503 before the listener closes. */
  shutdownDrainMs: Type.Integer({ minimum: 0 }),
  shutdownGraceMs: Type.Integer({ minimum: 0 }),
});

export type Config = Static<typeof ConfigSchema>;

export const DEFAULT_CONFIG: Config = {
  mode: 'serve',
  host: '127.0.0.1',
  port: 8080,
  dataDir: './data',
  logLevel: 'info',
  accessLog: false,
  http: { bodyLimitBytes: 1_048_576, requestTimeoutMs: 30_000, trustProxy: false },
  auth: { keyCacheTtlMs: 1_000 },
  usage: { flushIntervalMs: 5_000 },
  shutdownDrainMs: 200,
  shutdownGraceMs: 10_000,
};
