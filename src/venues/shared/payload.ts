// Validates venue JSON at the boundary against the TypeBox schema of the fields an adapter reads, so parsers work
// on typed data instead of `any`, and a changed or broken venue answer becomes a clear 503 instead of a crash.
import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { ExchangeId } from '../../domain/exchanges.js';
import { VenuePayloadError } from './venue-errors.js';
import type { VenueResponse } from './venue-http.js';

export interface PayloadDecoder<T extends TSchema> {
  (value: unknown, venue: ExchangeId, operation: string): Static<T>;
  check(value: unknown): value is Static<T>;
}

/** Compiles once per schema; call the result on each payload. */
export function payloadDecoder<T extends TSchema>(schema: T): PayloadDecoder<T> {
  const compiled = Compile(schema);
  const decode = ((value: unknown, venue: ExchangeId, operation: string) => {
    if (compiled.Check(value)) return value as Static<T>;
    const errors = [...compiled.Errors(value)].slice(0, 5);
    throw new VenuePayloadError(
      venue,
      operation,
      errors.map((e) => `${e.instancePath || '/'} ${e.message}`),
      errors.map((e) => e.instancePath || '/'),
    );
  }) as PayloadDecoder<T>;
  decode.check = (value: unknown): value is Static<T> => compiled.Check(value);
  return decode;
}

/** Parses a response body as JSON and validates it. */
export function decodeResponse<T extends TSchema>(
  decoder: PayloadDecoder<T>,
  res: VenueResponse,
  venue: ExchangeId,
  operation: string,
): Static<T> {
  let value: unknown;
  try {
    value = res.json();
  } catch {
    throw new VenuePayloadError(venue, operation, [`body is not JSON: ${res.text.slice(0, 80)}`]);
  }
  return decoder(value, venue, operation);
}
