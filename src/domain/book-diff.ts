// Level-by-level difference of two books of one instrument, for venues without a native delta stream: polling
// emits these changes so subscribers see the same snapshot/delta protocol as on streaming venues. Pure.
import type { BookLevel } from './book.js';
import type { BookChange } from './stream.js';

export function diffBookSides(
  previous: { bids: readonly BookLevel[]; asks: readonly BookLevel[] },
  next: { bids: readonly BookLevel[]; asks: readonly BookLevel[] },
): BookChange[] {
  return [...diffSide('bid', previous.bids, next.bids), ...diffSide('ask', previous.asks, next.asks)];
}

function diffSide(
  side: BookChange['side'],
  before: readonly BookLevel[],
  after: readonly BookLevel[],
): BookChange[] {
  const old = new Map(before.map(([price, size]) => [price, size]));
  const changes: BookChange[] = [];
  for (const [price, size] of after) {
    if (old.get(price) !== size) changes.push({ side, price, size });
    old.delete(price);
  }
  for (const price of old.keys()) changes.push({ side, price, size: 0 });
  return changes;
}

/** Applies changes to one side; keeps the side's order (bids descending, asks ascending). */
export function applyBookChanges(
  levels: readonly BookLevel[],
  changes: readonly BookChange[],
  side: BookChange['side'],
): BookLevel[] {
  const byPrice = new Map(levels.map(([price, size]) => [price, size]));
  for (const change of changes) {
    if (change.side !== side) continue;
    if (change.size === 0) byPrice.delete(change.price);
    else byPrice.set(change.price, change.size);
  }
  const sorted = [...byPrice.entries()] as BookLevel[];
  return sorted.sort((a, b) => (side === 'bid' ? b[0] - a[0] : a[0] - b[0]));
}
