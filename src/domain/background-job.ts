// The shape every background worker exposes so /healthz and /metrics can report it and shutdown can stop it.
export type JobHealth = 'starting' | 'running' | 'degraded' | 'stopped';

export interface JobState {
  name: string;
  health: JobHealth;
  last_run_at: string | null;
  last_error: string | null;
}

export interface BackgroundJob {
  readonly name: string;
  start(): void;
  stop(): Promise<void>;
  state(): JobState;
}
