// Decodes X-Exchange-Credentials (base64 of a JSON object) into a transient session. The decoded secrets are
// never echoed: error messages name fields, never values.
import type { ExchangeId } from '../domain/exchanges.js';
import { ownValue } from '../domain/own-key.js';
import { holdsMalformedText, malformedTextMessage } from '../domain/well-formed-text.js';
import { AppError } from '../errors/app-error.js';
import type { CredentialField, VenueSession } from '../venues/port.js';

const MAX_HEADER_BYTES = 16_384;

export function decodeCredentialsHeader(
  header: string,
  exchange: ExchangeId,
  fields: readonly CredentialField[],
): VenueSession {
  if (header.length > MAX_HEADER_BYTES) {
    throw new AppError('bad_request', 'X-Exchange-Credentials is too large');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(header, 'base64').toString('utf8'));
  } catch {
    throw new AppError('bad_request', 'X-Exchange-Credentials must be base64 of a JSON object');
  }
  // Its JSON may escape a lone surrogate that the edge's check of query and body never saw.
  if (holdsMalformedText(parsed)) {
    throw new AppError('validation_error', malformedTextMessage('header X-Exchange-Credentials'));
  }
  return sessionFrom(parsed, exchange, fields, 'per_request');
}

export function sessionFrom(
  value: unknown,
  exchange: ExchangeId,
  fields: readonly CredentialField[],
  source: VenueSession['source'],
): VenueSession {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AppError('bad_request', 'exchange credentials must be a JSON object');
  }
  const record = value as Record<string, unknown>;
  const problems: string[] = [];
  const credentials: Array<[string, string]> = [];
  const known = new Set(fields.map((f) => f.name));
  for (const field of fields) {
    const v = ownValue(record, field.name);
    if (v === undefined || v === null || v === '') {
      if (field.required) problems.push(`credentials.${field.name} is required for ${exchange}`);
      continue;
    }
    if (typeof v !== 'string') problems.push(`credentials.${field.name} must be a string`);
    else credentials.push([field.name, v]);
  }
  // An unknown name is not repeated: it may be a secret pasted as a name. The accepted ones are listed instead.
  const unknown = Object.keys(record).filter((name) => !known.has(name)).length;
  if (unknown > 0) {
    problems.push(
      `credentials has ${unknown} field(s) that are not ${exchange} credential fields (names not repeated; it takes ${[...known].join(', ')})`,
    );
  }
  if (problems.length > 0) {
    throw new AppError('validation_error', problems[0] as string, { validationErrors: problems });
  }
  return Object.freeze({ exchange, credentials: Object.freeze(Object.fromEntries(credentials)), source });
}
