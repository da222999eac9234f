// /healthz: the database, background jobs and venues, each with its own state; unhealthy when the database is.
import type { BackgroundJob, JobState } from '../domain/background-job.js';
import type { VenueRegistry } from '../venues/registry.js';

export interface HealthReport {
  status: 'ok' | 'degraded' | 'down';
  mode: string;
  uptime_s: number;
  database: { ok: boolean; dialect: string; error?: string };
  rate_limiter: { backend: string };
  workers: JobState[];
  venues: Array<{ exchange: string; name: string }>;
  /** Present when catalogue sync is configured. */
  catalogue?: CatalogueHealth;
}

export interface CatalogueExchangeHealth {
  markets_seen: number;
  last_full_at: string | null;
  /** A pass stopped part-way and will resume from its saved cursor. */
  cursor_pending: boolean;
  last_error: string | null;
}

export interface CatalogueHealth {
  /** This node holds the sync lease (the other nodes stand by). */
  leader: boolean;
  exchanges: Record<string, CatalogueExchangeHealth>;
}

export interface HealthDeps {
  mode: string;
  dialect: string;
  pingDatabase: () => Promise<void>;
  rateLimiterBackend: string;
  jobs: () => readonly BackgroundJob[];
  registry: VenueRegistry;
  startedAt: number;
  catalogue?: () => Promise<CatalogueHealth>;
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
    const degraded = workers.some((w) => w.health === 'degraded');
    return {
      status: !database.ok ? 'down' : degraded ? 'degraded' : 'ok',
      mode: this.deps.mode,
      uptime_s: Math.round((Date.now() - this.deps.startedAt) / 1000),
      database,
      rate_limiter: { backend: this.deps.rateLimiterBackend },
      workers,
      venues: this.deps.registry.list().map((v) => ({ exchange: v.descriptor.id, name: v.descriptor.name })),
      ...(catalogue ? { catalogue } : {}),
    };
  }
}
