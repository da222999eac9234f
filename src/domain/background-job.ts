// The shape every background worker exposes so /healthz and /metrics can report it and shutdown can stop it.
import { type Static, Type } from 'typebox';

export const JobHealth = Type.Enum(['starting', 'running', 'degraded', 'stopped']);
export type JobHealth = Static<typeof JobHealth>;

export const JobState = Type.Object({
  name: Type.String(),
  health: JobHealth,
  last_run_at: Type.Union([Type.String(), Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()]),
});
export type JobState = Static<typeof JobState>;

export interface BackgroundJob {
  readonly name: string;
  start(): void;
  stop(): Promise<void>;
  state(): JobState;
}
