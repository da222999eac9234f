// Polymarket's WebSocket channels as MarketStream / UserStream. Market channel: first frame names the assets,
// later ones add or remove them; the server answers each new asset with a `book` snapshot, then `price_change`
// (absolute level sizes), `last_trade_price` and `tick_size_change`. Text `PING` every 10 s keeps it open. After a
// reconnect every asset is resubscribed, so consumers get `resync` and then fresh snapshots. User channel: the
// caller's own order and trade events, authenticated with the CLOB API credentials in the first frame.
import type { Instrument, MarketStreamEvent, UserStreamEvent } from '../../domain/stream.js';
import type { MarketStream, StreamContext, UserStream, VenueSession } from '../port.js';
import { EventChannel } from '../shared/event-channel.js';
import { findOutcome } from '../shared/outcomes.js';
import { payloadDecoder } from '../shared/payload.js';
import { ReconnectingSocket } from '../shared/reconnecting-socket.js';
import type { PolymarketClient } from './client.js';
import { mapPolymarketError } from './errors.js';
import { FeeExponents } from './fee-exponents.js';
import { clobBookToOrderBook, toNumber } from './parse.js';
import { isoFromSeconds, openOrderToOrder, userTradeFills } from './parse-trading.js';
import {
  PolymarketBook,
  PolymarketUserTrade,
  PolymarketWsLastTrade,
  PolymarketWsOrder,
  PolymarketWsPriceChange,
  PolymarketWsPriceChangeFlat,
  PolymarketWsTickSizeChange,
} from './payloads.js';

const decodeBook = payloadDecoder(PolymarketBook);
const decodePriceChange = payloadDecoder(PolymarketWsPriceChange);
const decodeFlatChange = payloadDecoder(PolymarketWsPriceChangeFlat);
const decodeLastTrade = payloadDecoder(PolymarketWsLastTrade);
const decodeTick = payloadDecoder(PolymarketWsTickSizeChange);
const decodeOrder = payloadDecoder(PolymarketWsOrder);
const decodeTrade = payloadDecoder(PolymarketUserTrade);

/** Documented heartbeat: a text PING every 10 s; three missed answers mean the connection is dead. */
const HEARTBEAT_MS = 10_000;
const heartbeat = (intervalMs = HEARTBEAT_MS) => ({
  heartbeat: { intervalMs, frame: () => 'PING' },
  staleAfterMs: 3 * intervalMs,
});

/** Inbound frames are one event or an array of events. */
function events(text: string): Array<Record<string, unknown>> {
  if (text === 'PONG' || text === '') return [];
  const parsed = JSON.parse(text) as unknown;
  const list = Array.isArray(parsed) ? parsed : [parsed];
  return list.filter((e): e is Record<string, unknown> => typeof e === 'object' && e !== null);
}

/**
 * Assets one market socket carries. The venue stops delivering past about 500 assets on one connection
 * (NautilusTrader PR #2915; docs/venues/polymarket.md), so a stream spreads its assets over sockets of at most this
 * many, with room to spare.
 */
export const ASSETS_PER_SOCKET = 400;

/** One market socket and the assets it carries. */
interface Shard {
  socket: ReconnectingSocket;
  tokens: Set<string>;
}

/**
 * `heartbeatMs`: the documented 10 s unless configured (venues.streamHeartbeatMs); three missed means dead.
 * `assetsPerSocket`: ASSETS_PER_SOCKET unless configured (venues.polymarket.wsAssetsPerConnection). Each socket
 * reconnects on its own: its own assets get `resync` and fresh snapshots, and its feed state names only them.
 */
export function openPolymarketMarketStream(
  ctx: StreamContext,
  url: string,
  heartbeatMs?: number,
  assetsPerSocket = ASSETS_PER_SOCKET,
): MarketStream {
  const channel = new EventChannel<MarketStreamEvent>();
  const byToken = new Map<string, Instrument>();
  const shards = new Set<Shard>();
  const shardOf = new Map<string, Shard>();
  let closed = false;

  const handle = (text: string) => {
    const received = Date.now();
    for (const e of events(text)) {
      switch (e.event_type) {
        case 'book': {
          const book = decodeBook(e, 'polymarket', 'ws_book');
          const instrument = byToken.get(book.asset_id);
          if (!instrument) break;
          channel.push({
            type: 'book_snapshot',
            book: clobBookToOrderBook(book, instrument.outcome, new Date(received)),
            exchange_ts_ms: toNumber(book.timestamp),
            received_ts_ms: received,
          });
          break;
        }
        case 'price_change':
          for (const [token, changes] of priceChanges(e)) {
            const instrument = byToken.get(token);
            if (!instrument) continue;
            channel.push({
              type: 'book_delta',
              instrument,
              changes,
              exchange_ts_ms: toNumber(e.timestamp as string | undefined),
              received_ts_ms: received,
            });
          }
          break;
        case 'last_trade_price': {
          const t = decodeLastTrade(e, 'polymarket', 'ws_last_trade_price');
          const instrument = byToken.get(t.asset_id);
          if (!instrument) break;
          const side = t.side.toLowerCase() === 'sell' ? 'sell' : 'buy';
          channel.push({
            type: 'trade',
            instrument,
            trade: {
              id: t.transaction_hash ?? `${t.asset_id}:${t.timestamp}:${t.price}:${t.size}`,
              price: Number(t.price),
              size: Number(t.size),
              side,
              aggressor_side: side,
              timestamp: isoFromSeconds(t.timestamp),
              outcome: instrument.outcome,
              tx_hash: t.transaction_hash ?? null,
            },
            source_channel: 'polymarket_ws_last_trade_price',
            received_ts_ms: received,
          });
          break;
        }
        case 'tick_size_change': {
          const t = decodeTick(e, 'polymarket', 'ws_tick_size_change');
          const instrument = byToken.get(t.asset_id);
          if (instrument) channel.push({ type: 'tick_size', instrument, tick_size: Number(t.new_tick_size) });
          break;
        }
        default:
          break;
      }
    }
  };

  /** A socket for `tokens`; onOpen names them all (again after any reconnect, each then resynced). */
  const openShard = (initial: string[]): void => {
    const tokens = new Set(initial);
    let opened = false;
    const instruments = () =>
      [...tokens].flatMap((token) => {
        const instrument = byToken.get(token);
        return instrument ? [instrument] : [];
      });
    const socket = new ReconnectingSocket({
      venue: 'polymarket',
      url: () => url,
      logger: ctx.logger,
      drift: ctx.drift,
      capture: ctx.capture,
      onOpen: (send) => {
        if (opened) {
          for (const instrument of instruments())
            channel.push({ type: 'resync', instrument, reason: 'reconnected' });
        }
        opened = true;
        send(JSON.stringify({ type: 'market', assets_ids: [...tokens], custom_feature_enabled: false }));
      },
      onMessage: handle,
      onState: (state, reason) =>
        channel.push({ type: 'feed_state', state, reason, instruments: instruments() }),
      ...heartbeat(heartbeatMs),
    });
    const shard: Shard = { socket, tokens };
    shards.add(shard);
    for (const token of initial) shardOf.set(token, shard);
    socket.start();
  };

  const close = async () => {
    closed = true;
    await Promise.all([...shards].map((shard) => shard.socket.close()));
    shards.clear();
    channel.end();
  };
  ctx.signal.addEventListener('abort', () => void close(), { once: true });

  return {
    subscribe(targets) {
      const added: string[] = [];
      for (const { market, outcome } of targets) {
        const o = findOutcome(market, outcome);
        if (byToken.has(o.token_id)) continue;
        byToken.set(o.token_id, {
          market_id: market.exchange_market_id,
          outcome: o.name,
          token_id: o.token_id,
        });
        added.push(o.token_id);
      }
      if (closed) return;
      // New assets fill the sockets that have room (added on the live connection, or named by onOpen when it has
      // not opened yet), then new sockets of at most assetsPerSocket each.
      let rest = added;
      for (const shard of shards) {
        if (rest.length === 0) break;
        const room = assetsPerSocket - shard.tokens.size;
        if (room <= 0) continue;
        const batch = rest.slice(0, room);
        rest = rest.slice(room);
        for (const token of batch) {
          shard.tokens.add(token);
          shardOf.set(token, shard);
        }
        shard.socket.send(
          JSON.stringify({ operation: 'subscribe', assets_ids: batch, custom_feature_enabled: false }),
        );
      }
      for (let i = 0; i < rest.length; i += assetsPerSocket) openShard(rest.slice(i, i + assetsPerSocket));
    },
    unsubscribe(targets) {
      const removed = new Map<Shard, string[]>();
      for (const { market, outcome } of targets) {
        const o = findOutcome(market, outcome);
        if (!byToken.delete(o.token_id)) continue;
        const shard = shardOf.get(o.token_id);
        shardOf.delete(o.token_id);
        if (!shard) continue;
        shard.tokens.delete(o.token_id);
        removed.set(shard, [...(removed.get(shard) ?? []), o.token_id]);
      }
      for (const [shard, tokens] of removed) {
        // A socket left with nothing to carry is closed rather than kept alive on heartbeats.
        if (shard.tokens.size === 0) {
          shards.delete(shard);
          void shard.socket.close();
        } else shard.socket.send(JSON.stringify({ operation: 'unsubscribe', assets_ids: tokens }));
      }
    },
    close,
    [Symbol.asyncIterator]: () => channel[Symbol.asyncIterator](),
  };
}

/** Level changes per token from either `price_change` schema; BUY levels are bids. */
function priceChanges(
  e: Record<string, unknown>,
): Map<string, Array<{ side: 'bid' | 'ask'; price: number; size: number }>> {
  const rows = Array.isArray(e.price_changes)
    ? decodePriceChange(e, 'polymarket', 'ws_price_change').price_changes
    : [decodeFlatChange(e, 'polymarket', 'ws_price_change')];
  const byToken = new Map<string, Array<{ side: 'bid' | 'ask'; price: number; size: number }>>();
  for (const r of rows) {
    const list = byToken.get(r.asset_id) ?? [];
    list.push({
      side: r.side.toUpperCase() === 'BUY' ? 'bid' : 'ask',
      price: Number(r.price),
      size: Number(r.size),
    });
    byToken.set(r.asset_id, list);
  }
  return byToken;
}

/** The session owner's orders and fills. Authentication (deriving API credentials if needed) runs first. */
export function openPolymarketUserStream(
  ctx: StreamContext,
  client: PolymarketClient,
  session: VenueSession,
): UserStream {
  const channel = new EventChannel<UserStreamEvent>();
  const seenFills = new Set<string>();
  const exponents = new FeeExponents(client);
  /** Trades wait for their market's fee exponent; this chain keeps every event in the order it arrived. */
  let delivered: Promise<void> = Promise.resolve();
  const deliver = (push: () => Promise<void> | void) => {
    delivered = delivered.then(push).catch((error: unknown) => {
      ctx.logger.warn({ venue: 'polymarket', exception: error }, 'user stream event dropped');
    });
  };
  let socket: ReconnectingSocket | null = null;
  let closed = false;

  const close = async () => {
    closed = true;
    await socket?.close();
    channel.end();
  };
  ctx.signal.addEventListener('abort', () => void close(), { once: true });

  const authCtx = {
    signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(30_000)]),
    requestId: 'user-stream',
    logger: ctx.logger,
    tenant: null,
  };
  client.authenticate(authCtx, session).then(
    (auth) => {
      if (closed) return;
      const me = { apiKey: auth.creds.key, address: auth.wallet.maker };
      socket = new ReconnectingSocket({
        venue: 'polymarket',
        url: () => client.options.wsUserUrl,
        logger: ctx.logger,
        drift: ctx.drift,
        capture: ctx.capture,
        onOpen: (send) =>
          send(
            JSON.stringify({
              type: 'user',
              auth: { apiKey: auth.creds.key, secret: auth.creds.secret, passphrase: auth.creds.passphrase },
            }),
          ),
        onMessage: (text) => {
          for (const e of events(text)) {
            if (e.event_type === 'order') {
              const o = decodeOrder(e, 'polymarket', 'ws_user_order');
              const status = String(o.type).toUpperCase() === 'CANCELLATION' ? 'CANCELED' : o.status;
              const changedAt = o.timestamp === undefined ? null : isoFromSeconds(o.timestamp);
              const order = openOrderToOrder({ ...o, status }, Date.now() / 1000, changedAt);
              deliver(() => {
                channel.push({ type: 'order', order });
              });
            } else if (e.event_type === 'trade') {
              // A trade is reported again as it moves MATCHED → MINED → CONFIRMED; each fill is sent once.
              const trade = decodeTrade(e, 'polymarket', 'ws_user_trade');
              deliver(async () => {
                const exponent = await exponents.of(authCtx, trade).catch((error: unknown) => {
                  // Priced on the curve Polymarket's fee page documents (exponent 1) rather than losing the fill.
                  ctx.logger.warn({ venue: 'polymarket', exception: error }, 'fee exponent unavailable');
                  return 1;
                });
                for (const fill of userTradeFills(trade, me, exponent)) {
                  if (seenFills.has(fill.fill_id)) continue;
                  if (seenFills.size > 50_000) seenFills.clear();
                  seenFills.add(fill.fill_id);
                  channel.push({ type: 'fill', fill });
                }
              });
            }
          }
        },
        onState: (state, reason) => channel.push({ type: 'feed_state', state, reason }),
        ...heartbeat(client.options.streamHeartbeatMs),
      });
      socket.start();
    },
    (error: unknown) => {
      channel.end(mapPolymarketError(error));
    },
  );

  return { close, [Symbol.asyncIterator]: () => channel[Symbol.asyncIterator]() };
}
