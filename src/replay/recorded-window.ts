// A recorded window read into memory once, before the replay server starts: every recorded book whose market is in
// the catalogue, its state at the window's start, and every book state and public trade inside the window, merged
// into one timeline of steps (one per distinct millisecond). Reading it all first keeps the replay independent of
// the store it came from (a replay never writes to the recording) and its order fixed: within a millisecond, books
// in id order, a book's trades (in trade-id order) before its new state.

import type { Insertable, Selectable } from 'kysely';
import type { ExchangeId } from '../domain/exchanges.js';
import type { Market } from '../domain/market.js';
import { decodeBook, type RecordedBook } from '../store/book-snapshot-codec.js';
import { BookSnapshotsRepo, type RecordedInstrument } from '../store/book-snapshots-repo.js';
import type { Store } from '../store/database.js';
import type { Database } from '../store/schema.js';

/** A stored link row, copied as it is into the replay's working store. */
export type LinkRow = Insertable<Database['market_links']>;

import { MarketsRepo } from '../store/markets-repo.js';
import { type RecordedTradeRow, RecordedTradesRepo } from '../store/recorded-trades-repo.js';

export interface WindowBook {
  /** Index in `ReplayWindow.books`. */
  index: number;
  instrument: RecordedInstrument;
  market: Market;
  /** The book's state when the window opens (its last recorded state at or before `fromMs`), or null. */
  initial: { tsMs: number; book: RecordedBook } | null;
}

export type WindowEvent =
  | { kind: 'trade'; book: number; tsMs: number; trade: RecordedTradeRow }
  | { kind: 'book'; book: number; tsMs: number; state: RecordedBook };

export interface ReplayStep {
  tsMs: number;
  events: WindowEvent[];
}

export interface ReplayWindow {
  fromMs: number;
  toMs: number;
  books: WindowBook[];
  markets: Market[];
  steps: ReplayStep[];
  /** Book states inside the window, and how long the recorder took to write them (first to last ingest). */
  bookStates: number;
  trades: number;
  /** The recording's published same_market links between the window's markets (the twins strategies trade). */
  links: LinkRow[];
}

const PAGE = 5_000;

export async function loadWindow(
  store: Store,
  window: { fromMs: number; toMs: number; exchanges?: readonly ExchangeId[] },
): Promise<ReplayWindow> {
  const snapshots = new BookSnapshotsRepo(store.db);
  const tradesRepo = new RecordedTradesRepo(store.db);
  const marketsRepo = new MarketsRepo(store.db, store.dialect);
  const all = (await snapshots.books()).filter(
    (b) => !window.exchanges || window.exchanges.includes(b.exchange),
  );
  const docs = await marketsRepo.findBySvcIds([...new Set(all.map((b) => b.svc_id))]);
  const markets = new Map<string, Market>();
  for (const [svcId, doc] of docs) markets.set(svcId, JSON.parse(doc.toString('utf8')) as Market);
  const books: WindowBook[] = [];
  const events: WindowEvent[] = [];
  let bookStates = 0;
  let tradeCount = 0;
  for (const instrument of all) {
    const market = markets.get(instrument.svc_id);
    if (!market) continue;
    const index = books.length;
    const before = await snapshots.atOrBefore(instrument.id, window.fromMs);
    books.push({
      index,
      instrument,
      market,
      initial: before ? { tsMs: before.tsMs, book: decodeBook(before.levels) } : null,
    });
    for (let after: number | null = window.fromMs; ; ) {
      const rows = await snapshots.range(instrument.id, window.fromMs, window.toMs, after, PAGE);
      for (const r of rows)
        events.push({ kind: 'book', book: index, tsMs: r.tsMs, state: decodeBook(r.levels) });
      bookStates += rows.length;
      if (rows.length < PAGE) break;
      after = rows[rows.length - 1]?.tsMs ?? null;
    }
    for (let after: { tsMs: number; tradeId: string } | null = null; ; ) {
      const rows = await tradesRepo.range(instrument.id, window.fromMs, window.toMs, after, PAGE);
      for (const trade of rows) events.push({ kind: 'trade', book: index, tsMs: trade.tsMs, trade });
      tradeCount += rows.length;
      const last = rows[rows.length - 1];
      if (rows.length < PAGE || !last) break;
      after = { tsMs: last.tsMs, tradeId: last.tradeId };
    }
  }
  // Stable sort: per book, trades were read in (ts, id) order and states in ts order.
  events.sort((a, b) => a.tsMs - b.tsMs || a.book - b.book || rank(a) - rank(b));
  const steps: ReplayStep[] = [];
  for (const event of events) {
    const last = steps[steps.length - 1];
    if (last && last.tsMs === event.tsMs) last.events.push(event);
    else steps.push({ tsMs: event.tsMs, events: [event] });
  }
  const svcIds = [...new Set(books.map((b) => b.market.svc_id))];
  const links =
    svcIds.length === 0
      ? []
      : ((await store.db
          .selectFrom('market_links')
          .selectAll()
          .where('kind', '=', 'same_market')
          .where('svc_id', 'in', svcIds)
          .where('linked_svc_id', 'in', svcIds)
          .orderBy('svc_id')
          .orderBy('linked_svc_id')
          .execute()) as Array<Selectable<Database['market_links']>>);
  return {
    links,
    fromMs: window.fromMs,
    toMs: window.toMs,
    books,
    markets: [...new Map(books.map((b) => [b.market.svc_id, b.market])).values()],
    steps,
    bookStates,
    trades: tradeCount,
  };
}

function rank(e: WindowEvent): number {
  return e.kind === 'trade' ? 0 : 1;
}
