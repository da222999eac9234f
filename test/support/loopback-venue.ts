// Minimal venue adapters for foundation tests: one speaks plain HTTP to a loopback server the test owns, so
// /ping and the registry are exercised over real sockets before the real venue adapters exist; one answers at once.
import type { ExchangeId } from '../../src/domain/exchanges.js';
import type {
  Capability,
  CredentialField,
  Support,
  VenueAdapter,
  VenueDescriptor,
} from '../../src/venues/port.js';
import { CAPABILITIES } from '../../src/venues/port.js';

/** The credential fields of the spec for kalshi and polymarket, for tests that send X-Exchange-Credentials. */
export const SPEC_CREDENTIALS: Readonly<Partial<Record<ExchangeId, CredentialField[]>>> = {
  kalshi: [field('api_key_id', true, false), field('private_key', true, true)],
  polymarket: [
    field('private_key', true, true),
    field('clob_api_key', false, true),
    field('clob_api_secret', false, true),
    field('clob_api_passphrase', false, true),
  ],
};

function field(name: string, required: boolean, secret: boolean): CredentialField {
  return { name, required, secret, description: name };
}

export function descriptorFor(
  id: ExchangeId,
  supported: Partial<Record<Capability, Support>> = {},
  credentials: CredentialField[] = [field('token', true, true)],
): VenueDescriptor {
  const has = Object.fromEntries(CAPABILITIES.map((c) => [c, supported[c] ?? 'unsupported'])) as Record<
    Capability,
    Support
  >;
  const descriptor: VenueDescriptor = {
    id,
    name: `Loopback ${id}`,
    has,
    features: {
      orderTypes: ['gtc'],
      gtdMinLeadSeconds: null,
      maxBookDepth: 100,
      candleIntervals: ['1h'],
      streamTrades: false,
    },
    credentials,
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

/** A venue that answers every ping at once, authenticated whenever a session is given. */
export function instantVenue(
  id: ExchangeId,
  onPing?: (session: unknown, ctx: { logger: { debug(o: object, m?: string): void } }) => void,
): VenueAdapter {
  return {
    descriptor: descriptorFor(id, {}, SPEC_CREDENTIALS[id] ?? []),
    catalog: {},
    marketData: {},
    trading: {},
    async ping(ctx, session) {
      onPing?.(session, ctx);
      return { reachable: true, authenticated: session !== null, message: 'ok' };
    },
  };
}
