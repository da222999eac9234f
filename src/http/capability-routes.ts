// Which public route serves each capability flag of GET /exchanges. A flag is true only when its route is
// registered in this build and the exchange's adapter declares the capability, so the matrix can never promise a
// route that does not exist; a request to a capability route this build does not serve answers 501.
import type { FastifyInstance } from 'fastify';
import { CAPABILITIES, type Capability } from '../domain/capabilities.js';

export interface CapabilityRoute {
  method: 'GET' | 'POST' | 'DELETE';
  /** Full path template (`:name` segments), as Fastify registers it. */
  url: string;
}

/**
 * The spec's routes per capability (spec §4, wire contract §2–§6). A capability with several entries is served
 * when any of them is registered (the WebSocket answers at the root and under /api/v1).
 */
export const CAPABILITY_ROUTES: ReadonlyMap<Capability, readonly CapabilityRoute[]> = new Map<
  Capability,
  readonly CapabilityRoute[]
>([
  ['fetch_markets', [{ method: 'GET', url: '/api/v1/markets' }]],
  ['fetch_events', [{ method: 'GET', url: '/api/v1/events' }]],
  ['fetch_orderbook', [{ method: 'GET', url: '/api/v1/orderbook' }]],
  // The historical mode of the same route (start_ts / end_ts); the route answers 501 while no recorder runs.
  ['fetch_orderbook_history', [{ method: 'GET', url: '/api/v1/orderbook' }]],
  ['fetch_price_history', [{ method: 'GET', url: '/api/v1/price' }]],
  ['fetch_trades', [{ method: 'GET', url: '/api/v1/trades' }]],
  ['fetch_user_activity', [{ method: 'GET', url: '/api/v1/user-activity' }]],
  ['fetch_execution_price', [{ method: 'GET', url: '/api/v1/execution-price' }]],
  ['fetch_arbitrage', [{ method: 'GET', url: '/api/v1/arbitrage' }]],
  ['create_order', [{ method: 'POST', url: '/api/v1/orders' }]],
  ['cancel_order', [{ method: 'DELETE', url: '/api/v1/orders/:order_id' }]],
  ['fetch_order_history', [{ method: 'GET', url: '/api/v1/orders' }]],
  ['fetch_fills', [{ method: 'GET', url: '/api/v1/fills' }]],
  ['fetch_positions', [{ method: 'GET', url: '/api/v1/positions' }]],
  ['fetch_balance', [{ method: 'GET', url: '/api/v1/balance' }]],
  ['refresh_balance', [{ method: 'GET', url: '/api/v1/balance' }]],
  [
    'watch_address',
    [
      { method: 'GET', url: '/ws' },
      { method: 'GET', url: '/api/v1/ws' },
    ],
  ],
  [
    'websocket',
    [
      { method: 'GET', url: '/ws' },
      { method: 'GET', url: '/api/v1/ws' },
    ],
  ],
  ['route_orders', [{ method: 'POST', url: '/api/v1/route/orders' }]],
  ['arbitrage_execute', [{ method: 'POST', url: '/api/v1/arbitrage/execute' }]],
]);

/** The capabilities whose route is registered on `app` (call once every route is registered). */
export function servedCapabilities(app: FastifyInstance): ReadonlySet<Capability> {
  return new Set(
    CAPABILITIES.filter((capability) =>
      (CAPABILITY_ROUTES.get(capability) ?? []).some((route) => app.hasRoute(route)),
    ),
  );
}

/** The capabilities a request's method and path would reach if their route were registered. */
export function capabilitiesAt(method: string, path: string): Capability[] {
  const segments = path.split('/');
  return CAPABILITIES.filter((capability) =>
    (CAPABILITY_ROUTES.get(capability) ?? []).some(
      (route) => route.method === method && matchesTemplate(route.url.split('/'), segments),
    ),
  );
}

function matchesTemplate(template: string[], segments: string[]): boolean {
  if (template.length !== segments.length) return false;
  return template.every((part, i) =>
    part.startsWith(':') ? (segments[i] ?? '') !== '' : part === segments[i],
  );
}
