// The deadline of a trading call as an AbortSignal shared by every call whose deadline falls in the same STEP_MS
// slot. AbortSignal.timeout per call cost 6–17 µs of POST /orders (a timer, and a weak reference with a finalizer
// so that an unreferenced signal's timer can be cleared) and fired long after most calls had ended; a deadline of
// several seconds loses nothing by ending up to STEP_MS later. The abort reason is AbortSignal.timeout's own
// TimeoutError, which callers tell a deadline by.
import { setMaxListeners } from 'node:events';

const STEP_MS = 100;
const slots = new Map<number, AbortSignal>();

/** A signal that aborts with a TimeoutError at least `ms` and less than `ms + STEP_MS` after `nowMs`. */
export function deadlineSignal(ms: number, nowMs = Date.now()): AbortSignal {
  const slot = Math.ceil((nowMs + ms) / STEP_MS);
  let signal = slots.get(slot);
  if (signal === undefined) {
    signal = AbortSignal.timeout(slot * STEP_MS - nowMs);
    // Every call in the slot may listen to it at once (each venue request's deadline does until it ends).
    setMaxListeners(0, signal);
    slots.set(slot, signal);
    signal.addEventListener('abort', () => slots.delete(slot), { once: true });
  }
  return signal;
}
