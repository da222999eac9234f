// Writes monthly request counters to the database on a timer; a failed write is retried on the next tick.
import type { BackgroundJob, JobState } from '../domain/background-job.js';
import type { AdmissionControl } from './admission/admission.js';

export class UsageFlushJob implements BackgroundJob {
  readonly name = 'usage-flush';
  private timer: NodeJS.Timeout | null = null;
  private current: JobState = { name: this.name, health: 'starting', last_run_at: null, last_error: null };
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly admission: AdmissionControl,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    if (this.timer) return;
    this.current = { ...this.current, health: 'running' };
    this.timer = setInterval(() => {
      this.running = this.tick();
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
    await this.tick();
    this.current = { ...this.current, health: 'stopped' };
  }

  state(): JobState {
    return this.current;
  }

  private async tick(): Promise<void> {
    try {
      await this.admission.flush();
      this.current = {
        ...this.current,
        health: this.timer ? 'running' : this.current.health,
        last_run_at: new Date().toISOString(),
        last_error: null,
      };
    } catch (error) {
      this.current = { ...this.current, health: 'degraded', last_error: (error as Error).message };
    }
  }
}
