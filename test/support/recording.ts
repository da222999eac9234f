// A recorded window written straight into a real store through the recorder's repositories (book states through
// BookSnapshotsRepo and the codec, trades through RecordedTradesRepo, markets and links as the catalogue writes
// them): what `omnibook replay` reads, without running a recorder for minutes.
import type { Market } from '../../src/domain/market.js';
import { encodeBook, type RecordedBook } from '../../src/store/book-snapshot-codec.js';
import { BookSnapshotsRepo } from '../../src/store/book-snapshots-repo.js';
import type { Store } from '../../src/store/database.js';
import { LinksRepo } from '../../src/store/links-repo.js';
import { MarketsRepo } from '../../src/store/markets-repo.js';
import { type RecordedTradeRow, RecordedTradesRepo } from '../../src/store/recorded-trades-repo.js';

/** 2026-01-01T00:00:00Z: the window of the standard recording starts here. */
export const T0 = Date.UTC(2026, 0, 1);

export function binaryMarket(exchange: Market['exchange'], id: string, question: string): Market {
  return {
    svc_id: `${exchange}:${id}`,
    svc_group_id: `${exchange}:g-${id}`,
    exchange,
    exchange_market_id: id,
    exchange_group_id: `g-${id}`,
    question,
    group_title: question,
    status: 'active',
    market_type: 'binary',
    outcomes: [
      { name: 'Yes', price: 0.5, token_id: `${id}-yes` },
      { name: 'No', price: 0.5, token_id: `${id}-no` },
    ],
    volume_total: 1000,
    best_bid: null,
    best_ask: null,
    last_price: null,
    volume_24h: null,
    liquidity: null,
    open_interest: null,
    min_order_size: 1,
    tick_size: 0.01,
    created_at: null,
    updated_at: null,
    end_date: null,
    event_start_time: null,
    image_url: null,
    icon_url: null,
    price_updated_at: null,
  };
}

export interface RecordedBookSpec {
  market: Market;
  outcome: 'Yes' | 'No';
  states: Array<{ tsMs: number; book: RecordedBook }>;
  trades: Array<Omit<RecordedTradeRow, 'bookId' | 'ingestMs' | 'sourceChannel'>>;
}

export async function writeRecording(
  store: Store,
  books: readonly RecordedBookSpec[],
  links: ReadonlyArray<[string, string]> = [],
): Promise<void> {
  const snapshots = new BookSnapshotsRepo(store.db);
  const trades = new RecordedTradesRepo(store.db);
  const markets = [...new Map(books.map((b) => [b.market.svc_id, b.market])).values()];
  await new MarketsRepo(store.db, store.dialect).upsertMany(markets, new Date(T0).toISOString());
  for (const spec of books) {
    const outcome = spec.market.outcomes.find((o) => o.name === spec.outcome);
    const bookId = await snapshots.bookId({
      exchange: spec.market.exchange,
      market_id: spec.market.exchange_market_id,
      token_id: outcome?.token_id ?? '',
      svc_id: spec.market.svc_id,
      outcome: spec.outcome,
    });
    await snapshots.insertMany(
      spec.states.map((s) => ({ bookId, tsMs: s.tsMs, levels: encodeBook(s.book) })),
    );
    await trades.insertMany(
      spec.trades.map((t) => ({
        ...t,
        bookId,
        ingestMs: t.tsMs + 5,
        sourceChannel: `${spec.market.exchange}_ws`,
      })),
    );
  }
  const published = links.flatMap(([a, b]) =>
    [
      [a, b],
      [b, a],
    ].map(([svc_id, linked_svc_id]) => ({
      svc_id: svc_id as string,
      linked_svc_id: linked_svc_id as string,
      kind: 'same_market' as const,
      confidence: 0.95,
      confidence_tier: 'HIGH' as const,
      source: 'test',
    })),
  );
  await new LinksRepo(store.db).publish(published, new Date(T0).toISOString());
}

const book = (bids: Array<[number, number]>, asks: Array<[number, number]>): RecordedBook => ({
  bids,
  asks,
  tick_size: 0.01,
});

/**
 * The standard recording: Polymarket `pm-1` Yes and its twin Kalshi `KX-1` Yes, a state before the window
 * and states and trades inside it (the fill-rule walkthrough of docs/replay.md uses the same numbers).
 */
export function standardRecording(): { books: RecordedBookSpec[]; links: Array<[string, string]> } {
  const pm = binaryMarket('polymarket', 'pm-1', 'Will it rain in Paris on 2 January?');
  const kx = binaryMarket('kalshi', 'KX-1', 'Rain in Paris on January 2?');
  return {
    books: [
      {
        market: pm,
        outcome: 'Yes',
        states: [
          {
            tsMs: T0 - 1_000,
            book: book(
              [
                [0.5, 30],
                [0.49, 50],
              ],
              [
                [0.52, 10],
                [0.53, 20],
                [0.55, 40],
              ],
            ),
          },
          {
            tsMs: T0 + 3_000,
            book: book(
              [
                [0.5, 5],
                [0.49, 50],
              ],
              [
                [0.52, 10],
                [0.53, 20],
              ],
            ),
          },
          {
            tsMs: T0 + 5_000,
            book: book(
              [
                [0.51, 12],
                [0.5, 40],
              ],
              [[0.54, 25]],
            ),
          },
          { tsMs: T0 + 8_000, book: book([[0.56, 30]], [[0.58, 30]]) },
        ],
        trades: [
          { tradeId: 't1', tsMs: T0 + 1_000, price: '0.5', size: '20', side: 'sell', aggressorSide: 'sell' },
          { tradeId: 't2', tsMs: T0 + 2_000, price: '0.5', size: '15', side: 'sell', aggressorSide: 'sell' },
          {
            tradeId: 't3',
            tsMs: T0 + 4_000,
            price: '0.49',
            size: '100',
            side: 'sell',
            aggressorSide: 'sell',
          },
          { tradeId: 't4', tsMs: T0 + 6_000, price: '0.54', size: '7', side: 'buy', aggressorSide: 'buy' },
        ],
      },
      {
        market: kx,
        outcome: 'Yes',
        states: [
          { tsMs: T0 - 500, book: book([[0.55, 100]], [[0.57, 100]]) },
          { tsMs: T0 + 2_000, book: book([[0.56, 80]], [[0.58, 90]]) },
          { tsMs: T0 + 7_000, book: book([[0.5, 60]], [[0.52, 60]]) },
        ],
        trades: [
          { tradeId: 'k1', tsMs: T0 + 2_500, price: '0.57', size: '3', side: 'buy', aggressorSide: 'buy' },
        ],
      },
    ],
    links: [[pm.svc_id, kx.svc_id]],
  };
}
