// Log redaction: the header and field names that may carry secrets. Every logger of the service uses this list,
// and a test captures logs during requests carrying keys and credentials to prove none leaks.
export const REDACTED = '[redacted]';

const SECRET_FIELDS = [
  'private_key',
  'privateKey',
  'secret',
  'api_secret',
  'clob_api_secret',
  'passphrase',
  'clob_api_passphrase',
  'api_key',
  'apiKey',
  'clob_api_key',
  'password',
  'credentials',
  'signature',
  // Predict.fun sessions may carry a ready wallet JWT.
  'jwt',
  // The vault's master keys (config.vault) and sealed records: never in a log line, even by mistake.
  'masterKey',
  'previousMasterKeys',
  // The FeeEscrow operator's key (config.builder.escrow).
  'operatorKey',
  'sealed',
];

export const REDACT_PATHS: string[] = [
  'req.headers["x-api-key"]',
  'req.headers["x-exchange-credentials"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers["x-api-key"]',
  'headers["x-exchange-credentials"]',
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((f) => `*.${f}`),
  ...SECRET_FIELDS.map((f) => `*.*.${f}`),
];

const SECRET_PARAM = /key|secret|token|sig|pass|cred|auth|session/i;

/** A URL fit for logs: the values of query parameters whose names suggest a secret are replaced. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      return eq >= 0 && SECRET_PARAM.test(decodeSafely(name)) ? `${name}=${REDACTED}` : pair;
    });
  return `${url.slice(0, q)}?${params.join('&')}`;
}

function decodeSafely(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
