// A minimal venue adapter for foundation tests: it speaks plain HTTP to a loopback server the test owns, so
// /ping and the registry are exercised over real sockets before the real venue adapters exist.
import type { ExchangeId } from '../../src/domain/exchanges.js';
import type { Capability, Support, VenueAdapter, VenueDescriptor } from '../../src/venues/port.js';
import { CAPABILITIES } from '../../src/venues/port.js';

export function descriptorFor(
  id: ExchangeId,
  supported: Partial<Record<Capability, Support>> = {},
): VenueDescriptor {
  const has = Object.fromEntries(CAPABILITIES.map((c) => [c, supported[c] ?? 'unsupported'])) as Record<
    Capability,
    Support
  >;
  const descriptor: VenueDescriptor = {
    id,
    name: `Loopback ${id}`,
    has,
    features: { orderTypes: ['gtc'], gtdMinLeadSeconds: null, maxBookDepth: 100, candleIntervals: ['1h'] },
    credentials: [{ name: 'token', required: true, secret: true, description: 'shared secret' }],
    onboarding: [],
    balanceUnit: 'none',
    rateLimit: { requestsPerSecond: 10, burst: 10 },
  };
  return Object.freeze(descriptor);
}

/** Pings GET {baseUrl}/status with the session token as a bearer header; 200 = authenticated, 401 = refused. */
export function loopbackVenue(id: ExchangeId, baseUrl: string): VenueAdapter {
  return {
    descriptor: descriptorFor(id),
    catalog: {},
    marketData: {},
    trading: {},
    async ping(ctx, session) {
      const headers: Record<string, string> = {};
      if (session?.credentials.token) headers.authorization = `Bearer ${session.credentials.token}`;
      const res = await fetch(`${baseUrl}/status`, { headers, signal: ctx.signal });
      if (res.status >= 500)
        return { reachable: false, authenticated: false, message: `status ${res.status}` };
      if (!session) return { reachable: true, authenticated: false, message: 'reachable; no credentials' };
      return res.status === 200
        ? { reachable: true, authenticated: true, message: 'authenticated' }
        : { reachable: true, authenticated: false, message: 'credentials rejected' };
    },
  };
}
