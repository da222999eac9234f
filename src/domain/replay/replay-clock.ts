// The replay clock: the recorded time the replayed server answers as of. It only moves forward, and only when the
// replay driver moves it; everything that dates an answer in a replay reads it instead of the wall clock.
export class ReplayClock {
  constructor(private ms: number) {}

  /** Unix ms; a function so it can be handed around as `() => number`. */
  readonly now = (): number => this.ms;

  advanceTo(ms: number): void {
    if (ms > this.ms) this.ms = ms;
  }
}
