// The signed-in session: the API key and any exchange credentials live in sessionStorage only (gone when the tab
// closes, never in localStorage or a cookie), and every call goes through the public SDK against the same origin.
import { type ExchangeCredentials, OmnibookClient, type Result } from '@omnibook/client';

export const EXCHANGES = ['polymarket', 'kalshi', 'limitless', 'opinion', 'predictfun'];

const KEY_ITEM = 'omnibook.apiKey';
const CREDENTIALS_ITEM = 'omnibook.credentials';

export type KeyRecord = Result<'/api/v1/keys/self'>;
export type Credentials = Partial<Record<string, ExchangeCredentials>>;

export interface Session {
  client: OmnibookClient;
  key: KeyRecord;
  credentials: Credentials;
}

function makeClient(apiKey: string, credentials: Credentials): OmnibookClient {
  return new OmnibookClient({ baseUrl: location.origin, apiKey, credentials, retry: { maxRetries: 1 } });
}

/** Checks the key against GET /keys/self and keeps it for this tab. */
export async function signIn(apiKey: string): Promise<Session> {
  const credentials = storedCredentials();
  const client = makeClient(apiKey, credentials);
  const key = await client.selfKey({ retry: false });
  sessionStorage.setItem(KEY_ITEM, apiKey);
  return { client, key, credentials };
}

/** The session this tab already has, checked again (a revoked key signs out). */
export async function resume(): Promise<Session | null> {
  const apiKey = sessionStorage.getItem(KEY_ITEM);
  if (!apiKey) return null;
  try {
    return await signIn(apiKey);
  } catch {
    sessionStorage.removeItem(KEY_ITEM);
    return null;
  }
}

export function signOut(session: Session | null): void {
  session?.client.stream().close();
  sessionStorage.removeItem(KEY_ITEM);
  sessionStorage.removeItem(CREDENTIALS_ITEM);
}

export function storedCredentials(): Credentials {
  try {
    const parsed = JSON.parse(sessionStorage.getItem(CREDENTIALS_ITEM) ?? '{}') as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as Credentials) : {};
  } catch {
    return {};
  }
}

/**
 * Exchange credentials as `{ "<exchange>": { fields } }`; the sandbox's sandbox-accounts.json works as it is
 * (its entries carry `credentials`). Throws a readable error for anything else.
 */
export function parseCredentials(text: string): Credentials {
  const parsed = JSON.parse(text) as unknown;
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error('expected a JSON object keyed by exchange');
  }
  const out: Credentials = {};
  for (const [exchange, value] of Object.entries(parsed as Record<string, unknown>)) {
    if (!EXCHANGES.includes(exchange) || !value || typeof value !== 'object') continue;
    const inner = (value as { credentials?: unknown }).credentials;
    out[exchange] = (inner && typeof inner === 'object' ? inner : value) as ExchangeCredentials;
  }
  return out;
}

/** A new session with these credentials (kept for this tab); the old client's stream is closed. */
export function withCredentials(session: Session, credentials: Credentials): Session {
  sessionStorage.setItem(CREDENTIALS_ITEM, JSON.stringify(credentials));
  const apiKey = session.client.apiKey ?? '';
  session.client.stream().close();
  return { client: makeClient(apiKey, credentials), key: session.key, credentials };
}
