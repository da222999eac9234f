// The recording archive (`omnibook export` / `omnibook import`, docs/replay-format.md): one gzip stream of UTF-8
// JSON lines. A header line first, then records (events, markets, books, snapshots, trades), and an `end` line
// last whose sha256 covers every byte before it, so a truncated or altered file is refused before anything is
// written. Each record kind's TypeBox schema here is the format's definition; the reader checks every line with it.
import { type Static, Type } from 'typebox';
import { Compile } from 'typebox/compile';
import { ExchangeId } from '../../domain/exchanges.js';

/** The format's name in the header: a file of any other name is not an archive. */
export const ARCHIVE_FORMAT = 'omnibook-recording';
/** Bumped whenever a reader of the previous version would misread a file (docs/replay-format.md). */
export const ARCHIVE_VERSION = 1;

const Exchange = ExchangeId;
const Ms = Type.Integer({ minimum: 0 });
/** Exact decimal text, as stored. */
const DecimalText = Type.String({ pattern: '^-?\\d+(\\.\\d+)?$', maxLength: 64 });

export const HeaderRecord = Type.Object({
  kind: Type.Literal('header'),
  format: Type.Literal(ARCHIVE_FORMAT),
  version: Type.Integer({ minimum: 1 }),
  created_at: Type.String(),
  /** The window, Unix ms, both inclusive. */
  from_ms: Ms,
  to_ms: Ms,
  /** The one exchange exported, or null for every exchange. */
  exchange: Type.Union([Exchange, Type.Null()]),
  /** The omnibook version that wrote the file (informative). */
  writer: Type.String(),
});

/** A catalogue event row (the `events` table), for the markets below. */
export const EventRecord = Type.Object({
  kind: Type.Literal('event'),
  svc_group_id: Type.String({ minLength: 1 }),
  exchange: Exchange,
  exchange_group_id: Type.String(),
  title: Type.String(),
  title_lc: Type.String(),
  status: Type.String(),
  close_time: Type.Union([Type.String(), Type.Null()]),
  volume_total: Type.Union([Type.Number(), Type.Null()]),
  synced_at: Type.String(),
});

/** A catalogue market: the served Market document as stored, and when it was synced. */
export const MarketRecord = Type.Object({
  kind: Type.Literal('market'),
  synced_at: Type.String(),
  market: Type.Object({ svc_id: Type.String({ minLength: 1 }), exchange: Exchange }),
});

/** A recorded instrument; `ref` names it inside this file only (ids are not portable between stores). */
export const BookRecord = Type.Object({
  kind: Type.Literal('book'),
  ref: Type.Integer({ minimum: 1 }),
  exchange: Exchange,
  market_id: Type.String({ minLength: 1 }),
  token_id: Type.String({ minLength: 1 }),
  svc_id: Type.String({ minLength: 1 }),
  outcome: Type.String(),
});

/** One recorded book state: the packed levels (store/book-snapshot-codec.ts) in base64. */
export const SnapshotRecord = Type.Object({
  kind: Type.Literal('snapshot'),
  book: Type.Integer({ minimum: 1 }),
  ts_ms: Ms,
  levels: Type.String({ contentEncoding: 'base64' }),
});

export const TradeRecord = Type.Object({
  kind: Type.Literal('trade'),
  book: Type.Integer({ minimum: 1 }),
  trade_id: Type.String({ minLength: 1 }),
  ts_ms: Ms,
  ingest_ms: Ms,
  price: DecimalText,
  size: DecimalText,
  side: Type.Union([Type.Literal('buy'), Type.Literal('sell')]),
  aggressor_side: Type.Union([Type.Literal('buy'), Type.Literal('sell'), Type.Null()]),
  source_channel: Type.String(),
});

export const RecordCounts = Type.Object({
  event: Type.Integer({ minimum: 0 }),
  market: Type.Integer({ minimum: 0 }),
  book: Type.Integer({ minimum: 0 }),
  snapshot: Type.Integer({ minimum: 0 }),
  trade: Type.Integer({ minimum: 0 }),
});
export type RecordCounts = Static<typeof RecordCounts>;

/** The last line: how many records of each kind precede it, and the sha256 (hex) of every byte before it. */
export const EndRecord = Type.Object({
  kind: Type.Literal('end'),
  counts: RecordCounts,
  sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
});

export type HeaderRecord = Static<typeof HeaderRecord>;
export type EventRecord = Static<typeof EventRecord>;
export type MarketRecord = Static<typeof MarketRecord>;
export type BookRecord = Static<typeof BookRecord>;
export type SnapshotRecord = Static<typeof SnapshotRecord>;
export type TradeRecord = Static<typeof TradeRecord>;
export type EndRecord = Static<typeof EndRecord>;
export type ArchiveRecord = EventRecord | MarketRecord | BookRecord | SnapshotRecord | TradeRecord;

export const checkHeader = Compile(HeaderRecord);
export const checkEnd = Compile(EndRecord);
export const RECORD_CHECKS = {
  event: Compile(EventRecord),
  market: Compile(MarketRecord),
  book: Compile(BookRecord),
  snapshot: Compile(SnapshotRecord),
  trade: Compile(TradeRecord),
} as const;

export function emptyCounts(): RecordCounts {
  return { event: 0, market: 0, book: 0, snapshot: 0, trade: 0 };
}

/** A file that is not a whole, intact archive this reader understands; the message says what is wrong. */
export class ArchiveError extends Error {
  override readonly name = 'ArchiveError';
}
