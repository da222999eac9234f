// The interface a backtest strategy module implements (docs/replay.md). Its default export is a Strategy, or a
// function of the parameters (`--param k=v`) returning one. The backtest calls `start` once at the window's
// start, `onStep` after each recorded step (a distinct millisecond of the recording) has been applied, and `finish`
// at the end. The strategy talks to the replay server only through the SDK client (@omnibook/client), whose
// credentials already name the backtest's paper account on every recorded exchange; the next step waits for the
// promise it returns, so what it reads and places is exactly as of `clock.now()`.
import type { OmnibookClient } from '../../../clients/typescript/src/index.js';

export interface StrategyMarket {
  svc_id: string;
  exchange: string;
  market_id: string;
  question: string;
  /** The recorded outcomes of the market (those whose books are in the window). */
  outcomes: string[];
}

export interface StrategyContext {
  client: OmnibookClient;
  /** The replay clock, Unix ms. */
  clock: { now(): number };
  /** The recorded markets of the window, in svc_id order. */
  markets: readonly StrategyMarket[];
  /** `--param k=v` values. */
  params: ReadonlyMap<string, string>;
}

export interface StepInfo {
  /** 1 for the first step. */
  step: number;
  steps: number;
  clockMs: number;
}

export interface Strategy {
  name?: string;
  start?(ctx: StrategyContext): Promise<void> | void;
  onStep(ctx: StrategyContext, step: StepInfo): Promise<void> | void;
  finish?(ctx: StrategyContext): Promise<void> | void;
}

export type StrategyModule = Strategy | ((params: ReadonlyMap<string, string>) => Strategy);
