// The best same_market candidate of every market on each exchange, as the last walk that read it computed it, kept
// between relinks so a relink can tell whose best match a batch of changes moved without recomputing every
// neighbour's best (MatchEngine.linkAround): a neighbour's best on the changed market's exchange is the better of its
// old best and the changed markets, unless its old best was one of them.
//
// A row per market id in typed arrays (an id per exchange, and whether the row is known): at a million markets
// that is ~25 MiB with no object per market, where a Map of Maps was hundreds.
import { EXCHANGE_IDS, type ExchangeId } from '../../domain/exchanges.js';

const SLOTS = EXCHANGE_IDS.length;
const SLOT = new Map<ExchangeId, number>(EXCHANGE_IDS.map((ex, i) => [ex, i]));

/** A slot with no best (no same_market candidate on that exchange). */
export const NO_BEST = -1;

export class BestIndex {
  private best = new Int32Array(0);
  private known = new Uint8Array(0);

  /** Makes room for ids below `n` (a walk calls it first: no id is added while it runs). */
  reserve(n: number): void {
    if (n <= this.known.length) return;
    // An eighth more than asked, so a catalogue growing by batches is not copied at every relink.
    const size = n + (n >> 3) + 16;
    const best = new Int32Array(size * SLOTS).fill(NO_BEST);
    best.set(this.best);
    const known = new Uint8Array(size);
    known.set(this.known);
    this.best = best;
    this.known = known;
  }

  has(id: number): boolean {
    return this.known[id] === 1;
  }

  /** The stored best of `id` on `ex` (NO_BEST when none); only meaningful when has(id). */
  get(id: number, ex: ExchangeId): number {
    return this.best[id * SLOTS + (SLOT.get(ex) as number)] as number;
  }

  /** The stored bests of `id` on every exchange that has one. */
  targets(id: number): number[] {
    const out: number[] = [];
    for (let s = 0; s < SLOTS; s++) {
      const b = this.best[id * SLOTS + s] as number;
      if (b !== NO_BEST) out.push(b);
    }
    return out;
  }

  /** The stored bests of `id` by exchange (as MatchEngine.best answers them). */
  row(id: number): Map<ExchangeId, number> {
    const out = new Map<ExchangeId, number>();
    for (let s = 0; s < SLOTS; s++) {
      const b = this.best[id * SLOTS + s] as number;
      if (b !== NO_BEST) out.set(EXCHANGE_IDS[s] as ExchangeId, b);
    }
    return out;
  }

  /** Records a market's whole row (what MatchEngine.best computed). */
  setRow(id: number, row: ReadonlyMap<ExchangeId, number>): void {
    if (id >= this.known.length) return;
    const at = id * SLOTS;
    this.best.fill(NO_BEST, at, at + SLOTS);
    for (const [ex, b] of row) this.best[at + (SLOT.get(ex) as number)] = b;
    this.known[id] = 1;
  }

  /** Records one slot of a known row (an incremental update). */
  set(id: number, ex: ExchangeId, best: number): void {
    this.best[id * SLOTS + (SLOT.get(ex) as number)] = best;
  }

  forget(id: number): void {
    if (id < this.known.length) this.known[id] = 0;
  }

  /** Forgets every row (too many changes went by unrecorded to tell what they moved). */
  clear(): void {
    this.known.fill(0);
  }
}
