// What `omnibook record` never writes: a recorded body may carry what a venue hands the account it read for (an
// API secret and passphrase derived for a wallet, a JWT, a signature). Fields whose names say they are secret keep
// their key and lose their value, so the fixture still shows the shape a decoder reads.
const SECRET_FIELD =
  /^(?:.*[_-])?(?:secret|passphrase|password|jwt|signature|private_?key|api_?key|apikey|access_?token|refresh_?token|auth_?token|session_?token|bearer)$/i;

export const REDACTED = '<redacted>';

/** The JSON with every secret-named field's value replaced; a body that is not JSON is not kept (it may be a token). */
export function redactBody(body: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { not_json: true, length: body.length };
  }
  return redact(parsed);
}

function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, SECRET_FIELD.test(k) && v !== null ? REDACTED : redact(v)]),
  );
}
