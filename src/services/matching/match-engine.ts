// The matching engine: holds the features of every market it has been given, its blocks and ladder groups, and
// answers which links exist — for all markets (linkAll) or for the neighbourhood of markets that changed
// (linkAround), so a sync pass relinks what it touched without recomputing the world.
//
// Rules, in order:
//  1. Candidates come from blocking (blocking.ts) and ladders; no other pair is ever compared.
//  2. comparePair (domain/matching/compare.ts) decides each candidate pair, with its evidence.
//  3. same_market is one-to-one per exchange pair: a link is kept only when each market is the other's best
//     candidate on the other's exchange (ties broken by svc_id), so a hard negative never wins beside the true match.
//  4. Ladder links go to the nearest rung per exchange (implication is transitive; every rung is not linked to every
//     other), symmetric: a pair is linked when either side is the other's nearest. A deadline ladder of a bounded
//     size (ALL_STEPS) links every cross-venue step it implies, each with its direction.
import { EXCHANGE_IDS, type ExchangeId } from '../../domain/exchanges.js';
import { comparePair, mirror, type PairVerdict, tokenWeight } from '../../domain/matching/compare.js';
import { tierOf } from '../../domain/matching/confidence.js';
import { extractFeatures, type MatchFeatures, type MatchInput } from '../../domain/matching/features.js';
import { optionForm } from '../../domain/matching/options.js';
import { resolutionCheck } from '../../domain/matching/resolution.js';
import { BestIndex, NO_BEST } from './best-index.js';
import {
  blockKeys,
  coarseDatePart,
  crossDateProbes,
  deadlineKeys,
  ladderKeys,
  rungOf,
  windowKeys,
} from './blocking.js';
import { Interner } from './interner.js';
import { PairSet } from './pair-set.js';
import { Postings } from './postings.js';

export interface EngineLink extends PairVerdict {
  /** svc_id of one side; `direction` reads from a to b. */
  a: string;
  b: string;
}

export interface MatchEngineOptions {
  /** A block (or ladder group) larger than this is skipped: it is too generic to say anything. */
  maxBlock?: number;
  /**
   * Run the passes over more than one pair (event alignment, dependencies through twins); default true. Off only to
   * measure what they cost against the pair rules alone (bench/matching.ts).
   */
  multiPair?: boolean;
}

const NONE: readonly number[] = [];

/**
 * Best matches a full walk keeps (each a pure function of the engine's state, so one forgotten is only recomputed):
 * without a bound it kept one for every market behind it that a twin had asked about.
 */
const BEST_MEMO = 65_536;

/**
 * A deadline ladder group of at most this many markets links every cross-venue step; a larger one (a generic word
 * shared by many dated questions) only the nearest rungs, so the pairs compared stay bounded.
 */
const ALL_STEPS = 48;

/**
 * Changes recorded for the next relink at most (see MatchEngine.journal): past this many (a catalogue loaded in
 * bulk) the record is dropped with every stored best match, and the next relink reads its whole neighbourhood.
 */
const JOURNAL_MAX = 50_000;

export class MatchEngine {
  private readonly maxBlock: number;
  private readonly features: Array<MatchFeatures | undefined> = [];
  private readonly ids = new Map<string, number>();
  private readonly free: number[] = [];
  private readonly index = new Postings();
  private readonly probes = new Postings();
  private readonly ladders = new Postings();
  /** Options of each event (svc_group_id): what the event-alignment pass reads. */
  private readonly members = new Postings();
  private live = 0;
  private skippedBlocks = 0;
  /** Coarse date parts (months, years) of the dated markets, counted: what an undated market looks up. */
  private readonly coarseParts = new Map<string, number>();

  private readonly multiPair: boolean;

  /** Best matches as last computed, kept between relinks (see BestIndex). */
  private readonly bestIndex = new BestIndex();
  /** Whether best() may answer from bestIndex (within a relink, once it is up to date; see linkAround). */
  private storedBests = false;
  /**
   * Every id changed since the stored best matches were computed, with its features before (null: it is new), so a
   * relink can tell what the changes moved; null once too many went by (JOURNAL_MAX).
   */
  private journal: Map<number, MatchFeatures | null> | null = new Map();

  constructor(options: MatchEngineOptions = {}) {
    this.maxBlock = options.maxBlock ?? 2_000;
    this.multiPair = options.multiPair ?? true;
  }

  get size(): number {
    return this.live;
  }

  /** Blocks skipped as too large since the engine was made (a diagnostic). */
  get skipped(): number {
    return this.skippedBlocks;
  }

  has(svcId: string): boolean {
    return this.ids.has(svcId);
  }

  fingerprint(svcId: string): string | null {
    const id = this.ids.get(svcId);
    return id === undefined ? null : (this.features[id]?.fingerprint ?? null);
  }

  /**
   * Adds or replaces markets; answers the svc_ids that are new or whose matching inputs changed (the others are
   * left as they were, so a sync that only moved prices costs a hash per market).
   */
  upsert(markets: Iterable<MatchInput>): string[] {
    const changed: string[] = [];
    for (const m of markets) {
      const f = this.compact(extractFeatures(m));
      const existing = this.ids.get(m.svc_id);
      if (existing !== undefined) {
        if (this.features[existing]?.fingerprint === f.fingerprint) continue;
        this.detach(existing);
        this.attach(existing, f);
      } else {
        const id = this.free.pop() ?? this.features.length;
        this.ids.set(f.svcId, id);
        this.attach(id, f);
        this.live++;
      }
      changed.push(m.svc_id);
    }
    return changed;
  }

  /** Adds features already extracted (a stored snapshot); same contract as upsert. */
  upsertFeatures(list: Iterable<MatchFeatures>): void {
    for (const stored of list) {
      const f = this.compact(stored);
      const existing = this.ids.get(f.svcId);
      if (existing !== undefined) this.detach(existing);
      const id = existing ?? this.free.pop() ?? this.features.length;
      if (existing === undefined) {
        this.ids.set(f.svcId, id);
        this.live++;
      }
      this.attach(id, f);
    }
  }

  remove(svcIds: Iterable<string>): void {
    for (const svcId of svcIds) {
      const id = this.ids.get(svcId);
      if (id === undefined) continue;
      this.detach(id);
      this.ids.delete(svcId);
      this.features[id] = undefined;
      this.free.push(id);
      this.live--;
    }
  }

  featuresOf(svcId: string): MatchFeatures | undefined {
    const id = this.ids.get(svcId);
    return id === undefined ? undefined : this.features[id];
  }

  /** Every link among all markets. */
  linkAll(): EngineLink[] {
    return [...this.streamAll()];
  }

  /**
   * Every link among all markets, one at a time, each once (from its lower id), so a caller writing them out holds
   * none: memory stays the engine's own, whatever the number of links.
   */
  *streamAll(): Generator<EngineLink> {
    const all: number[] = [];
    for (let id = 0; id < this.features.length; id++) if (this.features[id]) all.push(id);
    this.resetCaches();
    // The walk computes every market's best match afresh: the stored ones start over with it.
    this.bestIndex.clear();
    this.bestIndex.reserve(this.features.length);
    this.journal = new Map();
    yield* this.walk(all, true);
  }

  /**
   * Links of the neighbourhood of `changed`: the changed markets, their candidates and their ladder groups. The
   * answer holds every link with an endpoint in `scope`; links with no endpoint there are unaffected.
   */
  linkAround(changed: Iterable<string>): { scope: string[]; links: EngineLink[] } {
    // One set of caches for the whole relink: the scope, the far ends and the walk read the same candidates,
    // verdicts and best matches (each a pure function of the engine's state, which does not change meanwhile).
    this.resetCaches();
    this.bestIndex.reserve(this.features.length);
    const bestCache = new Map<number, Map<ExchangeId, number>>();
    const journal = this.journal;
    const scope = new Set<number>();
    for (const svcId of changed) {
      const id = this.ids.get(svcId);
      if (id === undefined) continue;
      // A market the engine saw change reaches only what the change can move (narrowScope); one it did not (a
      // stored link set older than the engine) its whole neighbourhood.
      if (journal?.has(id)) continue;
      this.addNeighbourhood(id, scope);
    }
    if (journal) this.narrowScope(journal, scope, bestCache);
    this.journal = new Map();
    // Every stored best now holds for the engine as it is (narrowScope moved those the changes moved): the walk
    // reads them instead of reading every candidate of every neighbour again.
    this.storedBests = true;
    const ids = [...scope];
    const extra = this.multiPair ? this.farEnds(scope, bestCache) : [];
    return {
      scope: ids.map((id) => (this.features[id] as MatchFeatures).svcId),
      links: [...this.walk(ids, false, extra, bestCache)],
    };
  }

  /** A market, its candidates, its ladder groups and its event's other options. */
  private addNeighbourhood(id: number, scope: Set<number>): void {
    scope.add(id);
    for (const c of this.candidates(id)) scope.add(c);
    const f = this.features[id] as MatchFeatures;
    for (const key of groupKeys(f)) {
      const members = this.ladders.get(key);
      if (members.length <= this.maxBlock) for (const m of members) scope.add(m);
    }
    // Its event's other options: their option-pass links read which of them have twins (alignedOptions).
    const siblings = f.group === null ? NONE : this.members.get(f.group);
    if (siblings.length <= this.maxBlock) for (const m of siblings) scope.add(m);
  }

  /** Notes a change of `id` for the next relink (its features before the first change since then). */
  private record(id: number, before: MatchFeatures | null): void {
    const journal = this.journal;
    if (journal === null || journal.has(id)) return;
    if (journal.size >= JOURNAL_MAX) {
      this.journal = null;
      this.bestIndex.clear();
      return;
    }
    journal.set(id, before);
  }

  /**
   * Adds to `scope` every market a link of which the recorded changes can have changed, so the relink need not
   * read every candidate of every changed market again. A link of two unchanged markets depends on the changed
   * ones only through
   *  - a best match (same_market is kept one-to-one): a neighbour's best on a changed market's exchange is the
   *    better of its stored best and the changed markets, unless its stored best is one of them (recomputed);
   *    a neighbour whose best moved is in scope;
   *  - twins: a derived link through a changed market ends at its twin (in scope); an event whose member's twins
   *    differ may be aligned otherwise (alignmentOf), and an aligned event reads its members' features (option
   *    forms): such an event is in scope whole;
   *  - ladder adjacency: the rungs whose nearest rungs differ before and after the change are in scope;
   *  - which exchanges a neighbour's candidates are on (openExchanges), read only on an exchange its event is
   *    aligned on;
   *  - a block crossing its size limit (blockCandidates skips it): its members are in scope, with their twins.
   */
  private narrowScope(
    journal: ReadonlyMap<number, MatchFeatures | null>,
    scope: Set<number>,
    bestCache: Map<number, Map<ExchangeId, number>>,
  ): void {
    // How much each key's list grew or shrank: a list over the limit now or before is skipped then (blockCandidates,
    // groupAdjacency), so one that crossed it changed every pair of its members.
    const grown = {
      index: new Map<string, number>(),
      probe: new Map<string, number>(),
      event: new Map<string, number>(),
    };
    const grow = (map: Map<string, number>, key: string, by: number) =>
      map.set(key, (map.get(key) ?? 0) + by);
    // Each ladder key a changed market is in now or was in before, with the changed markets it was in before.
    const ladderKeysTouched = new Map<string, number[]>();
    for (const [m, before] of journal) {
      for (const [f, by] of [
        [before, -1],
        [this.features[m], 1],
      ] as const) {
        if (!f) continue;
        const keys = blockKeys(f);
        for (const k of keys.index) grow(grown.index, k, by);
        for (const k of keys.probe) grow(grown.probe, k, by);
        for (const k of groupKeys(f)) {
          const had = ladderKeysTouched.get(k) ?? [];
          if (by < 0) had.push(m);
          ladderKeysTouched.set(k, had);
        }
        if (f.group !== null) grow(grown.event, f.group, by);
      }
    }
    const over = (length: number, by: number) => ({
      now: length > this.maxBlock,
      before: length - by > this.maxBlock,
    });
    const full = new Set<number>();
    for (const [map, lists] of [
      [grown.index, (k: string) => this.index.get(k)],
      [grown.probe, (k: string) => this.probes.get(k)],
    ] as const) {
      for (const [k, by] of map) {
        const o = over(lists(k).length, by);
        if (o.now === o.before) continue;
        for (const y of [...this.index.get(k), ...this.probes.get(k)]) if (!journal.has(y)) full.add(y);
      }
    }
    // Ladder groups: the pairs of unchanged rungs adjacent before or after, not both.
    const featuresBefore = (id: number) =>
      (journal.has(id) ? journal.get(id) : this.features[id]) as MatchFeatures;
    for (const [key, had] of ladderKeysTouched) {
      const now = this.ladders.get(key);
      const then = [...now.filter((id) => !journal.has(id)), ...had];
      const after = this.adjacencyOf(key, now, (id) => this.features[id] as MatchFeatures, false);
      const prior = this.adjacencyOf(key, then, featuresBefore, false);
      for (const [one, other] of [
        [after, prior],
        [prior, after],
      ] as const) {
        for (const [x, list] of one) {
          if (journal.has(x)) continue;
          const theirs = new Set(other.get(x) ?? NONE);
          for (const y of list) {
            if (journal.has(y) || theirs.has(y)) continue;
            scope.add(x);
            scope.add(y);
          }
        }
      }
    }
    // Rows as they were before this relink writes them (a row never read here is unchanged).
    const rowsBefore = new Map<number, Map<ExchangeId, number> | null>();
    const snap = (id: number) => {
      if (!rowsBefore.has(id)) rowsBefore.set(id, this.bestIndex.has(id) ? this.bestIndex.row(id) : null);
    };
    // Markets whose row may have changed, and the markets their rows point at: the only ones whose twins may differ.
    const rowChanged = new Set<number>();
    const pointed = new Set<number>();
    // Each unchanged neighbour of a changed market, with the changed markets it was (before) or is a candidate of.
    const touched = new Map<number, Array<{ m: number; before: boolean }>>();
    const gaps: Array<{ y: number; ex: ExchangeId }> = [];
    const touch = (y: number, m: number, before: boolean) => {
      if (journal.has(y)) return;
      const marks = touched.get(y);
      if (marks) marks.push({ m, before });
      else touched.set(y, [{ m, before }]);
    };
    for (const [m, before] of journal) {
      const now = this.features[m];
      snap(m);
      rowChanged.add(m);
      if (before !== null && this.bestIndex.has(m)) for (const t of this.bestIndex.targets(m)) pointed.add(t);
      if (now) {
        scope.add(m);
        for (const t of this.best(m, bestCache).values()) pointed.add(t);
      } else {
        this.bestIndex.forget(m);
      }
      if (before !== null) for (const y of this.blockCandidates(m, before)) touch(y, m, true);
      if (now) for (const y of this.candidates(m)) touch(y, m, false);
    }
    // Members of a block crossing its size limit may have gained or lost any candidate: their links are read.
    for (const y of full) {
      snap(y);
      rowChanged.add(y);
      if (this.bestIndex.has(y)) for (const t of this.bestIndex.targets(y)) pointed.add(t);
      scope.add(y);
      for (const t of this.best(y, bestCache).values()) pointed.add(t);
    }
    for (const [y, marks] of touched) {
      if (full.has(y)) continue;
      const fy = this.features[y] as MatchFeatures;
      const exchanges = new Set<ExchangeId>();
      for (const { m, before } of marks) {
        const f = before ? journal.get(m) : this.features[m];
        if (f) exchanges.add(f.exchange);
      }
      const known = this.bestIndex.has(y);
      snap(y);
      // Every old best first: best(y) below writes y's row.
      const was = new Map<ExchangeId, number>();
      for (const ex of exchanges)
        was.set(ex, known ? this.bestIndex.get(y, ex) : this.bestBefore(y, ex, marks, journal));
      for (const ex of exchanges) {
        const old = was.get(ex) as number;
        const now =
          known && (old === NO_BEST || !journal.has(old))
            ? this.bestAmong(y, ex, [
                ...(old === NO_BEST ? [] : [old]),
                ...marks.filter((k) => !k.before && this.features[k.m]?.exchange === ex).map((k) => k.m),
              ])
            : (this.best(y, bestCache).get(ex) ?? NO_BEST);
        if (known) this.bestIndex.set(y, ex, now);
        if (old !== now) {
          // Its same_market links differ.
          scope.add(y);
          rowChanged.add(y);
          if (old !== NO_BEST) pointed.add(old);
          if (now !== NO_BEST) pointed.add(now);
        }
        if ((old !== NO_BEST && journal.has(old)) || (now !== NO_BEST && journal.has(now))) rowChanged.add(y);
        if ((old === NO_BEST || now === NO_BEST) && fy.group !== null && fy.unread !== true)
          gaps.push({ y, ex });
      }
    }
    // Every stored best now holds (twinsOf and alignmentOf below read them).
    this.storedBests = true;
    const twinsBefore = (id: number): number[] => {
      const row = rowsBefore.has(id)
        ? rowsBefore.get(id)
        : this.bestIndex.has(id)
          ? this.bestIndex.row(id)
          : null;
      if (!row) return [];
      const ex = (featuresBefore(id) ?? this.features[id])?.exchange;
      const out: number[] = [];
      for (const t of row.values()) {
        const theirs = rowsBefore.has(t)
          ? rowsBefore.get(t)
          : this.bestIndex.has(t)
            ? this.bestIndex.row(t)
            : null;
        if (ex !== undefined && theirs?.get(ex) === id) out.push(t);
      }
      return out;
    };
    const sameSet = (p: readonly number[], q: readonly number[]) =>
      p.length === q.length && p.every((x) => q.includes(x));
    const events = new Set<string>();
    const twinsMoved = (id: number, known: boolean) => {
      const now = this.features[id] ? this.twinsOf(id, bestCache) : [];
      // A market new since the rows were written had no twins; an unknown row may have had any.
      const then = journal.get(id) === null ? [] : known ? twinsBefore(id) : null;
      return { now, then, moved: then === null || !sameSet(now, then) };
    };
    for (const id of new Set([...rowChanged, ...pointed])) {
      // An unknown row before (never computed) counts as moved.
      const known = rowsBefore.has(id) ? rowsBefore.get(id) !== null : this.bestIndex.has(id);
      const t = twinsMoved(id, known);
      const before = journal.get(id);
      const now = this.features[id];
      if (journal.has(id)) {
        // A derived link through a changed market ends at its twin; its events' votes count it by its event.
        for (const x of [...t.now, ...(t.then ?? [])]) scope.add(x);
        const regrouped = (before?.group ?? null) !== (now?.group ?? null);
        if (t.moved || regrouped) {
          for (const f of [before, now]) if (f?.group != null) events.add(f.group);
          if (regrouped)
            for (const x of [...t.now, ...(t.then ?? [])]) {
              const g = this.features[x]?.group;
              if (g != null) events.add(g);
            }
        }
        continue;
      }
      // Its derived links (through its twins) differ.
      if (t.moved) scope.add(id);
      if (t.moved && now?.group != null) events.add(now.group);
    }
    // A changed market's event, when aligned anywhere, matches options by their features.
    for (const [m, before] of journal) {
      for (const f of [before, this.features[m]]) {
        if (f?.group == null || events.has(f.group)) continue;
        const o = over(this.members.get(f.group).length, grown.event.get(f.group) ?? 0);
        // An event crossing the limit gained or lost every sibling link (passedOn) and its alignment.
        if (o.now !== o.before) events.add(f.group);
        else if (!o.now && this.alignmentOf(f.group, bestCache).size > 0) events.add(f.group);
      }
    }
    for (const g of events) {
      const o = over(this.members.get(g).length, grown.event.get(g) ?? 0);
      if (!o.now || !o.before) for (const x of this.members.get(g)) scope.add(x);
    }
    // With no best on that exchange, whether y has a candidate there (its open exchanges) may have changed, which
    // only an event aligned with y's on that exchange reads (alignedOptions, both ends).
    for (const { y, ex } of gaps) {
      if (this.alignmentOf((this.features[y] as MatchFeatures).group as string, bestCache).has(ex))
        scope.add(y);
    }
  }

  /** The best same_market match of y on `ex` among `among` (as best() ranks them). */
  private bestAmong(y: number, ex: ExchangeId, among: readonly number[]): number {
    let pick = NO_BEST;
    let confidence = -1;
    let svc = '';
    for (const c of among) {
      const fc = this.features[c] as MatchFeatures;
      if (fc.exchange !== ex) continue;
      const v = this.verdict(y, c);
      if (v?.relation !== 'same_market') continue;
      if (pick === NO_BEST || v.confidence > confidence || (v.confidence === confidence && fc.svcId < svc)) {
        pick = c;
        confidence = v.confidence;
        svc = fc.svcId;
      }
    }
    return pick;
  }

  /**
   * y's best on `ex` before the recorded changes, when it was not stored: its unchanged candidates as they are, and
   * the changed markets it was a candidate of with their features then.
   */
  private bestBefore(
    y: number,
    ex: ExchangeId,
    marks: ReadonlyArray<{ m: number; before: boolean }>,
    journal: ReadonlyMap<number, MatchFeatures | null>,
  ): number {
    const fy = this.features[y] as MatchFeatures;
    let pick = NO_BEST;
    let confidence = -1;
    let svc = '';
    const consider = (c: number, fc: MatchFeatures, v: PairVerdict | null) => {
      if (fc.exchange !== ex || v?.relation !== 'same_market') return;
      if (pick === NO_BEST || v.confidence > confidence || (v.confidence === confidence && fc.svcId < svc)) {
        pick = c;
        confidence = v.confidence;
        svc = fc.svcId;
      }
    };
    for (const c of this.candidates(y)) {
      if (!journal.has(c)) consider(c, this.features[c] as MatchFeatures, this.verdict(y, c));
    }
    for (const { m, before } of marks) {
      const fm = journal.get(m);
      if (!before || !fm) continue;
      consider(m, fm, m < y ? comparePair(fm, fy, this.weight) : comparePair(fy, fm, this.weight));
    }
    return pick;
  }

  private attach(id: number, f: MatchFeatures): void {
    this.candidateCache.clear();
    this.record(id, null);
    this.features[id] = f;
    const keys = blockKeys(f);
    for (const k of keys.index) this.index.add(k, id);
    for (const k of keys.probe) this.probes.add(k, id);
    for (const k of groupKeys(f)) this.ladders.add(k, id);
    if (f.group !== null) this.members.add(f.group, id);
    const part = coarseDatePart(f);
    if (part !== null) this.coarseParts.set(part, (this.coarseParts.get(part) ?? 0) + 1);
  }

  private detach(id: number): void {
    const f = this.features[id];
    if (!f) return;
    this.candidateCache.clear();
    this.record(id, f);
    const keys = blockKeys(f);
    for (const k of keys.index) this.index.remove(k, id);
    for (const k of keys.probe) this.probes.remove(k, id);
    for (const k of groupKeys(f)) this.ladders.remove(k, id);
    if (f.group !== null) this.members.remove(f.group, id);
    const part = coarseDatePart(f);
    if (part !== null) {
      const left = (this.coarseParts.get(part) ?? 1) - 1;
      if (left > 0) this.coarseParts.set(part, left);
      else this.coarseParts.delete(part);
    }
  }

  private readonly weight = tokenWeight;
  private readonly strings = new Interner();

  /**
   * The features with their strings, token lists and records shared catalogue-wide (see Interner), as one literal
   * of every field in a fixed order: extractFeatures' object (built with spreads for its optional fields) kept its
   * later fields out of the object, which with the spread copy made a record about 210 bytes instead of 100.
   */
  private compact(f: MatchFeatures): MatchFeatures {
    const s = this.strings;
    const out: MatchFeatures = {
      svcId: flat(f.svcId),
      exchange: f.exchange,
      group: f.group === null ? null : s.one(flat(f.group)),
      tokens: s.list(f.tokens),
      option: s.list(f.option),
      event: s.list(f.event),
      names: s.list(f.names),
      entities: s.list(f.entities),
      threshold: s.record(f.threshold),
      date: s.record(f.date),
      endDay: f.endDay === null ? null : s.one(f.endDay),
      endAt: f.endAt,
      time: s.record(f.time),
      rate: f.rate,
      cumulative: f.cumulative,
      exclusive: f.exclusive,
      place: f.place,
      window: s.record(f.window),
      resolution: s.record(f.resolution) as MatchFeatures['resolution'],
      fingerprint: f.fingerprint,
    };
    // Rare flags are added only where set, as extractFeatures does (a record's fields are what it was given).
    if (f.yearWindow !== undefined) out.yearWindow = f.yearWindow;
    if (f.unread !== undefined) out.unread = f.unread;
    return out;
  }

  /**
   * Block candidates of a market, both ways (its probes against others' index keys and the reverse), and across
   * dates between undated and dated markets of one subject (crossDateProbes: lookups in the index both ways, so the
   * relation stays symmetric and an incremental relink sees what a full one does).
   */
  private candidateCache = new Map<number, readonly number[]>();

  private candidates(id: number): readonly number[] {
    const known = this.candidateCache.get(id);
    if (known) return known;
    // Kept as an array (in the set's order): a cached set of a few hundred ids outlives the young generation and
    // is old garbage once dropped, several KiB of it per market in a full walk, which the heap grew by.
    const out = [...this.blockCandidates(id)];
    // A walk asks for a market's candidates several times (its best match, its links, its twins' alignment); a full
    // walk keeps the recent ones only (it visits in id order), a relink its whole neighbourhood.
    if (this.candidateCache.size >= 16_384) this.candidateCache.clear();
    this.candidateCache.set(id, out);
    return out;
  }

  /** `f` may be the features the market had before a change (what its candidates were, see narrowScope). */
  private blockCandidates(id: number, f = this.features[id] as MatchFeatures): Set<number> {
    const out = new Set<number>();
    const keys = blockKeys(f);
    const add = (other: number) => {
      if (other !== id) out.add(other);
    };
    const visit = (postings: Postings, key: string) => {
      if (!postings.each(key, this.maxBlock, add)) this.skippedBlocks++;
    };
    for (const k of keys.probe) visit(this.index, k);
    for (const k of keys.index) visit(this.probes, k);
    for (const { own, others } of crossDateProbes(f, this.coarseParts.keys())) {
      if (this.index.count(own) > this.maxBlock) {
        this.skippedBlocks++;
        continue;
      }
      for (const k of others) visit(this.index, k);
    }
    return out;
  }

  private groupCache = new Map<string, Map<number, number[]>>();

  /** Ladder neighbours: nearest lower and higher rung per exchange, and whoever has this market as theirs. */
  private ladderNeighbours(id: number): Set<number> {
    const f = this.features[id] as MatchFeatures;
    const out = new Set<number>();
    for (const key of groupKeys(f)) {
      for (const nb of this.groupAdjacency(key).get(id) ?? []) out.add(nb);
    }
    return out;
  }

  /** Every rung's neighbours in one ladder group, both ways; kept for the recent groups of a walk. */
  private groupAdjacency(key: string): Map<number, number[]> {
    const cached = this.groupCache.get(key);
    if (cached) return cached;
    // Bounded: a full walk meets a ladder group while at its rungs, which are near each other in id order.
    if (this.groupCache.size >= 4_096) this.groupCache.clear();
    const adjacency = this.adjacencyOf(key, this.ladders.get(key), (m) => this.features[m] as MatchFeatures);
    this.groupCache.set(key, adjacency);
    return adjacency;
  }

  /**
   * The rung adjacency of a ladder group of `members`, read through `featuresOf` (which may answer a market's
   * features before a change: narrowScope compares a group before and after).
   */
  private adjacencyOf(
    key: string,
    members: readonly number[],
    featuresOf: (id: number) => MatchFeatures,
    counted = true,
  ): Map<number, number[]> {
    const adjacency = new Map<number, number[]>();
    if (members.length < 2 || members.length > this.maxBlock) {
      if (counted && members.length > this.maxBlock) this.skippedBlocks++;
      return adjacency;
    }
    const link = (x: number, y: number) => {
      const list = adjacency.get(x);
      if (list) list.push(y);
      else adjacency.set(x, [y]);
    };
    const rungs = members.map((m) => ({
      id: m,
      rung: rungOf(featuresOf(m), key),
      ex: featuresOf(m).exchange,
    }));
    if (key.startsWith('W|')) {
      // Touches over windows: every pair across exchanges may nest (comparePair decides).
      for (const x of rungs) for (const y of rungs) if (x.ex !== y.ex) link(x.id, y.id);
      return adjacency;
    }
    if (key.includes('|rate|')) {
      // Decisions at one meeting: every other decision may exclude this one (comparePair decides).
      for (const x of rungs) for (const y of rungs) if (x.id !== y.id && x.rung !== y.rung) link(x.id, y.id);
      return adjacency;
    }
    if (key.startsWith('D|') && rungs.length <= ALL_STEPS) {
      // A deadline ladder across venues: every step one deadline implies on another venue is linked, not only the
      // nearest (`in 2025` implies `by December 31, 2026` though the other venue also lists `by June 30, 2026`).
      // A venue's own rungs keep their nearest links below (implication is transitive within one series).
      for (const x of rungs) for (const y of rungs) if (x.ex !== y.ex && x.rung !== y.rung) link(x.id, y.id);
    }
    const byExchange = new Map<ExchangeId, Array<{ id: number; rung: number }>>();
    // A rung that cannot be placed (a deadline without its year or a close) may be any rung on another exchange's
    // ladder: it is paired with each of them, and comparePair decides.
    const unplaced = rungs.filter((r) => Number.isNaN(r.rung));
    for (const x of unplaced) {
      for (const y of rungs) {
        if (x.ex === y.ex || x.id === y.id) continue;
        link(x.id, y.id);
        link(y.id, x.id);
      }
    }
    for (const r of rungs) {
      if (Number.isNaN(r.rung)) continue;
      const list = byExchange.get(r.ex);
      if (list) list.push(r);
      else byExchange.set(r.ex, [r]);
    }
    for (const list of byExchange.values()) list.sort((p, q) => p.rung - q.rung);
    for (const x of rungs) {
      for (const list of byExchange.values()) {
        for (const y of nearest(list, x.rung)) {
          if (y !== x.id) {
            link(x.id, y);
            link(y, x.id);
          }
        }
      }
    }
    return adjacency;
  }

  /**
   * Verdicts already computed. In a full walk only the current market's row is kept (its candidates' verdicts,
   * computed for its best match and read again to emit); a pair is then decided at most once per side, and the memo
   * never grows with the catalogue. A neighbourhood walk (linkAround) is small and keeps them all.
   */
  private verdicts = new Map<number, Map<number, PairVerdict | null>>();
  private memoOnly: number | null = null;

  private verdict(x: number, y: number): PairVerdict | null {
    const [lo, hi] = x < y ? [x, y] : [y, x];
    const keep = this.memoOnly === null || this.memoOnly === x || this.memoOnly === y;
    const key = this.memoOnly === null ? lo : (this.memoOnly as number);
    const other = this.memoOnly === null ? hi : this.memoOnly === x ? y : x;
    let row = keep ? this.verdicts.get(key) : undefined;
    if (keep && !row) {
      row = new Map();
      this.verdicts.set(key, row);
    }
    if (row?.has(other)) return row.get(other) ?? null;
    const v = comparePair(
      this.features[lo] as MatchFeatures,
      this.features[hi] as MatchFeatures,
      this.weight,
    );
    row?.set(other, v);
    return v;
  }

  /** The best same_market candidate of x on each other exchange. */
  private best(x: number, cache: Map<number, Map<ExchangeId, number>>): Map<ExchangeId, number> {
    const known = cache.get(x);
    if (known) return known;
    if (this.storedBests && this.bestIndex.has(x)) {
      const stored = this.bestIndex.row(x);
      cache.set(x, stored);
      return stored;
    }
    const out = new Map<ExchangeId, { id: number; confidence: number; svc: string }>();
    for (const y of this.candidates(x)) {
      const v = this.verdict(x, y);
      if (v?.relation !== 'same_market') continue;
      const fy = this.features[y] as MatchFeatures;
      const current = out.get(fy.exchange);
      if (
        !current ||
        v.confidence > current.confidence ||
        (v.confidence === current.confidence && fy.svcId < current.svc)
      ) {
        out.set(fy.exchange, { id: y, confidence: v.confidence, svc: fy.svcId });
      }
    }
    const result = new Map([...out].map(([ex, b]) => [ex, b.id]));
    cache.set(x, result);
    this.bestIndex.setRow(x, result);
    return result;
  }

  /**
   * Links with an endpoint in `ids`. A full walk (`everything`) emits each pair from its lower id only and forgets
   * a market's verdicts and best matches once it is done, so it holds no link and no per-pair state behind it.
   */
  private *walk(
    ids: readonly number[],
    everything: boolean,
    extra: readonly number[] = [],
    bestCache = new Map<number, Map<ExchangeId, number>>(),
  ): Generator<EngineLink> {
    const seen = new PairSet();
    // Links derived through twins are found from either end (see throughTwins): each is emitted once.
    const derivedSeen = new PairSet();
    const scopeSet = everything ? null : new Set(ids);
    let onlyInto: Set<number> | null = null;
    const linkOf = (x: number, y: number, v: PairVerdict): EngineLink => {
      const [lo, hi] = x < y ? [x, y] : [y, x];
      const fa = this.features[lo] as MatchFeatures;
      const fb = this.features[hi] as MatchFeatures;
      // A verdict is always computed lower id first, so its direction already reads from a to b.
      return { ...v, a: fa.svcId, b: fb.svcId };
    };
    try {
      for (const x of [...ids, ...extra]) {
        if (extra.length > 0 && onlyInto === null && !(scopeSet as Set<number>).has(x)) {
          // Past the scope: markets whose twin is related to a market in scope, read for their derived links only.
          onlyInto = scopeSet;
        }
        if (onlyInto !== null) {
          for (const d of this.throughTwins(x, bestCache)) {
            if (!onlyInto.has(d.z) || !seen.add(x, d.z)) continue;
            yield this.derivedLink(x, d);
          }
          continue;
        }
        if (everything) {
          this.memoOnly = x;
          this.verdicts = new Map();
        }
        const fx = this.features[x] as MatchFeatures;
        const bestX = this.best(x, bestCache);
        const done = new Set<number>();
        const fresh = (y: number): boolean => {
          if (everything) {
            if (y < x || done.has(y)) return false;
            done.add(y);
            return true;
          }
          return seen.add(x, y);
        };
        const candidates = this.candidates(x);
        for (const y of candidates) {
          if (everything && y < x) continue;
          const v = this.verdict(x, y);
          if (!v) continue;
          if (v.relation === 'same_market') {
            const fy = this.features[y] as MatchFeatures;
            if (bestX.get(fy.exchange) !== y) continue;
            if (this.best(y, bestCache).get(fx.exchange) !== x) continue;
          }
          if (fresh(y)) yield linkOf(x, y, v);
        }
        for (const y of this.ladderNeighbours(x)) {
          if (everything && y < x) continue;
          const v = this.verdict(x, y);
          if (v && v.relation === 'co_dependent' && fresh(y)) yield linkOf(x, y, v);
        }
        for (const o of this.alignedOptions(x, bestCache, candidates)) {
          if (everything && o.z < x) continue;
          if (fresh(o.z)) yield this.derivedLink(x, o);
        }
        for (const d of this.throughTwins(x, bestCache)) {
          if (derivedSeen.has(x, d.z) || (!everything && seen.has(x, d.z))) continue;
          derivedSeen.add(x, d.z);
          if (!everything) seen.add(x, d.z);
          yield this.derivedLink(x, d);
        }
        if (everything) {
          derivedSeen.release(x);
          bestCache.delete(x);
          // Best matches of markets behind x are asked again only by their neighbours' twins: kept while recent.
          if (bestCache.size >= BEST_MEMO) bestCache.clear();
        }
      }
    } finally {
      this.resetCaches();
    }
  }

  /** Forgets every per-walk cache (a walk starts and ends with none). */
  private resetCaches(): void {
    this.storedBests = false;
    this.memoOnly = null;
    this.verdicts = new Map();
    this.groupCache = new Map();
    this.coCache = new Map();
    this.alignCache = new Map();
    this.openCache = new Map();
    this.candidateCache = new Map();
  }

  /** A derived link as an engine link, its direction read from its lower id as every link's is. */
  private derivedLink(x: number, d: Derived): EngineLink {
    const [lo, hi] = x < d.z ? [x, d.z] : [d.z, x];
    return {
      ...d.verdict,
      direction: lo === x ? d.verdict.direction : mirror(d.verdict.direction),
      a: (this.features[lo] as MatchFeatures).svcId,
      b: (this.features[hi] as MatchFeatures).svcId,
    };
  }

  private alignCache = new Map<string, Map<ExchangeId, { group: string; votes: number }>>();
  private openCache = new Map<string, number[]>();

  /**
   * The events on other exchanges an event is aligned with: for each exchange, the event holding the twins of most
   * of its options, when at least two options are twinned there and no other event of that exchange ties.
   */
  private alignmentOf(
    group: string,
    bestCache: Map<number, Map<ExchangeId, number>>,
  ): Map<ExchangeId, { group: string; votes: number }> {
    const known = this.alignCache.get(group);
    if (known) return known;
    const votes = new Map<ExchangeId, Map<string, number>>();
    const list = this.members.get(group);
    if (list.length <= this.maxBlock) {
      for (const s of list) {
        for (const t of this.twinsOf(s, bestCache)) {
          const ft = this.features[t] as MatchFeatures;
          if (ft.group === null) continue;
          let byGroup = votes.get(ft.exchange);
          if (!byGroup) {
            byGroup = new Map();
            votes.set(ft.exchange, byGroup);
          }
          byGroup.set(ft.group, (byGroup.get(ft.group) ?? 0) + 1);
        }
      }
    }
    const out = new Map<ExchangeId, { group: string; votes: number }>();
    for (const [ex, byGroup] of votes) {
      const ranked = [...byGroup].sort((p, q) => q[1] - p[1]);
      const [top, second] = ranked;
      if (top && top[1] >= 2 && (!second || second[1] < top[1]))
        out.set(ex, { group: top[0], votes: top[1] });
    }
    if (this.alignCache.size >= 4_096) this.alignCache.clear();
    this.alignCache.set(group, out);
    return out;
  }

  /**
   * Events first, then options: x's twin inside an event aligned with x's own, on an exchange where x has none,
   * matched by a form only an aligned event makes safe (domain/matching/options.ts: containment, a ticker code) and
   * only when the match is the one both ways among the options still without a twin there. Symmetric: the other
   * side reaches x by the same rule (the two events must be each other's alignment).
   */
  private *alignedOptions(
    x: number,
    bestCache: Map<number, Map<ExchangeId, number>>,
    candidates: readonly number[],
  ): Generator<Derived> {
    const fx = this.features[x] as MatchFeatures;
    if (fx.group === null || !this.multiPair) return;
    const open = this.openExchanges(x, bestCache, candidates);
    if (open.size === 0) return;
    for (const [ex, aligned] of this.alignmentOf(fx.group, bestCache)) {
      if (!open.has(ex)) continue;
      if (this.alignmentOf(aligned.group, bestCache).get(fx.exchange)?.group !== fx.group) continue;
      // Options of an event still without a twin on an exchange, computed once per walk (each option asks).
      const twinless = (group: string, onto: ExchangeId): number[] => {
        const key = `${group}|${onto}`;
        const known = this.openCache.get(key);
        if (known) return known;
        const list = this.members
          .get(group)
          .filter(
            (m) =>
              !this.twinsOf(m, bestCache).some((t) => (this.features[t] as MatchFeatures).exchange === onto),
          );
        if (this.openCache.size >= 4_096) this.openCache.clear();
        this.openCache.set(key, list);
        return list;
      };
      const theirs = twinless(aligned.group, fx.exchange);
      const matches = (p: MatchFeatures, q: MatchFeatures) =>
        sameCondition(p, q) ? optionForm(p.option, q.option, p.svcId, q.svcId) : null;
      const found = theirs.filter((m) => matches(fx, this.features[m] as MatchFeatures) !== null);
      if (found.length !== 1) continue;
      const z = found[0] as number;
      const fz = this.features[z] as MatchFeatures;
      // Both ends must pass the same test, so either end finds the pair.
      if (!this.openExchanges(z, bestCache, this.candidates(z)).has(fx.exchange)) continue;
      const ours = twinless(fx.group, ex).filter(
        (m) => matches(this.features[m] as MatchFeatures, fz) !== null,
      );
      if (ours.length !== 1 || ours[0] !== x) continue;
      const form = matches(fx, fz) as string;
      const confidence = aligned.votes >= 3 ? 0.9 : 0.8;
      const [lo, hi] = x < z ? [fx, fz] : [fz, fx];
      const check = resolutionCheck(lo.resolution, hi.resolution);
      // Two stated settlement indices are never one market (compare.ts settlementVariant), aligned or not.
      if (check.differences.includes('settlement_source')) continue;
      yield {
        z,
        verdict: {
          relation: 'same_market',
          confidence,
          tier: tierOf(confidence),
          source: 'hierarchical',
          dependencyType: null,
          direction: null,
          evidence: [
            // Written from the lower id's side, so both ends derive the same link.
            `event ${lo.group} aligned with ${hi.group} (${aligned.votes} options twinned)`,
            `option ${lo.option.join(' ') || lo.svcId} ~ ${hi.option.join(' ') || hi.svcId}: ${form}, the only match both ways`,
          ],
          resolution: check,
        },
      };
    }
  }

  /**
   * The exchanges where x has no twin but has block candidates. An aligned event's options share the event's words,
   * so they are among x's candidates: an exchange none of them is on, or where x has its twin, needs no alignment
   * (which reads every option's twins).
   */
  private openExchanges(
    x: number,
    bestCache: Map<number, Map<ExchangeId, number>>,
    candidates: readonly number[],
  ): Set<ExchangeId> {
    const fx = this.features[x] as MatchFeatures;
    const own = fx.exchange;
    const twinned = new Set(
      this.twinsOf(x, bestCache).map((t) => (this.features[t] as MatchFeatures).exchange),
    );
    const open = new Set<ExchangeId>();
    // A market known by its ticker alone shares no words with anything: any other exchange may hold its event.
    if (fx.unread === true) for (const ex of EXCHANGE_IDS) if (ex !== own && !twinned.has(ex)) open.add(ex);
    for (const c of candidates) {
      const ex = (this.features[c] as MatchFeatures).exchange;
      if (ex !== own && !twinned.has(ex)) open.add(ex);
    }
    return open;
  }

  /** x's same_market twins: the best candidate on each other exchange that has x as its own best there. */
  private twinsOf(x: number, bestCache: Map<number, Map<ExchangeId, number>>): number[] {
    const ex = (this.features[x] as MatchFeatures).exchange;
    const out: number[] = [];
    for (const y of this.best(x, bestCache).values()) {
      if (this.best(y, bestCache).get(ex) === x) out.push(y);
    }
    return out;
  }

  /**
   * The co-dependent links a twin passes on: to the other options of its own event (exclusive outcomes) and to its
   * ladder neighbours (nested thresholds, deadlines, windows), as comparePair sees them; cached per walk. Links to
   * its other block candidates are left out: those share the twin's wording, so x (worded like its twin) meets
   * them directly, and reading every candidate of every twin again would double the cost of a full walk.
   */
  private coCache = new Map<number, Array<{ z: number; v: PairVerdict }>>();

  private passedOn(y: number): Set<number> {
    const fy = this.features[y] as MatchFeatures;
    const siblings = fy.group === null ? NONE : this.members.get(fy.group);
    const out = new Set<number>(siblings.length <= this.maxBlock ? siblings : NONE);
    for (const z of this.ladderNeighbours(y)) out.add(z);
    out.delete(y);
    return out;
  }

  private coNeighbours(y: number): Array<{ z: number; v: PairVerdict }> {
    const known = this.coCache.get(y);
    if (known) return known;
    const out: Array<{ z: number; v: PairVerdict }> = [];
    for (const z of this.passedOn(y)) {
      const v = this.verdict(y, z);
      if (v?.relation === 'co_dependent') out.push({ z, v });
    }
    // Bounded: a full walk visits markets in id order, so the twins it reads are mostly recent ones.
    if (this.coCache.size >= 4_096) this.coCache.clear();
    this.coCache.set(y, out);
    return out;
  }

  /**
   * Dependencies carried across a twin: x ≡ y (same_market) and y related to z (co_dependent) make x related to z
   * the same way (A ≡ A′ and A′ excludes B ⇒ A excludes B; A′ implies B ⇒ A implies B), where comparePair says
   * nothing about x and z directly (another venue's phrasing it cannot read). The evidence names the chain. A pair is
   * derived from either end (x's twin, or z's twin when z is processed), so every walk finds the same set.
   */
  private *throughTwins(x: number, bestCache: Map<number, Map<ExchangeId, number>>): Generator<Derived> {
    if (!this.multiPair) return;
    const twins = this.twinsOf(x, bestCache);
    if (twins.length === 0) return;
    const twinSet = new Set(twins);
    const done = new Set<number>();
    for (const y of twins) {
      for (const z of this.passedOn(y)) {
        if (z === x || twinSet.has(z) || done.has(z)) continue;
        // A pair comparePair decides (linked or not) is decided; only what it cannot read is derived. x's own verdicts
        // are memoized in a full walk, so this is asked first and the twin's link only where it says nothing.
        if (this.verdict(x, z) !== null) {
          done.add(z);
          continue;
        }
        if (this.verdict(y, z)?.relation !== 'co_dependent') continue;
        done.add(z);
        yield this.strongestChain(x, z, bestCache);
      }
    }
  }

  /**
   * The chain a derived pair is published with, whichever end found it: every twin of either end linked to the other
   * end is a chain; the strongest (then the lowest twin svc_id) is kept, so a full walk and a relinked neighbourhood
   * store the same confidence and evidence.
   */
  private strongestChain(x: number, z: number, bestCache: Map<number, Map<ExchangeId, number>>): Derived {
    let pick: { from: number; to: number; y: number; twin: PairVerdict; link: PairVerdict } | null = null;
    for (const [from, to] of [
      [x, z],
      [z, x],
    ] as const) {
      for (const y of this.twinsOf(from, bestCache)) {
        const twin = this.verdict(from, y);
        const link = y === to ? null : this.verdict(y, to);
        if (twin?.relation !== 'same_market' || link?.relation !== 'co_dependent') continue;
        const c = Math.min(twin.confidence, link.confidence);
        const best = pick ? Math.min(pick.twin.confidence, pick.link.confidence) : -1;
        const svc = (this.features[y] as MatchFeatures).svcId;
        if (c > best || (c === best && pick && svc < (this.features[pick.y] as MatchFeatures).svcId))
          pick = { from, to, y, twin, link };
      }
    }
    const { from, to, y, twin, link } = pick as NonNullable<typeof pick>;
    const [ff, fy, ft] = [from, y, to].map((i) => this.features[i] as MatchFeatures) as [
      MatchFeatures,
      MatchFeatures,
      MatchFeatures,
    ];
    const yToTo = y < to ? link.direction : mirror(link.direction);
    // The chain reads from `from`; the derived link is answered from x's side.
    const direction = from === x ? yToTo : mirror(yToTo);
    const confidence = Math.min(twin.confidence, link.confidence);
    return {
      z,
      verdict: {
        relation: 'co_dependent',
        confidence,
        tier: tierOf(confidence),
        source: 'deterministic_graph',
        dependencyType: link.dependencyType,
        direction,
        evidence: [
          `through twin ${fy.svcId}: ${ff.svcId} ≡ ${fy.svcId} (same_market ${twin.confidence.toFixed(3)}), ${fy.svcId} ${link.dependencyType} ${yToTo} ${ft.svcId}`,
          ...link.evidence.map((e) => `twin's link: ${e}`),
        ],
      },
    };
  }

  /**
   * Markets outside `scope` whose derived links may end in it: the twins of the markets related to it (a link z ~ s
   * derived from z's twin w, w related to s, is found from z's side only).
   */
  private farEnds(scope: ReadonlySet<number>, bestCache: Map<number, Map<ExchangeId, number>>): number[] {
    const out = new Set<number>();
    for (const s of scope) {
      for (const { z: w } of this.coNeighbours(s)) {
        for (const t of this.twinsOf(w, bestCache)) if (!scope.has(t)) out.add(t);
      }
    }
    return [...out];
  }
}

interface Derived {
  z: number;
  verdict: PairVerdict;
}

/**
 * A copy of `s` in one piece. An id composed of parts (`${venue}:${ticker}`, as the bench's synthetic markets and
 * any caller building them make) is a tree of cons cells, twice the bytes of its characters, for as long as the
 * engine holds it; JSON.parse answers a sequential string.
 */
function flat(s: string): string {
  return s.length < 13 ? s : (JSON.parse(JSON.stringify(s)) as string);
}

/** The two options ask the same thing of their option: the same condition (threshold) and finishing place. */
function sameCondition(a: MatchFeatures, b: MatchFeatures): boolean {
  if ((a.place ?? 1) !== (b.place ?? 1)) return false;
  const ta = a.threshold;
  const tb = b.threshold;
  if (ta === null || tb === null) return ta === tb;
  return ta.comparator === tb.comparator && ta.value === tb.value && ta.high === tb.high;
}

/** Every ladder, deadline and window group a market belongs to. */
function groupKeys(f: MatchFeatures): string[] {
  return [...ladderKeys(f), ...deadlineKeys(f), ...windowKeys(f)];
}

/** Ids at the nearest rung strictly below and strictly above `value` in a list sorted by rung. */
function nearest(list: ReadonlyArray<{ id: number; rung: number }>, value: number): number[] {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((list[mid] as { rung: number }).rung < value) lo = mid + 1;
    else hi = mid;
  }
  const out: number[] = [];
  const below = list[lo - 1]?.rung;
  if (below !== undefined)
    for (let i = lo - 1; i >= 0 && list[i]?.rung === below; i--) out.push((list[i] as { id: number }).id);
  let j = lo;
  while (j < list.length && list[j]?.rung === value) j++;
  const above = list[j]?.rung;
  if (above !== undefined)
    for (let i = j; i < list.length && list[i]?.rung === above; i++) out.push((list[i] as { id: number }).id);
  return out;
}
