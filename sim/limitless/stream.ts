// Limitless's Socket.IO feed (wss://ws.limitless.exchange, namespace /markets, websocket transport only).
// `subscribe_market_prices {marketSlugs, marketAddresses}` REPLACES the socket's market set (documented); the server
// forgets everything on reconnect; each CLOB change is pushed as `orderbookUpdate {marketSlug, orderbook, timestamp}`
// carrying the whole YES book. An authenticated handshake signs the fixed path `/socket.io/?EIO=4&transport=websocket`.
import type { Server as HttpServer } from 'node:http';
import { Server, type Socket } from 'socket.io';
import type { SimClock } from '../shared/control.js';
import type { SimFaults } from '../shared/faults.js';
import { type LimitlessAccounts, WS_SIGNED_PATH } from './auth.js';
import type { SimBook } from './book.js';
import type { SimCatalog, SimMarket } from './catalog.js';
import { orderbookUpdatePayload, type PayloadContext } from './payloads.js';

const ROOM = 'market:';

export interface LimitlessStreamDeps {
  catalog: SimCatalog;
  accounts: LimitlessAccounts;
  faults: SimFaults;
  clock: SimClock;
  context(): PayloadContext;
  /** The book as it stands with the paper accounts' resting orders (the exchange's view). */
  book(m: SimMarket): SimBook;
}

export interface LimitlessStream {
  /** Pushes the current book of every market someone is subscribed to (after POST /__sim/advance). */
  publishBooks(): void;
  /** Pushes one market's book (after an order or cancel changed it). */
  publishMarket(slug: string): void;
  /** Closes every client connection (POST /__sim/ws/drop); returns how many there were. */
  drop(): number;
  /** Closes Socket.IO and the HTTP server it is attached to. */
  close(): Promise<void>;
}

export function attachLimitlessStream(http: HttpServer, deps: LimitlessStreamDeps): LimitlessStream {
  const io = new Server(http, { transports: ['websocket'], serveClient: false });
  const markets = io.of('/markets');

  markets.use((socket, next) => {
    const auth = deps.accounts.authenticate(socket.handshake.headers, 'GET', WS_SIGNED_PATH, '');
    if (auth.kind === 'refused') return next(new Error('Unauthorized'));
    socket.data.account = auth.kind === 'ok' ? auth.account.address : null;
    next();
  });

  markets.on('connection', (socket: Socket) => {
    if (socket.data.account) socket.emit('authenticated', { account: socket.data.account });
    socket.on('subscribe_market_prices', (payload: unknown) => {
      const slugs = slugsOf(payload);
      if (slugs === null) {
        socket.emit('exception', { status: 'error', message: 'Invalid subscription payload' });
        return;
      }
      for (const room of socket.rooms) if (room.startsWith(ROOM)) socket.leave(room);
      const known = slugs.filter((s) => deps.catalog.bySlug.get(s)?.kind === 'market');
      for (const slug of known) socket.join(`${ROOM}${slug}`);
      socket.emit('system', { message: 'Subscribed to market prices', marketSlugs: known });
    });
    socket.on('unsubscribe', (payload: unknown, ack?: (answer: unknown) => void) => {
      const channel = (payload as { channel?: unknown } | null)?.channel;
      if (channel !== 'subscribe_market_prices') {
        ack?.({ error: `Unsupported channel: ${String(channel)}` });
        return;
      }
      const slugs = slugsOf(payload);
      for (const room of socket.rooms) {
        if (!room.startsWith(ROOM)) continue;
        if (slugs === null || slugs.length === 0 || slugs.includes(room.slice(ROOM.length)))
          socket.leave(room);
      }
      ack?.({ message: 'Unsubscribed' });
    });
  });

  return {
    publishBooks() {
      const ctx = deps.context();
      const now = deps.clock.now();
      for (const room of markets.adapter.rooms.keys()) {
        if (!room.startsWith(ROOM)) continue;
        const m = deps.catalog.bySlug.get(room.slice(ROOM.length));
        // A stalled feed drops (and counts) each market's push.
        if (m?.kind === 'market' && !deps.faults.withhold())
          markets.to(room).emit('orderbookUpdate', orderbookUpdatePayload(m, ctx, now, deps.book(m)));
      }
    },
    publishMarket(slug) {
      const m = deps.catalog.bySlug.get(slug);
      if (m?.kind !== 'market' || !markets.adapter.rooms.has(`${ROOM}${slug}`)) return;
      markets
        .to(`${ROOM}${slug}`)
        .emit('orderbookUpdate', orderbookUpdatePayload(m, deps.context(), deps.clock.now(), deps.book(m)));
    },
    drop() {
      const count = markets.sockets.size;
      // Cut the transports without a Socket.IO disconnect packet: clients see a lost connection ('transport
      // close'), as on a network failure, and reconnect on their own.
      for (const socket of markets.sockets.values()) socket.conn.close();
      return count;
    },
    close: () => new Promise<void>((resolve) => void io.close(() => resolve())),
  };
}

/** `marketSlugs` of a subscription payload; null when the payload is malformed. */
function slugsOf(payload: unknown): string[] | null {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return null;
  const { marketSlugs, marketAddresses } = payload as { marketSlugs?: unknown; marketAddresses?: unknown };
  const isList = (v: unknown) =>
    v === undefined || (Array.isArray(v) && v.every((s) => typeof s === 'string'));
  if (!isList(marketSlugs) || !isList(marketAddresses)) return null;
  return (marketSlugs as string[] | undefined) ?? [];
}
