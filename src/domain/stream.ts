// What venue streams deliver, venue-neutral: book snapshots and deltas, trades, feed health, and the user's order
// and fill updates. The realtime gateway turns these into the wire contract's WebSocket messages.
import type { OrderBook, Trade } from './book.js';
import type { Fill, Order } from './trading.js';

export type FeedState = 'healthy' | 'degraded' | 'disconnected';

/** One outcome's book on one market: what a market subscription names. */
export interface Instrument {
  market_id: string;
  outcome: string;
  token_id: string;
}

export interface BookChange {
  side: 'bid' | 'ask';
  price: number;
  /** New absolute size at that price; 0 removes the level. */
  size: number;
}

export type MarketStreamEvent =
  /** A full book; replaces whatever the subscriber held for that instrument. */
  | { type: 'book_snapshot'; book: OrderBook; exchange_ts_ms: number | null; received_ts_ms: number }
  | {
      type: 'book_delta';
      instrument: Instrument;
      changes: BookChange[];
      exchange_ts_ms: number | null;
      received_ts_ms: number;
    }
  /** A public trade; `source_channel` names the venue feed it came from (as on GET /trades). */
  | { type: 'trade'; instrument: Instrument; trade: Trade; source_channel: string; received_ts_ms: number }
  | { type: 'tick_size'; instrument: Instrument; tick_size: number }
  /** The adapter found its view of a book broken (sequence gap, reconnect); a fresh snapshot follows. */
  | { type: 'resync'; instrument: Instrument; reason: string }
  /**
   * The upstream connection's state; `instruments` names the books it carries when a stream spreads its books over
   * several connections (absent: every book of the stream).
   */
  | { type: 'feed_state'; state: FeedState; reason: string; instruments?: Instrument[] };

export type UserStreamEvent =
  | { type: 'order'; order: Order }
  | { type: 'fill'; fill: Fill }
  | { type: 'feed_state'; state: FeedState; reason: string };
