// The capability flags of GET /exchanges (wire contract §2), in their documented order. An adapter declares the
// venue's own (VENUE_CAPABILITIES); the server's cross-venue services add theirs over them (SERVER_CAPABILITIES),
// offered for an exchange when what they need of it is (ExchangesService.offers).
export const VENUE_CAPABILITIES = [
  'fetch_markets',
  'fetch_events',
  'fetch_orderbook',
  'fetch_orderbook_history',
  'fetch_price_history',
  'fetch_trades',
  'fetch_user_activity',
  // Not in the wire contract's list: GET /execution-price, which walks the live book and prices the venue's fee.
  'fetch_execution_price',
  // Not in the wire contract's list: GET /arbitrage and the `arbitrage` WebSocket channel, which need the venue's
  // books and a taker fee the fee models can compute.
  'fetch_arbitrage',
  'create_order',
  'cancel_order',
  'fetch_order_history',
  'fetch_fills',
  'fetch_positions',
  'fetch_balance',
  'refresh_balance',
  'watch_address',
  'websocket',
] as const;
export type VenueCapability = (typeof VENUE_CAPABILITIES)[number];

/**
 * Ours, not in the wire contract's list: POST /route/orders (`route_orders`) and POST /arbitrage/execute
 * (`arbitrage_execute`) send legs to an exchange that takes orders (create_order), an immediate order type (ioc or
 * fok) and publishes its fee (fetch_execution_price). Separate flags, because each is its own route the walk proves.
 */
export const SERVER_CAPABILITIES = ['route_orders', 'arbitrage_execute'] as const;
export type ServerCapability = (typeof SERVER_CAPABILITIES)[number];

export const CAPABILITIES = [...VENUE_CAPABILITIES, ...SERVER_CAPABILITIES] as const;
export type Capability = (typeof CAPABILITIES)[number];
