// The /__sim/* control surface every simulator serves beside its exchange's real API (never part of it):
//   GET  /__sim/manifest        proposition key → native market ids (ground truth for matching)
//   POST /__sim/faults          FaultSettings (latency, errors, 429, malformed answers, held answers, stalled feed;
//                               fields left out reset to defaults); DELETE /__sim/faults clears all
//   GET  /__sim/held            { held }: requests waiting out a latency or a held answer right now
//   GET  /__sim/feed            { stalled, withheld }: stream frames a stalled feed dropped, counted since start
//   POST /__sim/advance         { steps?: n } moves books and the trade tape n deterministic steps
//   GET|POST /__sim/clock       { advance_seconds } moves the simulator's clock (expiries, timestamps) forward
//   POST /__sim/ws/drop         closes every stream connection (clients must reconnect and resubscribe)
//   GET  /__sim/ws/subscriptions { subscriptions: { <instrument>: n } } stream connections subscribed to each
//                               instrument now (simulators whose streams count them: polymarket)
//   POST /__sim/accounts        creates a funded paper account → { credentials, address? }
//   POST /__sim/fund            { address, amount } adds paper money, in the venue's own base units
//   POST /__sim/trade           { address } the paper account at address buys once at the best ask of an open market,
//                               recorded wherever the venue records a fill (for venues whose orders our sandbox
//                               does not place: the trade a wallet-activity watcher must then see) → the venue's row
//   GET|DELETE /__sim/requests  { counts: { "[service ]METHOD /path": n } } venue requests received; DELETE clears
//   POST /__sim/markets         (polymarket) lists one more market → { condition_id, slug, question }
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FaultSettingsError, type SimFaults } from './faults.js';
import { parseJson, readBody, sendJson } from './http.js';
import type { SimRequestLog } from './request-log.js';

/** The simulator's own time: wall clock plus an offset tests move forward. */
export class SimClock {
  private offsetMs = 0;

  now(): number {
    return Date.now() + this.offsetMs;
  }

  advance(seconds: number): number {
    this.offsetMs += Math.round(seconds * 1000);
    return this.now();
  }
}

export interface SimAccount {
  /** Exactly the JSON a client puts (base64) in our X-Exchange-Credentials header. */
  credentials: Record<string, string>;
  address?: string;
}

export interface SimControlHooks {
  manifest(): Record<string, string[]>;
  advance(steps: number): number;
  /** Runs after the clock moved, so expiries can be applied. */
  onClockAdvanced?(nowMs: number): void;
  dropStreams?(): number;
  /** Stream connections subscribed to each instrument right now. */
  streamSubscriptions?(): Record<string, number>;
  createAccount?(body: Record<string, unknown>): Promise<SimAccount> | SimAccount;
  fund?(address: string, amount: string): void;
  /**
   * A simulator's own control paths (e.g. Polymarket's /__sim/chain/*): answers { status, body }, or null when the
   * path is not one of them. Throwing a ControlInputError-like `SimControlInputError` answers 400.
   */
  extra?(
    method: string,
    path: string,
    body: Record<string, unknown>,
  ): Promise<{ status: number; body: unknown } | null>;
  /** One trade by the paper account at `address`, as the venue renders it; throws RangeError for an unknown one. */
  trade?(address: string): Record<string, unknown>;
}

/** Thrown by a simulator's own control paths for a bad request (answered 400 with its message). */
export class SimControlInputError extends Error {}

export interface SimControl {
  faults: SimFaults;
  clock: SimClock;
  hooks: SimControlHooks;
  /** Venue requests received per route; simulators that record them serve /__sim/requests. */
  requests?: SimRequestLog;
}

class ControlInputError extends Error {}

/** Handles a /__sim/* request; returns false when the path is not a control path. */
export async function handleControl(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  control: SimControl,
): Promise<boolean> {
  if (!path.startsWith('/__sim/')) return false;
  const method = req.method ?? 'GET';
  try {
    const body = method === 'GET' || method === 'DELETE' ? {} : asObject(parseJson(await readBody(req)));
    const { faults, clock, hooks, requests } = control;
    switch (`${method} ${path}`) {
      case 'GET /__sim/manifest':
        sendJson(res, 200, hooks.manifest());
        return true;
      case 'GET /__sim/faults':
        sendJson(res, 200, faults.settings);
        return true;
      case 'POST /__sim/faults':
        sendJson(res, 200, faults.set(body));
        return true;
      case 'DELETE /__sim/faults':
        faults.reset();
        sendJson(res, 200, faults.settings);
        return true;
      case 'GET /__sim/held':
        sendJson(res, 200, { held: faults.held });
        return true;
      case 'GET /__sim/feed':
        sendJson(res, 200, { stalled: faults.settings.stall_feed, withheld: faults.withheld });
        return true;
      case 'POST /__sim/advance': {
        const steps = body.steps ?? 1;
        if (typeof steps !== 'number' || !Number.isInteger(steps) || steps < 1 || steps > 10_000) {
          throw new ControlInputError('steps must be an integer in [1, 10000]');
        }
        sendJson(res, 200, { step: hooks.advance(steps) });
        return true;
      }
      case 'GET /__sim/clock':
        sendJson(res, 200, { now_ms: clock.now() });
        return true;
      case 'POST /__sim/clock': {
        const seconds = body.advance_seconds;
        if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) {
          throw new ControlInputError('advance_seconds must be a number >= 0');
        }
        const now = clock.advance(seconds);
        hooks.onClockAdvanced?.(now);
        sendJson(res, 200, { now_ms: now });
        return true;
      }
      case 'POST /__sim/ws/drop':
        sendJson(res, 200, { dropped: hooks.dropStreams?.() ?? 0 });
        return true;
      case 'GET /__sim/ws/subscriptions':
        if (!hooks.streamSubscriptions) break;
        sendJson(res, 200, { subscriptions: hooks.streamSubscriptions() });
        return true;
      case 'POST /__sim/accounts':
        if (!hooks.createAccount) break;
        sendJson(res, 201, await hooks.createAccount(body));
        return true;
      case 'POST /__sim/fund': {
        if (!hooks.fund) break;
        const { address, amount } = body;
        if (typeof address !== 'string' || typeof amount !== 'string' || !/^\d+$/.test(amount)) {
          throw new ControlInputError('address (string) and amount (base-unit integer string) are required');
        }
        hooks.fund(address, amount);
        sendJson(res, 200, { ok: true });
        return true;
      }
      case 'POST /__sim/trade': {
        if (!hooks.trade) break;
        const { address } = body;
        if (typeof address !== 'string') throw new ControlInputError('address (string) is required');
        try {
          sendJson(res, 201, hooks.trade(address));
        } catch (error) {
          if (error instanceof RangeError) throw new ControlInputError(error.message);
          throw error;
        }
        return true;
      }
      case 'GET /__sim/requests':
        if (!requests) break;
        sendJson(res, 200, { counts: requests.snapshot() });
        return true;
      case 'DELETE /__sim/requests':
        if (!requests) break;
        requests.reset();
        sendJson(res, 200, { counts: requests.snapshot() });
        return true;
      default: {
        const answer = await hooks.extra?.(method, path, body);
        if (answer) {
          sendJson(res, answer.status, answer.body);
          return true;
        }
        break;
      }
    }
    sendJson(res, 404, { error: `no simulator control ${method} ${path}` });
  } catch (error) {
    if (
      error instanceof SyntaxError ||
      error instanceof ControlInputError ||
      error instanceof SimControlInputError ||
      error instanceof FaultSettingsError
    ) {
      sendJson(res, 400, { error: error.message });
    } else {
      throw error;
    }
  }
  return true;
}

function asObject(value: unknown): Record<string, unknown> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ControlInputError('control body must be a JSON object');
  }
  return value as Record<string, unknown>;
}
