// What the Limitless adapter can do, as data: GET /exchanges serves these flags and the registry checks them
// against the facet methods at start. Orders are EIP-712 signed by the wallet key and sent with the API token.
import type { VenueDescriptor } from '../port.js';

export const LIMITLESS_DESCRIPTOR: VenueDescriptor = Object.freeze({
  id: 'limitless',
  name: 'Limitless',
  has: Object.freeze({
    fetch_markets: 'supported',
    fetch_events: 'supported',
    fetch_orderbook: 'supported',
    // Served from our own recorder once it lands, not by the venue.
    fetch_orderbook_history: 'unsupported',
    fetch_price_history: 'supported',
    // The public matched-trade feed, GET /markets/{slug}/events.
    fetch_trades: 'supported',
    fetch_user_activity: 'supported',
    fetch_execution_price: 'supported',
    // GET /arbitrage needs a taker fee the fee models compute; this venue does not publish its curve.
    fetch_arbitrage: 'unsupported',
    create_order: 'supported',
    cancel_order: 'supported',
    // GET /markets/{slug}/user-orders?statuses=LIVE,MATCHED (cancelled orders are not listed by Limitless).
    fetch_order_history: 'supported',
    // Each order's matches (POST /orders/status/batch) with its execution's fee.
    fetch_fills: 'supported',
    fetch_positions: 'supported',
    fetch_balance: 'supported',
    // The PnL chart is computed by Limitless on read; there is nothing to ask it to recompute.
    refresh_balance: 'unsupported',
    // Wallet subscriptions need per-trade items by address; Limitless documents only positions, volume and PnL by
    // address (its trade history is the session holder's own): docs/venues/limitless.md.
    watch_address: 'unsupported',
    websocket: 'supported',
  }),
  features: Object.freeze({
    // GTC and FAK (ioc) limit orders; Limitless's FOK is a market order sized in USDC with no limit price.
    orderTypes: Object.freeze(['gtc', 'ioc'] as const),
    gtdMinLeadSeconds: null,
    maxBookDepth: 100,
    candleIntervals: Object.freeze(['1m', '1h', '6h', '1d', '1w', 'max'] as const),
    // Its socket carries books only; trades are read from the market events feed.
    streamTrades: false,
  }),
  credentials: Object.freeze([
    {
      name: 'token_id',
      required: false,
      secret: false,
      description:
        'Scoped API token id (sent as lmts-api-key), from POST /auth/api-tokens/derive; needs secret. The current Limitless scheme.',
    },
    {
      name: 'secret',
      required: false,
      secret: true,
      description: 'Base64 secret of that token; signs every request with HMAC-SHA256 (never sent).',
    },
    {
      name: 'private_key',
      required: false,
      secret: true,
      description:
        'The wallet key (0x + 64 hex) that EIP-712 signs orders on Base; needed to trade, not to read. Never sent.',
    },
    {
      name: 'api_key',
      required: false,
      secret: true,
      description:
        'Legacy Limitless API key (lmts_…, sent as X-API-Key); deprecated by Limitless, used only without a token.',
    },
  ]),
  onboarding: Object.freeze(['self'] as const),
  balanceUnit:
    'USD: GET /portfolio/pnl-chart as sent, `currentValue` = realised PnL in USD (not a cash balance)',
  // Limitless publishes no quota; its API Academy recommends a client bucket of 20 refilled at 10/s.
  rateLimit: Object.freeze({ requestsPerSecond: 10, burst: 20 }),
}) as VenueDescriptor;
