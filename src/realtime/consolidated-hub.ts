// `subscribe { markets: [{ svc_id, outcome, consolidated: true }] }`: one bet's book across the venues that list it
// (the market and its published same_market twins, outcomes mapped through the link: services/crossvenue/twins.ts).
// Each venue's book is followed through the book hub like any other subscription (one upstream subscription per
// book however many clients), on an inner transport that only says "this venue's book moved"; the merged book is
// then cut to the subscription's depth and sent as `orderbook` (kind snapshot) or `orderbook_delta` (changes
// `{side, price, size, exchange}`, size 0 removes that exchange's level), with `consolidated: true`, numbered by its
// own `server_seq` (exactly +1 per message). Whenever a venue's state changes (a book goes stale or comes back) the
// subscription sends a fresh snapshot whose `venues` say which books it holds; a stale venue's levels are left out,
// never patched by guesswork.
import { levelsFromBook } from '../domain/book-walk.js';
import { consolidateSide, diffConsolidated } from '../domain/crossvenue/consolidated-book.js';
import type { ExchangeId } from '../domain/exchanges.js';
import { type FailedVenue, failed, type ResolvedVenue } from '../services/crossvenue/twins.js';
import type { BookHub, BookSubscription, BookTransport } from './book-hub.js';

type WireLevel = [number, number, ExchangeId];

interface Leg {
  venue: ResolvedVenue;
  sub: BookSubscription | null;
}

export class ConsolidatedSubscription {
  private seq = 0;
  private sent: { bids: WireLevel[]; asks: WireLevel[]; states: string } | null = null;
  private readonly legs: Leg[] = [];
  private readonly failed: FailedVenue[];
  private ready = false;
  private conflated = false;
  private closed = false;

  constructor(
    private readonly hub: BookHub,
    readonly svcId: string,
    readonly outcome: string,
    failedVenues: readonly FailedVenue[],
    venues: readonly ResolvedVenue[],
    readonly depth: number,
    private readonly transport: BookTransport,
  ) {
    const inner: BookTransport = {
      // Backpressure is this subscription's business (it conflates as a whole), not each leg's.
      congestion: () => 'ok',
      send: (frame) => {
        if (!frame.startsWith('{"type":"activity"')) this.moved();
      },
      drop: (reason) => this.transport.drop(reason),
    };
    this.failed = [...failedVenues];
    for (const venue of venues) {
      try {
        this.legs.push({ venue, sub: hub.subscribe(venue.target, depth, inner) });
      } catch (error) {
        // A book its venue refuses is listed with the error, as a twin that failed to resolve.
        this.failed.push(failed(venue, error));
      }
    }
    this.ready = true;
    this.snapshot();
  }

  /** Sends the merged book as a snapshot (subscribe, resync, a venue's state changed). */
  snapshot(): void {
    if (this.closed) return;
    const { bids, asks, states, venues } = this.merged();
    this.emit(
      'orderbook',
      `${this.header(venues)},"kind":"snapshot","bids":${JSON.stringify(bids)},"asks":${JSON.stringify(asks)}}`,
    );
    this.sent = { bids, asks, states };
  }

  /** A heartbeat: a conflated subscription whose client caught up gets the latest merged book. */
  catchUp(): void {
    if (this.closed || !this.conflated || this.transport.congestion() !== 'ok') return;
    this.conflated = false;
    this.snapshot();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const leg of this.legs) if (leg.sub) this.hub.unsubscribe(leg.sub);
  }

  private moved(): void {
    if (!this.ready || this.closed) return;
    const congestion = this.transport.congestion();
    if (congestion === 'hopeless') {
      this.transport.drop('the client does not read its messages');
      return;
    }
    if (this.conflated) return;
    if (congestion === 'slow') {
      this.conflated = true;
      this.emit(
        'slow_reader',
        `"svc_id":${JSON.stringify(this.svcId)},"outcome":${JSON.stringify(this.outcome)},"consolidated":true}`,
      );
      return;
    }
    const next = this.merged();
    if (!this.sent || next.states !== this.sent.states) {
      this.snapshot();
      return;
    }
    const changes = diffConsolidated(this.sent, next);
    this.sent = { bids: next.bids, asks: next.asks, states: next.states };
    if (changes.length === 0) return;
    this.emit(
      'orderbook_delta',
      `${this.header(next.venues)},"kind":"delta","changes":${JSON.stringify(changes)}}`,
    );
  }

  private merged() {
    const buy = [];
    const sell = [];
    const venues: Array<Record<string, unknown>> = [];
    for (const { venue, sub } of this.legs) {
      const ch = sub?.channel;
      const book = ch?.fresh ? (ch.current?.book ?? null) : null;
      const exchange = venue.target.venue.descriptor.id;
      venues.push({
        svc_id: venue.target.market.svc_id,
        exchange,
        outcome: venue.target.outcome.name,
        token_id: venue.target.outcome.token_id,
        book_state: book ? 'fresh' : 'stale',
        exchange_ts_ms: book ? Date.parse(book.timestamp) : null,
        link_confidence: venue.link?.confidence ?? null,
        inverted: venue.link?.inverted ?? false,
      });
      if (!book) continue;
      buy.push({ exchange, levels: levelsFromBook(book.asks), fee: () => null });
      sell.push({ exchange, levels: levelsFromBook(book.bids), fee: () => null });
    }
    for (const f of this.failed) {
      venues.push({
        svc_id: f.svc_id,
        exchange: f.exchange,
        outcome: f.outcome,
        token_id: f.token_id,
        book_state: 'needs_refresh',
        exchange_ts_ms: null,
        link_confidence: f.link?.confidence ?? null,
        inverted: f.link?.inverted ?? false,
        error: f.error,
      });
    }
    const wire = (l: ReturnType<typeof consolidateSide>[number]): WireLevel => [
      l.price.toNumber(),
      l.size.toNumber(),
      l.exchange,
    ];
    return {
      bids: consolidateSide('sell', sell, this.depth).map(wire),
      asks: consolidateSide('buy', buy, this.depth).map(wire),
      states: venues.map((v) => v.book_state).join(','),
      venues,
    };
  }

  private header(venues: ReadonlyArray<Record<string, unknown>>): string {
    const fresh = venues.filter((v) => v.book_state === 'fresh').length;
    return JSON.stringify({
      svc_id: this.svcId,
      outcome: this.outcome,
      consolidated: true,
      book_state: fresh === venues.length ? 'fresh' : fresh > 0 ? 'stale' : 'needs_refresh',
      venues,
    }).slice(1, -1);
  }

  /** `rest` is the JSON object's remainder after its opening brace. */
  private emit(type: string, rest: string): void {
    this.seq += 1;
    this.transport.send(`{"type":"${type}","server_seq":${this.seq},${rest}`);
  }
}
