// Where a client command (`omnibook mcp`) finds a running Omnibook server: OMNIBOOK_URL and OMNIBOOK_API_KEY, a
// `--url` flag over the variable. The key is read from the environment only, never a flag (argv is visible to
// every user of the machine in `ps`).

export interface RemoteApi {
  /** The server's base URL, without a trailing slash and without /api/v1. */
  url: string;
  apiKey: string;
}

export const DEFAULT_REMOTE_URL = 'http://127.0.0.1:8080';

export class RemoteApiError extends Error {}

export function loadRemoteApi(
  flags: { url?: string | undefined } = {},
  env: Record<string, string | undefined> = process.env,
): RemoteApi {
  const raw = flags.url ?? env.OMNIBOOK_URL ?? DEFAULT_REMOTE_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RemoteApiError(`OMNIBOOK_URL / --url is not a URL: ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new RemoteApiError('OMNIBOOK_URL / --url must be an http:// or https:// URL');
  }
  const apiKey = env.OMNIBOOK_API_KEY;
  if (!apiKey) throw new RemoteApiError('set OMNIBOOK_API_KEY to the API key the MCP tools act with');
  return { url: url.href.replace(/\/+$/, ''), apiKey };
}
