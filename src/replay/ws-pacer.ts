// `--fast` pacing by the readers' acknowledgements (docs/replay.md): after each step the driver sends every paced
// connection `replay_clock {step, clock_ms}` behind the step's book and trade messages, and moves on only when every
// paced connection has answered `replay_ack {step}` for it (or left). With nobody pacing, --fast waits for the first
// reader, so a window is not played to nobody before a client has subscribed.
import type { PacedReader, ReplayPacer } from '../realtime/replay-pacing.js';

export class WsPacer implements ReplayPacer {
  private readonly acked = new Map<PacedReader, number>();
  private step = 0;
  private clockMs: number;
  private done = false;
  private waiting: (() => void) | null = null;
  private readonly watching = new WeakSet<AbortSignal>();

  constructor(startMs: number) {
    this.clockMs = startMs;
  }

  join(reader: PacedReader): void {
    this.acked.set(reader, this.step);
    reader.send(this.frame());
    this.wake();
  }

  ack(reader: PacedReader, step: number): void {
    if (!this.acked.has(reader)) return;
    this.acked.set(reader, Math.min(step, this.step));
    this.wake();
  }

  leave(reader: PacedReader): void {
    this.acked.delete(reader);
    this.wake();
  }

  /** Tells every paced reader that `step` (at `clockMs`) is complete; `done` when it was the window's last. */
  stepDone(step: number, clockMs: number, done: boolean): void {
    this.step = step;
    this.clockMs = clockMs;
    this.done = done;
    const frame = this.frame();
    for (const reader of this.acked.keys()) reader.send(frame);
  }

  /** Resolves once there is a paced reader and every one of them has acknowledged the last step. */
  ready(signal: AbortSignal): Promise<void> {
    if (!this.watching.has(signal)) {
      this.watching.add(signal);
      signal.addEventListener('abort', () => this.wake(), { once: true });
    }
    return new Promise((resolve) => {
      const check = () => {
        if (
          signal.aborted ||
          (this.acked.size > 0 && [...this.acked.values()].every((s) => s >= this.step))
        ) {
          this.waiting = null;
          resolve();
          return;
        }
        this.waiting = check;
      };
      check();
    });
  }

  private wake(): void {
    this.waiting?.();
  }

  private frame(): string {
    return JSON.stringify({
      type: 'replay_clock',
      step: this.step,
      clock_ms: this.clockMs,
      clock: new Date(this.clockMs).toISOString(),
      done: this.done,
    });
  }
}
