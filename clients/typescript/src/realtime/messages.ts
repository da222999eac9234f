// The WebSocket protocol (wire contract §6) as the client reads it: the server's messages, the error codes and
// which of them are worth trying again. Only the fields this client acts on are typed; the rest pass through.

export type Level = [price: number, size: number];
export type BookState = 'fresh' | 'stale' | 'needs_refresh';
export type FeedState = 'healthy' | 'degraded' | 'disconnected';

/** Fields every book message carries. */
export interface BookHeader {
  svc_id: string;
  exchange: string;
  outcome: string;
  token_id: string;
  market_id: string;
  tick_size: number | null;
  min_order_size?: number;
  title?: string;
  book_state: BookState;
  feed_state: FeedState;
  stale_after_ms: number;
  exchange_ts_ms: number | null;
  ingest_ts_ms: number | null;
  server_seq: number;
}

export interface SnapshotMessage extends BookHeader {
  type: 'orderbook';
  kind: 'snapshot';
  bids: Level[];
  asks: Level[];
}

export interface BookChange {
  side: 'bid' | 'ask';
  price: number;
  size: number;
}

export interface DeltaMessage extends BookHeader {
  type: 'orderbook_delta';
  kind: 'delta';
  changes: BookChange[];
}

export interface ActivityMessage extends BookHeader {
  type: 'activity';
  kind: 'trade' | 'fill';
  price: number;
  size: number;
  side: 'buy' | 'sell';
  aggressor_side?: 'buy' | 'sell';
  trade_id?: string;
  fill_id?: string;
  order_id?: string;
  liquidity_role?: 'maker' | 'taker';
  fee?: number | null;
  source_channel: string;
}

export interface WalletActivityItem {
  id: string;
  timestamp_ms: number;
  raw: unknown;
}

export interface WalletActivityMessage {
  type: 'wallet_activity';
  exchange: string;
  address: string;
  snapshot: boolean;
  feed_state: FeedState;
  activity: WalletActivityItem[];
  error?: string;
  server_seq: number;
}

export interface ErrorMessage {
  type: 'error';
  code: number;
  message: string;
  svc_id?: string;
  svc_ids?: string[];
  exchange?: string;
  address?: string;
  retry_after_ms?: number;
}

/** Error codes of §6, and ours (3003, 4000). */
export const WS_ERROR_NAMES: ReadonlyMap<number, string> = new Map([
  [1001, 'auth_required'],
  [1002, 'auth_invalid'],
  [2001, 'invalid_market'],
  [2002, 'market_not_found'],
  [2003, 'exchange_unavailable'],
  [2005, 'invalid_outcome'],
  [3001, 'rate_limited'],
  [3002, 'max_subscriptions'],
  [3003, 'upstream_capacity'],
  [4000, 'invalid_message'],
]);

/** Worth trying again later: limits and upstream trouble, not a wrong id. */
const RETRYABLE_CODES: ReadonlySet<number | string> = new Set([2003, 3001, 3003, 'timeout', 'disconnected']);

/**
 * What went wrong on the stream: a server error message (numeric `code`, its `name`), or the client's own
 * (`timeout`: no answer within subscribeTimeoutMs; `disconnected`; `closed`; `auth_failed`; `revoked`).
 */
export class OmnibookStreamError extends Error {
  override readonly name = 'OmnibookStreamError';
  readonly code: number | string;
  /** The code's name (`market_not_found`, …); the code itself for the client's own. */
  readonly reason: string;
  readonly retryable: boolean;
  readonly svcId: string | null;
  readonly exchange: string | null;

  constructor(code: number | string, message: string, about: { svcId?: string; exchange?: string } = {}) {
    super(message);
    this.code = code;
    this.reason = typeof code === 'number' ? (WS_ERROR_NAMES.get(code) ?? `error_${code}`) : code;
    this.retryable = RETRYABLE_CODES.has(code);
    this.svcId = about.svcId ?? null;
    this.exchange = about.exchange ?? null;
  }
}

export function errorFromMessage(m: ErrorMessage): OmnibookStreamError {
  return new OmnibookStreamError(m.code, m.message, {
    ...(m.svc_id !== undefined ? { svcId: m.svc_id } : {}),
    ...(m.exchange !== undefined ? { exchange: m.exchange } : {}),
  });
}
