// Row types of every table, as Kysely sees them. Timestamps are ISO 8601 strings on both dialects so rows
// read the same from SQLite and PostgreSQL; booleans are 0/1 integers for the same reason.
import type { ColumnType, Generated } from 'kysely';
import type { ExchangeId } from '../domain/exchanges.js';
import type { MarketStatus } from '../domain/market.js';

export interface ApiKeysTable {
  id: string;
  key_hash: string;
  prefix: string;
  name: string;
  tier: string;
  is_builder: number;
  customer_id: string;
  qps_limit: number | null;
  burst: number | null;
  created_at: string;
  revoked_at: string | null;
  /** 1: the MCP order tools (place/cancel) are enabled for this key (migration 0015). */
  mcp_trading: number;
}

export interface UsageMonthlyTable {
  key_id: string;
  period: string;
  requests: ColumnType<number, number, number>;
}

export interface SchemaMetaTable {
  name: string;
  value: string;
  updated_at: string;
}

export interface MarketsTable {
  /** Immutable insertion sequence: the keyset of every list page. */
  seq: Generated<number>;
  svc_id: string;
  exchange: string;
  native_lc: string;
  slug_lc: string | null;
  svc_group_id: string;
  status: string;
  question: string;
  description: string;
  volume_total: number | null;
  liquidity: number | null;
  /** The served Market as UTF-8 JSON bytes, sent without re-encoding. */
  doc: Buffer;
  synced_at: string;
  /** PostgreSQL only: folded words of the question, and of question plus description. */
  tsv_question: ColumnType<never, unknown, unknown>;
  tsv_all: ColumnType<never, unknown, unknown>;
}

export interface EventsTable {
  svc_group_id: string;
  exchange: ExchangeId;
  exchange_group_id: string;
  title: string;
  title_lc: string;
  status: MarketStatus;
  close_time: string | null;
  volume_total: number | null;
  synced_at: string;
}

export interface MarketLinksTable {
  svc_id: string;
  linked_svc_id: string;
  /** same_market (matched_markets) or co_dependent (related_markets). */
  kind: string;
  confidence: number;
  confidence_tier: string;
  source: string;
  published: number;
  dependency_type: string | null;
  dependency_direction: string | null;
  /** JSON array of the statements that produced the link (migration 0006); null on rows written before it. */
  evidence: string | null;
  /** 1 when the linked market asks the question the other way round (its Yes is this market's No); migration 0010. */
  inverted: ColumnType<number, number | undefined, number>;
  /** same_market: JSON ResolutionCheck from this row's market's side (migration 0013); null before it. */
  resolution_check: ColumnType<string | null, string | null | undefined, string | null>;
  updated_at: string;
}

/** The fingerprint of the inputs each market was last linked from. */
export interface MarketMatchStateTable {
  svc_id: string;
  fingerprint: string;
  updated_at: string;
}

export interface SyncStateTable {
  exchange: string;
  resource: string;
  cursor: string | null;
  pass_started_at: string | null;
  pass_seen: number;
  last_full_at: string | null;
  last_error: string | null;
  updated_at: string;
}

/** One row (id 1): bumped by every write to `markets`, so nodes know when their cached pages are out of date. */
export interface CatalogueVersionTable {
  id: number;
  version: number;
}

export interface LeasesTable {
  name: string;
  holder: string;
  expires_at: number;
}

export interface RecordedBooksTable {
  id: Generated<number>;
  exchange: string;
  market_id: string;
  token_id: string;
  svc_id: string;
  outcome: string;
}

export interface BookSnapshotsTable {
  book_id: number;
  /** When the recorder took this state, Unix ms. */
  ts_ms: number;
  /** UTC day of ts_ms (days since the epoch): the retention key. */
  day: number;
  /** The packed levels (store/book-snapshot-codec.ts). */
  levels: Buffer;
}

export interface RecordedTradesTable {
  book_id: number;
  /** The venue's trade id: a trade heard twice is stored once. */
  trade_id: string;
  /** The venue's time of the trade, Unix ms. */
  ts_ms: number;
  /** When we heard it, Unix ms. */
  ingest_ms: number;
  /** UTC day of ts_ms: the retention key. */
  day: number;
  /** Exact decimal text. */
  price: string;
  size: string;
  side: 'buy' | 'sell';
  aggressor_side: 'buy' | 'sell' | null;
  /** The venue feed it came from, e.g. `kalshi_ws_trade`. */
  source_channel: string;
}

export type CredentialKind = 'exchange_credentials' | 'managed_wallet';

export interface CredentialsTable {
  customer_id: string;
  exchange: string;
  kind: CredentialKind;
  mode: 'self' | 'managed';
  /** The vault envelope: the only column holding a secret. */
  sealed: string;
  /** The master key `sealed` is wrapped under (rotation finds the rows it has left by this). */
  master_key_id: string;
  wallet_type: string | null;
  signature_type: number | null;
  eoa_address: string | null;
  /** The safe, proxy or deposit wallet holding the funds (the order maker for signature types 1-3). */
  funder_address: string | null;
  chain_id: number | null;
  created_at: string;
  updated_at: string;
  /** Set when the customer (a builder's end-user) was deactivated: the record is never read again. */
  deactivated_at: string | null;
}

/** One order sent (or about to be sent) through POST /orders: migration 0005-orders. */
export interface OrderJournalTable {
  id: Generated<number>;
  customer_id: string;
  exchange: string;
  client_order_id: string;
  venue_order_id: string | null;
  idempotency_key: string | null;
  request_hash: string;
  /** The order request as JSON text (never credentials). */
  request: string;
  state: string;
  /** The last Order the exchange confirmed, JSON text. */
  order_doc: string | null;
  error_code: string | null;
  error_message: string | null;
  created_ms: number;
  updated_ms: number;
}

/** A builder customer: its QPS pool and fee tier (migration 0007-builder). */
export interface BuildersTable {
  customer_id: string;
  qps_pool: number;
  tier: string;
  /** Bumped first by every change to the builder's end-users: the write lock that serializes them. */
  pool_version: number;
  created_at: string;
}

export type BuilderUserStatus = 'active' | 'deactivated';

/** One end-user of a builder (migration 0007-builder). */
export interface BuilderUsersTable {
  customer_id: string;
  builder_id: string;
  external_id: string;
  email: string | null;
  eoa_address: string | null;
  qps_limit: number;
  /** The end-user's API key (api_keys.id) and the clear key sealed by the vault, which the builder reads back. */
  key_id: string;
  sealed_key: string;
  status: BuilderUserStatus;
  created_at: string;
  deactivated_at: string | null;
}

export type FeeEscrowState = 'held' | 'settled';

/** A builder fee pulled into the FeeEscrow contract for one order (migration 0009-fee-settlement). */
export interface FeeEscrowsTable {
  /** The fee_auth's order_id: the escrow's id on chain (lowercase 0x hex). */
  order_id: string;
  customer_id: string;
  exchange: string;
  /** The journal row's client_order_id: the order the fee was taken for. */
  client_order_id: string;
  state: FeeEscrowState;
  /** The fee_auth's deadline, Unix seconds (0: pulled before it was recorded). */
  deadline_s: Generated<number>;
  filled_units: string | null;
  size_units: string | null;
  created_ms: number;
  updated_ms: number;
}

/** A routed order or paired execution (migration 0012): the parent of legs in the order journal. */
export interface RouteOrdersTable {
  seq: Generated<number>;
  id: string;
  kind: string;
  customer_id: string;
  idempotency_key: string;
  request_hash: string;
  /** The request's terms as JSON text (never credentials). */
  request: string;
  /** What the plan was computed from and the figures it promised, JSON text. */
  plan: string;
  /** The legs as planned, each with the Idempotency-Key of its journal row, JSON text. */
  legs: string;
  /** How many rounds of legs were planned (a later round is written before its legs are sent). */
  round: number;
  created_ms: number;
  updated_ms: number;
}

export interface Database {
  api_keys: ApiKeysTable;
  usage_monthly: UsageMonthlyTable;
  schema_meta: SchemaMetaTable;
  markets: MarketsTable;
  events: EventsTable;
  market_links: MarketLinksTable;
  market_match_state: MarketMatchStateTable;
  sync_state: SyncStateTable;
  leases: LeasesTable;
  catalogue_version: CatalogueVersionTable;
  recorded_books: RecordedBooksTable;
  book_snapshots: BookSnapshotsTable;
  recorded_trades: RecordedTradesTable;
  credentials: CredentialsTable;
  order_journal: OrderJournalTable;
  builders: BuildersTable;
  builder_users: BuilderUsersTable;
  fee_escrows: FeeEscrowsTable;
  route_orders: RouteOrdersTable;
}

export type AutoId = Generated<number>;
