// Opinion authenticates every OpenAPI call, market data included, with one header: `apikey`. Public data
// goes under the operator's key (venues.opinion.apiKey / OPINION_API_KEY), a user's data under the session's
// key, which names the wallet. No signing: keys are bearer secrets and never logged.
import { AppError } from '../../errors/app-error.js';
import type { VenueSession } from '../port.js';

export const API_KEY_HEADER = 'apikey';

/** What our API answers, as 503, when Opinion's public data is asked for and no operator key is configured. */
export const OPERATOR_KEY_MISSING = 'OPINION_API_KEY not configured';

export function operatorKeyOrThrow(apiKey: string | undefined): string {
  if (apiKey === undefined || apiKey === '') throw new AppError('service_unavailable', OPERATOR_KEY_MISSING);
  return apiKey;
}

/** The user's key from the session (the credential field `api_key`). */
export function sessionKey(session: VenueSession): string {
  const key = session.credentials.api_key;
  if (key === undefined || key === '') {
    throw new AppError('credentials_required', 'opinion credentials need api_key (the Opinion OpenAPI key)');
  }
  return key;
}

/** The login wallet's private key (credential `private_key`), which signs orders for the Safe. */
export function sessionSigner(session: VenueSession): `0x${string}` {
  const raw = (session.credentials.private_key ?? '').trim();
  if (raw === '') {
    throw new AppError(
      'credentials_required',
      'opinion orders need private_key (the 32-byte hex key of the wallet the API key belongs to)',
    );
  }
  const hex = raw.startsWith('0x') ? raw : `0x${raw}`;
  if (!/^0x[0-9a-fA-F]{64}$/.test(hex)) {
    throw new AppError('validation_error', 'opinion private_key must be a 32-byte hex key', {
      validationErrors: ['credentials.private_key must be 32 bytes of hex'],
    });
  }
  return hex as `0x${string}`;
}

export function keyHeaders(apiKey: string): Record<string, string> {
  return { [API_KEY_HEADER]: apiKey };
}
