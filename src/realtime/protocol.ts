// The WebSocket protocol of wire contract §6, as data: the client's control messages (parsed and checked here, so
// nothing else sees raw JSON) and the error codes the server answers with.

import { ownValue } from '../domain/own-key.js';
import { holdsMalformedText, malformedTextMessage } from '../domain/well-formed-text.js';

export const WS_ERROR = {
  auth_required: 1001,
  auth_invalid: 1002,
  invalid_market: 2001,
  market_not_found: 2002,
  exchange_unavailable: 2003,
  invalid_outcome: 2005,
  rate_limited: 3001,
  max_subscriptions: 3002,
  /**
   * Ours: this node polls as many wallets, or books of a polled venue, as it may, or the customer holds its fair
   * share of them (fair-pool.ts). Retry later, or unsubscribe others of the kind.
   */
  upstream_capacity: 3003,
  /** Ours: a frame that is not one of the contract's messages (not JSON, unknown type, wrong field types). */
  invalid_message: 4000,
} as const;
export type WsErrorName = keyof typeof WS_ERROR;

/** One market of a subscribe / unsubscribe / resync: svc_id, or exchange + market_id. */
export interface MarketRef {
  svc_id?: string;
  exchange?: string;
  market_id?: string;
  outcome?: string;
  depth?: number;
  /** Ours (wire contract §7): the bet's book merged across its twins on other exchanges. */
  consolidated?: boolean;
}

export interface AddressRef {
  exchange: string;
  address: string;
}

/** Ours (wire contract §7): the arbitrage channel's filter. */
export interface ArbitrageRef {
  min_edge_bps?: number;
  exchanges?: string[];
  min_tier?: 'HIGH' | 'MEDIUM' | 'LOW';
  include_unsafe?: boolean;
}

export type ClientMessage =
  | { type: 'auth'; api_key: string }
  | { type: 'subscribe'; markets: MarketRef[]; addresses: AddressRef[]; arbitrage: ArbitrageRef | null }
  | { type: 'unsubscribe'; markets: MarketRef[]; addresses: AddressRef[]; arbitrage: ArbitrageRef | null }
  | { type: 'resync'; market: MarketRef }
  /** Ours, in a replay only (docs/replay.md): pace the replay clock by this connection's acknowledgements. */
  | { type: 'replay_pace' }
  /** Ours, in a replay only: everything up to `step` (a `replay_clock` message's) has been read. */
  | { type: 'replay_ack'; step: number };

export type Parsed = { ok: true; message: ClientMessage } | { ok: false; error: string };

/** Bounds one control message: a subscribe may name many markets, but not unboundedly many. */
export const MAX_MARKETS_PER_MESSAGE = 500;
const MAX_FRAME_CHARS = 256 * 1024;

export function parseClientMessage(raw: string): Parsed {
  if (raw.length > MAX_FRAME_CHARS) return { ok: false, error: 'message too large' };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { ok: false, error: 'messages are JSON objects with a type' };
  }
  if (!isObject(value)) return { ok: false, error: 'messages are JSON objects with a type' };
  // As on REST: a lone surrogate (JSON's "\ud800") would reach venue lookups that cannot encode it.
  if (holdsMalformedText(value)) return { ok: false, error: malformedTextMessage('message') };
  const type = ownValue(value, 'type');
  switch (type) {
    case 'auth': {
      const key = ownValue(value, 'api_key');
      if (typeof key !== 'string' || key.length === 0 || key.length > 512) {
        return { ok: false, error: 'auth needs api_key (a string)' };
      }
      return { ok: true, message: { type: 'auth', api_key: key } };
    }
    case 'subscribe':
    case 'unsubscribe': {
      const markets = marketList(ownValue(value, 'markets'));
      if (typeof markets === 'string') return { ok: false, error: markets };
      const addresses = addressList(ownValue(value, 'addresses'));
      if (typeof addresses === 'string') return { ok: false, error: addresses };
      const arbitrage = arbitrageRef(ownValue(value, 'arbitrage'));
      if (typeof arbitrage === 'string') return { ok: false, error: arbitrage };
      if (markets.length === 0 && addresses.length === 0 && arbitrage === null) {
        return { ok: false, error: `${type} needs markets, addresses or arbitrage` };
      }
      return { ok: true, message: { type, markets, addresses, arbitrage } };
    }
    case 'resync': {
      const market = marketRef(value);
      if (typeof market === 'string') return { ok: false, error: market };
      return { ok: true, message: { type: 'resync', market } };
    }
    case 'replay_pace':
      return { ok: true, message: { type: 'replay_pace' } };
    case 'replay_ack': {
      const step = ownValue(value, 'step');
      if (typeof step !== 'number' || !Number.isSafeInteger(step) || step < 0) {
        return { ok: false, error: 'replay_ack needs step (a non-negative integer)' };
      }
      return { ok: true, message: { type: 'replay_ack', step } };
    }
    default:
      return { ok: false, error: 'type must be auth, subscribe, unsubscribe or resync' };
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function marketList(value: unknown): MarketRef[] | string {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return 'markets must be an array';
  if (value.length > MAX_MARKETS_PER_MESSAGE) return `at most ${MAX_MARKETS_PER_MESSAGE} markets per message`;
  const out: MarketRef[] = [];
  for (const item of value) {
    const ref = marketRef(item);
    if (typeof ref === 'string') return ref;
    out.push(ref);
  }
  return out;
}

function marketRef(value: unknown): MarketRef | string {
  if (!isObject(value)) return 'a market is an object with svc_id, or exchange and market_id';
  const ref: MarketRef = {};
  for (const field of ['svc_id', 'exchange', 'market_id', 'outcome'] as const) {
    const v = ownValue(value, field);
    if (v === undefined) continue;
    if (typeof v !== 'string' || v.length === 0 || v.length > 256)
      return `${field} must be a non-empty string`;
    ref[field] = v;
  }
  const depth = ownValue(value, 'depth');
  if (depth !== undefined) {
    if (typeof depth !== 'number' || !Number.isInteger(depth) || depth < 1) {
      return 'depth must be a positive integer';
    }
    ref.depth = depth;
  }
  const consolidated = ownValue(value, 'consolidated');
  if (consolidated !== undefined) {
    if (typeof consolidated !== 'boolean') return 'consolidated must be a boolean';
    if (consolidated) ref.consolidated = true;
  }
  return ref;
}

const TIERS = ['HIGH', 'MEDIUM', 'LOW'] as const;

/** `arbitrage: { min_edge_bps?, exchanges?, min_tier?, include_unsafe? }`; `true` is the same as `{}`. */
function arbitrageRef(value: unknown): ArbitrageRef | null | string {
  if (value === undefined || value === false) return null;
  if (value === true) return {};
  if (!isObject(value))
    return 'arbitrage is an object: { min_edge_bps?, exchanges?, min_tier?, include_unsafe? }';
  const out: ArbitrageRef = {};
  const edge = ownValue(value, 'min_edge_bps');
  if (edge !== undefined) {
    if (typeof edge !== 'number' || !Number.isFinite(edge) || edge < -10_000 || edge > 10_000) {
      return 'arbitrage.min_edge_bps must be a number from -10000 to 10000';
    }
    out.min_edge_bps = edge;
  }
  const exchanges = ownValue(value, 'exchanges');
  if (exchanges !== undefined) {
    const list = typeof exchanges === 'string' ? exchanges.split(',') : exchanges;
    if (
      !Array.isArray(list) ||
      list.length > 10 ||
      !list.every((e) => typeof e === 'string' && e.length <= 64)
    ) {
      return 'arbitrage.exchanges must be a list of exchange ids';
    }
    out.exchanges = list.map((e: string) => e.trim()).filter((e: string) => e.length > 0);
  }
  const tier = ownValue(value, 'min_tier');
  if (tier !== undefined) {
    const found = TIERS.find((t) => t === tier);
    if (!found) return 'arbitrage.min_tier must be HIGH, MEDIUM or LOW';
    out.min_tier = found;
  }
  const unsafe = ownValue(value, 'include_unsafe');
  if (unsafe !== undefined) {
    if (typeof unsafe !== 'boolean') return 'arbitrage.include_unsafe must be a boolean';
    out.include_unsafe = unsafe;
  }
  return out;
}

function addressList(value: unknown): AddressRef[] | string {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return 'addresses must be an array';
  const out: AddressRef[] = [];
  for (const item of value) {
    if (!isObject(item)) return 'an address is an object with exchange and address';
    const exchange = ownValue(item, 'exchange');
    const address = ownValue(item, 'address');
    if (typeof exchange !== 'string' || typeof address !== 'string') {
      return 'an address is an object with exchange and address';
    }
    out.push({ exchange, address });
  }
  return out;
}
