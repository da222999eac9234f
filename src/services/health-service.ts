// /healthz: the database, background jobs and venues (with their circuit breakers), each with its own state;
// unhealthy when the database is, degraded when a job is, a venue's circuit is not closed, or a venue answered in a
// format we could not read within the last DRIFT_RECENT_MS (the drift alarm: its latest paths, never values).
import { type Static, Type } from 'typebox';
import { type BackgroundJob, JobState } from '../domain/background-job.js';
import { CircuitReport, circuitReport } from '../domain/circuit-breaker.js';
import { ExchangeId } from '../domain/exchanges.js';
import type { VenueRegistry } from '../venues/registry.js';

export const CatalogueExchangeHealth = Type.Object({
  markets_seen: Type.Integer({ minimum: 0 }),
  last_full_at: Type.Union([Type.String(), Type.Null()]),
  cursor_pending: Type.Boolean({
    description: 'A pass stopped part-way and will resume from its saved cursor',
  }),
  last_error: Type.Union([Type.String(), Type.Null()]),
});
export type CatalogueExchangeHealth = Static<typeof CatalogueExchangeHealth>;

export const CatalogueHealth = Type.Object({
  leader: Type.Boolean({ description: 'This node holds the sync lease (the other nodes stand by)' }),
  exchanges: Type.Record(Type.String(), CatalogueExchangeHealth),
});
export type CatalogueHealth = Static<typeof CatalogueHealth>;

/** A replay's state (`omnibook replay`, docs/replay.md): the recorded clock answers are dated by, and its window. */
export const ReplayHealth = Type.Object({
  clock: Type.String({ description: 'The replay clock, ISO 8601' }),
  clock_ms: Type.Integer(),
  from: Type.String(),
  to: Type.String(),
  pace: Type.String({ description: '`fast` (paced by replay_ack), `speed N`, or `backtest`' }),
  step: Type.Integer({ minimum: 0, description: 'Recorded steps (distinct milliseconds) replayed so far' }),
  steps: Type.Integer({ minimum: 0 }),
  done: Type.Boolean(),
});
export type ReplayHealth = Static<typeof ReplayHealth>;

export const HealthReport = Type.Object({
  status: Type.Enum(['ok', 'degraded', 'down']),
  mode: Type.String(),
  uptime_s: Type.Integer({ minimum: 0 }),
  database: Type.Object({ ok: Type.Boolean(), dialect: Type.String(), error: Type.Optional(Type.String()) }),
  rate_limiter: Type.Object({ backend: Type.String() }),
  workers: Type.Array(JobState),
  venues: Type.Array(
    Type.Object({
      exchange: ExchangeId,
      name: Type.String(),
      circuit: Type.Optional(CircuitReport),
    }),
  ),
  catalogue: Type.Optional(CatalogueHealth),
  replay: Type.Optional(ReplayHealth),
  drift: Type.Object(
    {
      total: Type.Integer({
        minimum: 0,
        description: 'Venue payloads that failed their decoder since start',
      }),
      latest: Type.Array(
        Type.Object({
          exchange: ExchangeId,
          operation: Type.String(),
          path: Type.String({
            description: 'JSON pointer of the field that did not decode; array indices as *',
          }),
          count: Type.Integer({ minimum: 1 }),
          last_seen: Type.String(),
        }),
      ),
    },
    { description: 'The drift alarm: exchange answers this build could not read, newest first' },
  ),
});
export type HealthReport = Static<typeof HealthReport>;

/** Paths shown; a drift seen within DRIFT_RECENT_MS makes the node degraded. */
const DRIFT_LATEST = 10;
const DRIFT_RECENT_MS = 5 * 60_000;

export interface HealthDeps {
  mode: string;
  dialect: string;
  pingDatabase: () => Promise<void>;
  rateLimiterBackend: string;
  jobs: () => readonly BackgroundJob[];
  registry: VenueRegistry;
  startedAt: number;
  catalogue?: () => Promise<CatalogueHealth>;
  replay?: () => ReplayHealth;
}

export class HealthService {
  constructor(private readonly deps: HealthDeps) {}

  async report(): Promise<HealthReport> {
    let database: HealthReport['database'] = { ok: true, dialect: this.deps.dialect };
    try {
      await this.deps.pingDatabase();
    } catch (error) {
      database = { ok: false, dialect: this.deps.dialect, error: (error as Error).message };
    }
    const workers = this.deps.jobs().map((j) => j.state());
    // Catalogue detail comes from the database, which may be the thing that is down.
    const catalogue =
      database.ok && this.deps.catalogue ? await this.deps.catalogue().catch(() => undefined) : undefined;
    const circuits = new Map(
      this.deps.registry.circuits().map((c) => [c.exchange, circuitReport(c.breaker)]),
    );
    const drift = this.deps.registry.drift;
    const latest = drift.latest(DRIFT_LATEST);
    // A venue whose circuit is not closed is being refused, and one whose format changed is being answered 503: the
    // node serves, but not everything.
    const now = Date.now();
    const degraded =
      workers.some((w) => w.health === 'degraded') ||
      [...circuits.values()].some((c) => c.state !== 'closed') ||
      latest.some((e) => now - Date.parse(e.last_seen) < DRIFT_RECENT_MS);
    return {
      status: !database.ok ? 'down' : degraded ? 'degraded' : 'ok',
      mode: this.deps.mode,
      uptime_s: Math.round((Date.now() - this.deps.startedAt) / 1000),
      database,
      rate_limiter: { backend: this.deps.rateLimiterBackend },
      workers,
      venues: this.deps.registry.list().map((v) => {
        const circuit = circuits.get(v.descriptor.id);
        return { exchange: v.descriptor.id, name: v.descriptor.name, ...(circuit ? { circuit } : {}) };
      }),
      ...(catalogue ? { catalogue } : {}),
      ...(this.deps.replay ? { replay: this.deps.replay() } : {}),
      drift: { total: drift.total, latest },
    };
  }
}
