// `subscribe { arbitrage: { min_edge_bps?, exchanges?, min_tier?, include_unsafe? } }`: the arbitrage opportunities
// between published twins (services/crossvenue/arbitrage-*.ts) pushed as they open, change and close. The scan is
// driven by the books themselves: each leg's book is followed through the book hub like any subscription (one
// upstream subscription per book however many clients; books of polled venues under the per-node fair pool, for
// this customer), and a direction is priced again only when one of its two books moved. A direction priced on the
// same two book states is priced once for every subscription on this node (ArbitrageScanner). Nothing is polled.
//
// Messages, all `type: "arbitrage"` with this subscription's own `server_seq` (exactly +1 each):
//   kind ready   what is watched: pairs, books, and what was left out and why (first message)
//   kind open    an opportunity the client has not been told of
//   kind update  one it was told of whose prices, sizes or curve changed (a new book time alone is not a change)
//   kind close   one it was told of that is gone: reason edge_gone (no size pays, or below min_edge_bps) or
//                book_stale (a leg's book is not fresh: nothing is priced on it), with the last opportunity sent
// At most EVENTS_PER_SECOND opens, updates and closes go out per connection (burst EVENTS_BURST); past that,
// directions wait and are sent in their latest state (a change and its undoing within the wait send nothing). A
// slow client is held the same way until it drains (checked at each heartbeat); a hopeless one is dropped.
import type { OrderBook } from '../domain/book.js';
import type { ExchangeId } from '../domain/exchanges.js';
import type { FeeSchedule } from '../domain/fees/schedule.js';
import { type Bucket, takeToken } from '../domain/token-bucket.js';
import {
  type ArbitrageOpportunity,
  bookKey,
  type Direction,
  type Priced,
  priceDirection,
  substance,
} from '../services/crossvenue/arbitrage-opportunity.js';
import type { PreparedScan } from '../services/crossvenue/arbitrage-service.js';
import type { BookHub, BookSubscription, BookTransport } from './book-hub.js';
import { isPoolRefusal } from './fair-pool.js';

export const EVENTS_PER_SECOND = 10;
export const EVENTS_BURST = 20;
/** Links one subscription scans at most (strongest first): four book holds each. */
export const MAX_WATCHED_PAIRS = 250;
/** Depth each leg's book is followed at: a change past it does not wake the scan. */
const WATCH_DEPTH = 100;

export interface ArbitrageFilter {
  exchanges: ExchangeId[];
  /** Null: any positive net profit. */
  minEdgeBps: number | null;
  includeUnsafe: boolean;
}

/**
 * Prices directions on this node, once per pair of book states and floor: subscriptions with the same floor share
 * the answer. Keyed by the books' own objects (a new state is a new object), so old states are collected with them.
 */
export class ArbitrageScanner {
  private readonly memo = new WeakMap<OrderBook, WeakMap<OrderBook, Map<string, Priced>>>();
  /** Directions priced (not answered from the memo): the scan's cost. */
  priced = 0;

  price(
    dir: Direction,
    books: [OrderBook, OrderBook],
    schedules: [FeeSchedule, FeeSchedule],
    floor: number | null,
  ): Priced {
    // A positive floor is applied to the shared answer for any positive profit; only near-miss floors differ.
    const shared = floor === null || floor >= 0 ? null : floor;
    let inner = this.memo.get(books[0]);
    if (!inner) {
      inner = new WeakMap();
      this.memo.set(books[0], inner);
    }
    let byDir = inner.get(books[1]);
    if (!byDir) {
      byDir = new Map();
      inner.set(books[1], byDir);
    }
    const key = `${dir.id}\u0000${shared ?? ''}`;
    let out = byDir.get(key);
    if (!out) {
      this.priced += 1;
      out = priceDirection(
        dir,
        [
          { book: books[0], schedule: schedules[0] },
          { book: books[1], schedule: schedules[1] },
        ],
        {
          minSize: 1,
          minEdgeBps: shared,
        },
      );
      byDir.set(key, out);
    }
    if (out.ok && floor !== null && floor > 0 && out.opportunity.edge_bps < floor) {
      return { ok: false, reason: 'below the edge asked for' };
    }
    return out;
  }
}

type State =
  | { open: true; opportunity: ArbitrageOpportunity }
  | { open: false; reason: 'edge_gone' | 'book_stale'; detail: string };

interface Watched {
  dir: Direction;
  legs: [BookSubscription, BookSubscription];
  schedules: [FeeSchedule, FeeSchedule];
}

export class ArbitrageSubscription {
  private seq = 0;
  private readonly books = new Map<string, BookSubscription>();
  /** Directions by the key of each book they use. */
  private readonly byBook = new Map<string, Watched[]>();
  private readonly watched: Watched[] = [];
  /** What the client was last told is open, by id, with its substance. */
  private readonly shown = new Map<string, { opportunity: ArbitrageOpportunity; substance: string }>();
  private readonly dirty = new Set<Watched>();
  private readonly bucket: Bucket;
  private scheduled = false;
  private timer: NodeJS.Timeout | null = null;
  private ready = false;
  private closed = false;

  constructor(
    private readonly hub: BookHub,
    private readonly scanner: ArbitrageScanner,
    scan: PreparedScan & { schedules: Map<string, FeeSchedule> },
    readonly filter: ArbitrageFilter,
    private readonly transport: BookTransport,
    customer: string,
    private readonly now: () => number = Date.now,
  ) {
    this.bucket = { tokens: EVENTS_BURST, updatedAt: now() };
    const leftOut: Array<Record<string, unknown>> = [
      ...scan.failed.map((f) => ({
        svc_id: f.svc_id,
        exchange: f.exchange,
        outcome: f.outcome,
        reason: f.error.error,
      })),
      ...scan.skipped.map((s) => ({ svc_id: s.svc_id, linked_svc_id: s.linked_svc_id, reason: s.reason })),
    ];
    const refused = new Set<string>();
    for (const dir of scan.directions) {
      const legs: BookSubscription[] = [];
      for (const leg of dir.legs) {
        const key = bookKey(leg.target);
        if (refused.has(key)) break;
        let sub = this.books.get(key);
        if (!sub) {
          const inner: BookTransport = {
            // Backpressure is this subscription's business, not each leg's.
            congestion: () => 'ok',
            send: (frame) => {
              if (!frame.startsWith('{"type":"activity"')) this.moved(key);
            },
            drop: (reason) => this.transport.drop(reason),
          };
          try {
            const got = hub.subscribe(leg.target, WATCH_DEPTH, inner, customer);
            if (isPoolRefusal(got)) {
              refused.add(key);
              leftOut.push({
                svc_id: leg.target.market.svc_id,
                exchange: leg.target.venue.descriptor.id,
                outcome: leg.target.outcome.name,
                reason: got.message,
              });
              break;
            }
            sub = got;
          } catch (error) {
            refused.add(key);
            leftOut.push({
              svc_id: leg.target.market.svc_id,
              exchange: leg.target.venue.descriptor.id,
              outcome: leg.target.outcome.name,
              reason: error instanceof Error ? error.message : 'the book could not be followed',
            });
            break;
          }
          this.books.set(key, sub);
        }
        legs.push(sub);
      }
      if (legs.length !== 2) continue;
      const schedules = dir.legs.map((l) => scan.schedules.get(bookKey(l.target))) as [
        FeeSchedule,
        FeeSchedule,
      ];
      const w: Watched = { dir, legs: legs as [BookSubscription, BookSubscription], schedules };
      this.watched.push(w);
      for (const l of dir.legs) {
        const key = bookKey(l.target);
        const list = this.byBook.get(key) ?? [];
        list.push(w);
        this.byBook.set(key, list);
      }
    }
    // A book taken for a direction whose other leg was refused serves nothing: let it go.
    for (const [key, sub] of [...this.books]) {
      if (this.byBook.has(key)) continue;
      hub.unsubscribe(sub);
      this.books.delete(key);
    }
    this.ready = true;
    this.emit(
      `"kind":"ready",${JSON.stringify({
        exchanges: filter.exchanges,
        min_edge_bps: filter.minEdgeBps,
        pairs: new Set(this.watched.map((w) => w.dir.pair)).size,
        directions: this.watched.length,
        books: this.books.size,
        left_out: leftOut,
      }).slice(1)}`,
    );
    for (const w of this.watched) this.dirty.add(w);
    this.flush();
  }

  /** A heartbeat: a client that was slow and has drained gets what waited. */
  catchUp(): void {
    if (!this.closed && this.dirty.size > 0) this.flush();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    for (const sub of this.books.values()) this.hub.unsubscribe(sub);
    this.books.clear();
  }

  private moved(key: string): void {
    if (!this.ready || this.closed) return;
    for (const w of this.byBook.get(key) ?? []) this.dirty.add(w);
    if (this.scheduled) return;
    this.scheduled = true;
    // Coalesced: the books of one venue message (or one burst) are priced once.
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private state(w: Watched): State {
    const books: OrderBook[] = [];
    for (const [i, leg] of w.legs.entries()) {
      const ch = leg.channel;
      const book = ch.fresh ? (ch.current?.book ?? null) : null;
      if (!book) {
        const t = w.dir.legs[i]?.target;
        return {
          open: false,
          reason: 'book_stale',
          detail: `${t?.market.svc_id} ${t?.outcome.name}: the book is not fresh`,
        };
      }
      books.push(book);
    }
    const priced = this.scanner.price(
      w.dir,
      books as [OrderBook, OrderBook],
      w.schedules,
      this.filter.minEdgeBps,
    );
    if (!priced.ok) return { open: false, reason: 'edge_gone', detail: priced.reason };
    if (priced.opportunity.unsafe && !this.filter.includeUnsafe) {
      return {
        open: false,
        reason: 'edge_gone',
        detail: 'the twins can settle differently (include_unsafe)',
      };
    }
    return { open: true, opportunity: priced.opportunity };
  }

  private flush(): void {
    if (this.closed) return;
    const congestion = this.transport.congestion();
    if (congestion === 'hopeless') {
      this.transport.drop('the client does not read its messages');
      return;
    }
    // A slow client: what changed waits (in its latest state) for the heartbeat that finds it drained.
    if (congestion === 'slow') return;
    for (const w of [...this.dirty]) {
      const id = w.dir.id;
      const now = this.state(w);
      const was = this.shown.get(id);
      let frame: string | null = null;
      if (now.open) {
        const sub = substance(now.opportunity);
        if (!was || was.substance !== sub) {
          frame = `"kind":"${was ? 'update' : 'open'}","opportunity":${JSON.stringify(now.opportunity)}}`;
        }
      } else if (was) {
        frame = `"kind":"close",${JSON.stringify({ id, reason: now.reason, detail: now.detail, opportunity: was.opportunity }).slice(1)}`;
      }
      if (frame !== null) {
        const taken = takeToken(this.bucket, EVENTS_PER_SECOND, EVENTS_BURST, this.now());
        if (!taken.allowed) {
          this.later(taken.retryAfterMs);
          return;
        }
        if (now.open)
          this.shown.set(id, { opportunity: now.opportunity, substance: substance(now.opportunity) });
        else this.shown.delete(id);
        this.emit(frame);
      }
      this.dirty.delete(w);
    }
  }

  private later(ms: number): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flush();
    }, ms);
    this.timer.unref();
  }

  /** `rest` is the JSON object's remainder after `"server_seq":n,`. */
  private emit(rest: string): void {
    this.seq += 1;
    this.transport.send(`{"type":"arbitrage","server_seq":${this.seq},${rest}`);
  }
}
