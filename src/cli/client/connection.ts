// The flags every client command shares (--url, --key, --json, --credentials) and the SDK client built from them.
// The key comes from --key or OMNIBOOK_API_KEY and is only ever sent as X-API-Key.
import { OmnibookClient } from '../../../clients/typescript/src/index.js';
import { clientEnv } from '../../config/client-env.js';
import { UsageError } from '../args.js';
import { readCredentials } from '../credentials-file.js';

export const CLIENT_FLAGS = {
  url: { type: 'string' },
  key: { type: 'string' },
  json: { type: 'boolean' },
  credentials: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const CLIENT_USAGE = `connection: --url URL (OMNIBOOK_URL, default http://127.0.0.1:8080), --key KEY (OMNIBOOK_API_KEY),
  --credentials FILE (exchange credentials for trading calls: { "<exchange>": { fields } } or sandbox-accounts.json;
  without it the customer's stored credentials are used), --json (the API's JSON instead of a table)
exit status: 0 ok, 1 the API refused (its code is printed), 2 usage, 3 unavailable or rate limited (try again)`;

export function connect(values: { url?: string; key?: string; credentials?: string }): OmnibookClient {
  const env = clientEnv();
  const baseUrl = values.url ?? env.url ?? 'http://127.0.0.1:8080';
  const apiKey = values.key ?? env.apiKey;
  if (!apiKey) throw new UsageError('no API key: pass --key or set OMNIBOOK_API_KEY');
  if (!/^https?:\/\//.test(baseUrl)) throw new UsageError(`--url: '${baseUrl}' is not an http(s) URL`);
  const credentials = values.credentials
    ? Object.fromEntries(readCredentials(values.credentials))
    : undefined;
  return new OmnibookClient({ baseUrl, apiKey, ...(credentials ? { credentials } : {}) });
}
