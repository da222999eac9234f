// GET /orderbook, historical mode (start_ts / end_ts / cursor): the snapshots the book recorder stored for one
// outcome, oldest first, a page at a time. The window defaults to the day before `end_ts` (default now) and is held
// to the caller's tier; a market nobody recorded in the window is an empty page, not an error (the recorder only
// records the books it is told to). With the recorder off, the mode answers 501.
import { type Static, Type } from 'typebox';
import { BookLevel } from '../../domain/book.js';
import { ExchangeId } from '../../domain/exchanges.js';
import { AppError, validationError } from '../../errors/app-error.js';
import { decodeBook } from '../../store/book-snapshot-codec.js';
import type { CallerContext } from '../caller-context.js';
import { decodeCursor, encodeCursor, queryFingerprint } from '../catalogue/list-cursor.js';
import { assertInTierWindow, clampToTierWindow } from './history-window.js';
import type { MarketSelector, MarketTargets } from './market-target.js';

export const HISTORY_LIMIT_DEFAULT = 500;
export const HISTORY_LIMIT_MAX = 1000;
/** The default window: one day before end_ts. */
const DEFAULT_SPAN_S = 86_400;

export const BookSnapshot = Type.Object({
  timestamp: Type.String({ description: 'When the recorder took this state of the book, ISO 8601' }),
  bids: Type.Array(BookLevel, { description: '[price, size], best (highest) first' }),
  asks: Type.Array(BookLevel, { description: '[price, size], best (lowest) first' }),
});
export type BookSnapshot = Static<typeof BookSnapshot>;

export const HistoricalOrderbook = Type.Object({
  svc_id: Type.String(),
  exchange: ExchangeId,
  outcome: Type.String(),
  token_id: Type.String(),
  market_id: Type.String(),
  tick_size: Type.Union([Type.Number(), Type.Null()], {
    description: "The tick of the page's newest snapshot (the market's when the page is empty)",
  }),
  snapshots: Type.Array(BookSnapshot, {
    description: 'Oldest first; one per recorded change of the book, at most one per recorder interval',
  }),
  has_more: Type.Boolean(),
  next_cursor: Type.Union([Type.String(), Type.Null()], {
    description: 'Pass back as cursor with the same query; null on the last page',
  }),
});
export type HistoricalOrderbook = Static<typeof HistoricalOrderbook>;

export interface HistoryQuery extends MarketSelector {
  start_ts?: number | undefined;
  end_ts?: number | undefined;
  cursor?: string | undefined;
  limit?: number | undefined;
  depth?: number | undefined;
}

/** What the service needs of BookSnapshotsRepo. */
export interface SnapshotSource {
  findBookId(exchange: ExchangeId, marketId: string, tokenId: string): Promise<number | null>;
  range(
    bookId: number,
    fromMs: number,
    toMs: number,
    afterMs: number | null,
    limit: number,
  ): Promise<Array<{ tsMs: number; levels: Buffer }>>;
}

export class OrderbookHistoryService {
  constructor(
    private readonly targets: MarketTargets,
    private readonly snapshots: SnapshotSource,
    /** The recorder runs on this server (config recorder.enabled). */
    private readonly enabled: boolean,
    private readonly nowS: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  async history(q: HistoryQuery, caller: CallerContext): Promise<HistoricalOrderbook> {
    if (!this.enabled) {
      throw new AppError(
        'not_supported',
        'order book history (fetch_orderbook_history) is not recorded on this server: recorder.enabled is off',
      );
    }
    const nowS = this.nowS();
    if (q.start_ts !== undefined && q.end_ts !== undefined && q.start_ts > q.end_ts) {
      throw validationError(['start_ts must not be after end_ts']);
    }
    if (q.start_ts !== undefined) assertInTierWindow(q.start_ts, caller, nowS, 'start_ts');
    else if (q.end_ts !== undefined) assertInTierWindow(q.end_ts, caller, nowS, 'end_ts');
    const endS = q.end_ts ?? nowS;
    const startS = q.start_ts ?? clampToTierWindow(endS - DEFAULT_SPAN_S, caller, nowS);
    if (startS > endS) throw validationError(['start_ts must not be after end_ts (default: now)']);
    const limit = q.limit ?? HISTORY_LIMIT_DEFAULT;
    if (limit > HISTORY_LIMIT_MAX) {
      throw validationError([`limit must be at most ${HISTORY_LIMIT_MAX} snapshots`]);
    }

    const target = await this.targets.resolve(q, 'fetch_orderbook_history', caller);
    const { venue, market, outcome } = target;
    const fingerprint = queryFingerprint([
      'orderbook-history',
      market.svc_id,
      outcome.token_id,
      q.start_ts ?? null,
      q.end_ts ?? null,
      q.depth ?? null,
    ]);
    const after = q.cursor === undefined ? null : cursorPosition(q.cursor, fingerprint);

    const bookId = await this.snapshots.findBookId(
      venue.descriptor.id,
      market.exchange_market_id,
      outcome.token_id,
    );
    // end_ts is a whole second: everything recorded during it is inside.
    const rows =
      bookId === null
        ? []
        : await this.snapshots.range(bookId, startS * 1000, endS * 1000 + 999, after, limit + 1);
    const page = rows.slice(0, limit);
    const depth = q.depth;
    let tick: number | null = market.tick_size ?? null;
    const snapshots = page.map((row) => {
      const book = decodeBook(row.levels);
      tick = book.tick_size;
      return {
        timestamp: new Date(row.tsMs).toISOString(),
        bids: depth === undefined ? book.bids : book.bids.slice(0, depth),
        asks: depth === undefined ? book.asks : book.asks.slice(0, depth),
      };
    });
    const last = page[page.length - 1];
    const hasMore = rows.length > limit && last !== undefined;
    return {
      svc_id: market.svc_id,
      exchange: venue.descriptor.id,
      outcome: outcome.name,
      token_id: outcome.token_id,
      market_id: market.exchange_market_id,
      tick_size: tick,
      snapshots,
      has_more: hasMore,
      next_cursor:
        hasMore && last
          ? encodeCursor(fingerprint, [last.tsMs, positionCheck(fingerprint, last.tsMs)])
          : null,
    };
  }
}

/**
 * A check over the position, so an edited cursor is a 400 rather than a page from elsewhere. It is not a secret:
 * a position anyone could forge selects only snapshots the same query may read anyway.
 */
function positionCheck(fingerprint: string, tsMs: number): string {
  return queryFingerprint(['orderbook-history-position', fingerprint, tsMs]);
}

function cursorPosition(cursor: string, fingerprint: string): number {
  const [tsMs, check] = decodeCursor(cursor, fingerprint, 2);
  if (
    typeof tsMs !== 'number' ||
    !Number.isSafeInteger(tsMs) ||
    tsMs < 0 ||
    check !== positionCheck(fingerprint, tsMs)
  ) {
    throw validationError(['cursor is not a cursor this server issued']);
  }
  return tsMs;
}
