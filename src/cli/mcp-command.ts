// `omnibook mcp`: the MCP server on standard input/output, for a client (Claude Desktop, an agent) that starts it
// as a subprocess. Every tool call is an HTTP request to a running Omnibook server (OMNIBOOK_URL) with the key in
// OMNIBOOK_API_KEY, so the server applies that key's auth, tier, rate limits and validation; nothing runs here but
// the translation. Standard output carries only MCP messages; diagnostics go to standard error.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { loadRemoteApi, RemoteApiError } from '../config/remote-api.js';
import { VERSION } from '../main.js';
import { type ApiClient, httpClient } from '../mcp/api-client.js';
import { buildMcpServer } from '../mcp/mcp-server.js';
import { parse, UsageError } from './args.js';

const FLAGS = {
  url: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const USAGE = `usage: OMNIBOOK_API_KEY=… omnibook mcp [--url URL]

Serves the Omnibook MCP tools on stdin/stdout against a running server: --url or OMNIBOOK_URL (default
http://127.0.0.1:8080), the key in OMNIBOOK_API_KEY (never a flag). The order tools (place_order, cancel_order) are
listed only when the key has mcp_trading (omnibook keys create --mcp-trading).
`;

export async function mcpCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, FLAGS);
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'\n${USAGE}`);
  let remote: ReturnType<typeof loadRemoteApi>;
  try {
    remote = loadRemoteApi({ url: values.url });
  } catch (error) {
    if (error instanceof RemoteApiError) throw new UsageError(error.message);
    throw error;
  }
  // Calls still in flight when the client closes our input are answered before the server closes.
  const inFlight = new Set<Promise<unknown>>();
  const http = httpClient(remote.url, remote.apiKey);
  const client: ApiClient = {
    send(request) {
      const sent = http.send(request);
      inFlight.add(sent);
      sent.finally(() => inFlight.delete(sent)).catch(() => undefined);
      return sent;
    },
  };
  const server = buildMcpServer(VERSION, {
    client: () => client,
    // Asked of the server each time, so an operator's change to the key applies to the next call.
    tradingEnabled: async () => {
      const answer = await client.send({ method: 'GET', path: '/keys/self' });
      return answer.status === 200 && (answer.body as { mcp_trading?: unknown }).mcp_trading === true;
    },
  });
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  await server.connect(new StdioServerTransport());
  // The client ends the session by closing our standard input.
  process.stdin.once('end', () => {
    const drain = async () => {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
      // The answer of the last call is written a turn after its request settles.
      await new Promise((r) => setImmediate(r));
      await server.close();
    };
    drain().catch(() => undefined);
  });
  process.stderr.write(`omnibook mcp: serving on stdio against ${remote.url}\n`);
  await closed;
  return 0;
}
