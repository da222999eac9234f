// Paging a venue's public trade tape newest first when the venue cannot filter by time or by outcome itself
// (Polymarket's Data API, Limitless's market events, Predict.fun's matches): pages are read from where the last
// page ended, trades outside the window are dropped, and the walk stops at the first trade older than the window.
// Offset and page-number tapes shift when trades arrive, so a cursor re-reads from the page of the last trade it
// returned and skips what it already returned (by time, then by key) rather than trusting a position alone.
import { createHash } from 'node:crypto';
import type { Trade } from '../../domain/book.js';
import { AppError } from '../../errors/app-error.js';
import type { TradesQuery } from '../port.js';

export interface TapeRow<H> {
  trade: Trade;
  /** Where a re-read that still includes this trade begins (its page, or its own offset). */
  resume: H;
  /**
   * What the row is, whichever page it is read on; default the trade id. Rows a venue cannot tell apart (two
   * identical rows of one transaction) share a key, and are skipped as many times as they were returned.
   */
  key?: string;
}

export interface TapePage<H> {
  /** Newest first, already narrowed to the requested outcome. */
  rows: TapeRow<H>[];
  /** The next (older) page, or null at the end of what the venue serves. */
  next: H | null;
}

export interface TapeWalk<H extends string | number | null> {
  /** Where the newest page starts. */
  first: H;
  fetchPage(at: H): Promise<TapePage<H>>;
  /** Upstream pages one request may read; a page cut short by it still carries a cursor. */
  maxPages: number;
  /** Whether a handle read back from a cursor is one this venue can use (clients can send anything). */
  isHandle(value: unknown): value is H;
}

interface Anchor {
  /** Milliseconds of the last trade returned. */
  ms: number;
  /**
   * Digests of the keys returned at exactly that millisecond, repeated as often as returned (a later page may hold
   * more). Digests, not keys: a busy second can hold hundreds of trades and the cursor travels in a URL.
   */
  keys: string[];
}

/** 48 bits of a key: a cursor never holds enough keys of one millisecond for two to collide in practice. */
function digest(key: string): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 8);
}

interface TapeCursor<H> {
  at: H;
  anchor: Anchor | null;
}

export async function walkTape<H extends string | number | null>(
  walk: TapeWalk<H>,
  query: TradesQuery,
): Promise<{ trades: Trade[]; cursor: string | null }> {
  const resumed = query.cursor === null ? null : readCursor(query.cursor, walk);
  const startMs = query.startTs === null ? null : query.startTs * 1000;
  const endMs = query.endTs === null ? null : query.endTs * 1000 + 999;
  const anchor = resumed?.anchor ?? null;
  // What is still to skip at the anchor's millisecond: each returned key once per time it was returned.
  const toSkip = new Map<string, number>();
  for (const key of anchor?.keys ?? []) toSkip.set(key, (toSkip.get(key) ?? 0) + 1);
  let at: H = resumed ? resumed.at : walk.first;
  const out: Array<{ trade: Trade; ms: number; resume: H; key: string }> = [];
  let exhausted = false;
  for (let pages = 0; pages < walk.maxPages && out.length <= query.limit && !exhausted; pages++) {
    const page = await walk.fetchPage(at);
    for (const row of page.rows) {
      const ms = Date.parse(row.trade.timestamp);
      const key = digest(row.key ?? row.trade.id);
      if (anchor && ms > anchor.ms) continue;
      if (anchor && ms === anchor.ms && (toSkip.get(key) ?? 0) > 0) {
        toSkip.set(key, (toSkip.get(key) ?? 0) - 1);
        continue;
      }
      if (endMs !== null && ms > endMs) continue;
      if (startMs !== null && ms < startMs) {
        exhausted = true;
        break;
      }
      out.push({ trade: row.trade, ms, resume: row.resume, key });
      if (out.length > query.limit) break;
    }
    if (out.length > query.limit || exhausted) break;
    if (page.next === null) exhausted = true;
    else at = page.next;
  }
  const kept = out.slice(0, query.limit);
  const trades = kept.map((x) => x.trade);
  if (out.length <= query.limit && exhausted) return { trades, cursor: null };
  const last = kept.at(-1);
  if (!last) {
    // The page budget ran out before anything was returned: go on from the first page not read, skipping what is
    // left to skip of the anchor. (Should trades arrive meanwhile and push a row this call skipped past that page,
    // it would come again: only when more rows share one millisecond than the budget reads, never in practice.)
    const keys = [...toSkip].flatMap(([key, n]) => Array<string>(n).fill(key));
    return { trades, cursor: writeCursor({ at, anchor: anchor ? { ms: anchor.ms, keys } : null }) };
  }
  // The next page re-reads from the first trade returned at the last millisecond (or from where the previous
  // cursor did, when it ended at that same millisecond), so every row sharing that time is met again and skipped
  // exactly as often as it was returned.
  const sameMs = kept.filter((x) => x.ms === last.ms);
  const carried = anchor !== null && anchor.ms === last.ms && resumed !== null;
  const keys = sameMs.map((x) => x.key);
  return {
    trades,
    cursor: writeCursor({
      at: carried ? resumed.at : (sameMs[0] as (typeof kept)[number]).resume,
      anchor: { ms: last.ms, keys: carried ? [...(anchor?.keys ?? []), ...keys] : keys },
    }),
  };
}

function writeCursor<H>(cursor: TapeCursor<H>): string {
  return JSON.stringify(cursor.anchor ? [cursor.at, cursor.anchor.ms, cursor.anchor.keys] : [cursor.at]);
}

function readCursor<H extends string | number | null>(text: string, walk: TapeWalk<H>): TapeCursor<H> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (Array.isArray(parsed) && walk.isHandle(parsed[0])) {
    if (parsed.length === 1) return { at: parsed[0], anchor: null };
    const [, ms, keys] = parsed;
    if (
      parsed.length === 3 &&
      Number.isSafeInteger(ms) &&
      Array.isArray(keys) &&
      keys.length <= 100_000 &&
      keys.every((key) => typeof key === 'string')
    ) {
      return { at: parsed[0], anchor: { ms: ms as number, keys: keys as string[] } };
    }
  }
  throw new AppError('validation_error', 'cursor is not a trades cursor this server issued', {
    validationErrors: ['cursor: pass next_cursor from the previous page unchanged'],
  });
}
