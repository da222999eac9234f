// Moves a replay through its recorded window: each step advances the clock to the next recorded millisecond, ends
// the gtd orders it reaches, applies that millisecond's trades and book states to the venues (paper fills first,
// then the streams), and waits until the streams' consumers have taken the step's messages. How fast steps follow
// each other is the caller's: `runAtSpeed` (N× recorded time), `runPaced` (--fast: as the paced readers
// acknowledge) or a backtest calling `step()` itself.
import type { ExchangeId } from '../domain/exchanges.js';
import type { ReplayClock } from '../domain/replay/replay-clock.js';
import type { ReplayWindow } from './recorded-window.js';
import type { ReplayVenue } from './replay-venue.js';
import type { WsPacer } from './ws-pacer.js';

export interface ReplayPosition {
  /** Steps taken so far, of `steps`. */
  step: number;
  steps: number;
  clockMs: number;
  done: boolean;
}

export class ReplayDriver {
  private next = 0;
  private readonly byBook: ReplayVenue[] = [];
  /** Book states and trades applied so far. */
  bookEvents = 0;
  tradeEvents = 0;

  constructor(
    private readonly window: ReplayWindow,
    private readonly clock: ReplayClock,
    private readonly venues: ReadonlyMap<ExchangeId, ReplayVenue>,
    private readonly pacer: WsPacer | null = null,
  ) {
    for (const b of window.books) {
      const venue = venues.get(b.instrument.exchange);
      if (venue) this.byBook[b.index] = venue;
    }
  }

  get position(): ReplayPosition {
    return {
      step: this.next,
      steps: this.window.steps.length,
      clockMs: this.clock.now(),
      done: this.next >= this.window.steps.length,
    };
  }

  /** Takes the next step; false (and the clock at the window's end) when there is none left. */
  async step(): Promise<boolean> {
    const step = this.window.steps[this.next];
    if (!step) {
      this.finish();
      return false;
    }
    // Whatever happened between steps (the fills of orders placed since the last one) is on the sockets before
    // this step's messages.
    await Promise.all([...this.venues.values()].map((v) => v.idle()));
    this.clock.advanceTo(step.tsMs);
    for (const venue of this.venues.values()) venue.expire(step.tsMs);
    for (const event of step.events) {
      const venue = this.byBook[event.book];
      if (!venue) continue;
      if (event.kind === 'trade') {
        venue.applyTrade(event.book, event.trade);
        this.tradeEvents += 1;
      } else {
        venue.applyBook(event.book, event.tsMs, event.state);
        this.bookEvents += 1;
      }
    }
    await Promise.all([...this.venues.values()].map((v) => v.idle()));
    this.next += 1;
    const done = this.next >= this.window.steps.length;
    if (done) this.finish();
    this.pacer?.stepDone(this.next, this.clock.now(), done);
    return true;
  }

  /** --fast: a step each time every paced reader has acknowledged the last one. */
  async runPaced(signal: AbortSignal): Promise<void> {
    if (!this.pacer) throw new Error('runPaced needs a pacer');
    while (!signal.aborted) {
      await this.pacer.ready(signal);
      if (signal.aborted || !(await this.step()) || this.position.done) return;
    }
  }

  /** --speed N: steps at N× the recorded time between them (wall-clock timers; never used by tests' assertions). */
  async runAtSpeed(speed: number, signal: AbortSignal): Promise<void> {
    let last = this.clock.now();
    for (;;) {
      const step = this.window.steps[this.next];
      if (!step || signal.aborted) break;
      const waitMs = Math.max(0, (step.tsMs - last) / speed);
      last = step.tsMs;
      if (waitMs > 0) await sleep(waitMs, signal);
      if (signal.aborted) return;
      await this.step();
    }
    this.finish();
  }

  private finish(): void {
    this.clock.advanceTo(this.window.toMs);
    for (const venue of this.venues.values()) venue.expire(this.window.toMs);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
