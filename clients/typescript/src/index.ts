// @omnibook/client: the Omnibook API from TypeScript. REST (every operation of /openapi.json, typed from it) and
// one WebSocket per client for live books and wallets.
export type { ExchangeCredentials } from './credentials.js';
export { type ApiErrorBody, isOmnibookError, OmnibookError } from './errors.js';
export type { paths } from './generated/openapi.js';
export type {
  Body,
  HttpMethod,
  Operation,
  PathWith,
  Query,
  RequestInput,
  ResponseOf,
  Result,
} from './operations.js';
export { paginate } from './paginate.js';
export type {
  Activity,
  BookEvents,
  BookRef,
  BookView,
  GapEvent,
  LiveBookState,
  StaleEvent,
} from './realtime/book.js';
export { LiveBook } from './realtime/book.js';
export {
  type BookState,
  type FeedState,
  type Level,
  OmnibookStreamError,
  type WalletActivityItem,
  WS_ERROR_NAMES,
} from './realtime/messages.js';
export {
  type ConnectionState,
  OmnibookStream,
  type StreamEvents,
  type StreamOptions,
  type WebSocketConstructor,
  type WebSocketLike,
} from './realtime/stream.js';
export { type WalletBatch, type WalletRef, WatchedWallet } from './realtime/wallet.js';
export {
  type CallOptions,
  type ClientOptions,
  OmnibookClient,
  type OrderCallOptions,
  type RetryEvent,
} from './rest-client.js';
export type { RetryOptions } from './retry.js';
