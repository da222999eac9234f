// Opinion's error table: errno codes (11001/11002 as ccxt's live-verified table names them) and texts mapped
// to the wire contract's codes. An error envelope that came with HTTP 200 is a VenueStatusError of status
// 200; one no rule recognises is the venue failing us (503), not the client's mistake.
import { mapVenueError, type VenueErrorRule, VenueStatusError } from '../shared/venue-errors.js';

export const OPINION_ERROR_RULES: readonly VenueErrorRule[] = [
  {
    venueCode: '11002',
    code: 'authentication_failed',
    describe: (m) => `opinion rejected the API key: ${m}`,
  },
  {
    venueCode: '11001',
    code: 'authentication_failed',
    describe: (m) => `opinion: the API key belongs to no Opinion wallet (${m})`,
  },
  {
    message: /invalid api ?key|api ?key (is )?(invalid|expired|not found)|unauthori[sz]ed/i,
    code: 'authentication_failed',
  },
  {
    message: /order (not found|does not exist)/i,
    code: 'order_not_found',
  },
  {
    message: /balance not enough|insufficient (balance|funds)|position not enough|allowance not enough/i,
    code: 'insufficient_funds',
    describe: (m) => `opinion: ${m}`,
  },
  {
    // The order was signed by a wallet other than the key's, or for another Safe: the credentials do not belong
    // together.
    message: /invalid signature|signer is not|maker is not/i,
    code: 'authentication_failed',
    describe: (m) => `opinion refused the order's signature (private_key must be the API key's wallet): ${m}`,
  },
  {
    message: /(market|topic|token) not found|(market|topic|token) does not exist/i,
    code: 'market_not_found',
  },
  {
    status: 200,
    code: 'service_unavailable',
    describe: (m) => `opinion answered with an error: ${m}`,
  },
];

/** The `errno` (or `code`) of an Opinion error body, as a string. */
export function opinionErrno(error: VenueStatusError): string | null {
  try {
    const body = JSON.parse(error.body) as { errno?: unknown; code?: unknown };
    const value = body.errno ?? body.code;
    return typeof value === 'number' || typeof value === 'string' ? String(value) : null;
  } catch {
    return null;
  }
}

export function mapOpinionError(error: unknown): unknown {
  return mapVenueError(error, OPINION_ERROR_RULES, opinionErrno);
}

/** Whether the venue said the market (or token) does not exist, so a lookup can answer "none". */
export function isNotFound(error: unknown): boolean {
  if (!(error instanceof VenueStatusError)) return false;
  return error.status === 404 || /not found|does not exist/i.test(error.venueMessage());
}

/** Whether the venue refused the key itself (so a public call with the operator's key is our misconfiguration). */
export function isKeyRejected(error: unknown): boolean {
  if (!(error instanceof VenueStatusError)) return false;
  const errno = opinionErrno(error);
  return error.status === 401 || error.status === 403 || errno === '11002' || errno === '11001';
}
