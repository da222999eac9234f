// What the Kalshi adapter can do, as data: GET /exchanges serves these flags and the registry checks them against
// the facet methods at start. The market stream is native when a stream API key is configured (Kalshi signs every
// WebSocket handshake), and polled from the REST book otherwise.
import type { VenueDescriptor } from '../port.js';
import { READ_LIMIT } from './client.js';

export function kalshiDescriptor(nativeStream: boolean): VenueDescriptor {
  return Object.freeze({
    id: 'kalshi',
    name: 'Kalshi',
    has: Object.freeze({
      fetch_markets: 'supported',
      fetch_events: 'supported',
      fetch_orderbook: 'supported',
      // Served from our own recorder once it lands, not by the venue.
      fetch_orderbook_history: 'unsupported',
      fetch_price_history: 'supported',
      fetch_trades: 'supported',
      // A custodial exchange: no public per-user data by wallet address.
      fetch_user_activity: 'unsupported',
      fetch_execution_price: 'supported',
      // GET /arbitrage: its books and a published taker fee (src/domain/fees).
      fetch_arbitrage: 'supported',
      create_order: 'supported',
      cancel_order: 'supported',
      fetch_order_history: 'supported',
      fetch_fills: 'supported',
      fetch_positions: 'supported',
      fetch_balance: 'supported',
      // Kalshi computes the balance on every request; there is no cache to refresh, so a refresh is a fresh read.
      refresh_balance: 'supported',
      // Accounts, not wallets: nothing is public per user to watch (docs/venues/kalshi.md).
      watch_address: 'unsupported',
      websocket: nativeStream ? 'supported' : 'polling',
    }),
    features: Object.freeze({
      // The spec's table: gtc everywhere, ioc on this exchange (Kalshi also has fill_or_kill and expiring orders).
      orderTypes: Object.freeze(['gtc', 'ioc'] as const),
      gtdMinLeadSeconds: null,
      maxBookDepth: 100,
      // Native periods are 1 min, 1 h and 1 day; 6 h, 1 w and max are rolled up from them.
      candleIntervals: Object.freeze(['1m', '1h', '6h', '1d', '1w', 'max'] as const),
      // The native socket's trade channel; the polling stream (no stream key) reads books only.
      streamTrades: nativeStream,
    }),
    credentials: Object.freeze([
      { name: 'api_key_id', required: true, secret: false, description: 'Kalshi API key id (a UUID)' },
      {
        name: 'private_key',
        required: true,
        secret: true,
        description: 'PEM RSA private key downloaded when the API key was created (PKCS#1 or PKCS#8)',
      },
    ]),
    onboarding: Object.freeze(['self'] as const),
    balanceUnit:
      'cents (integer `balance`, `portfolio_value`); `balance_dollars` is a fixed-point dollar string',
    // Basic tier: 200 read tokens/s at 10 tokens per request. Order writes are paced separately at 10/s.
    rateLimit: Object.freeze({ ...READ_LIMIT }),
  }) as VenueDescriptor;
}
