// What the client commands (`omnibook markets`, `book`, `order` …) read from the environment: the server to talk to
// and the API key. Kept here because src/config is the only reader of process.env.

export interface ClientEnv {
  url?: string;
  apiKey?: string;
}

export function clientEnv(env: Record<string, string | undefined> = process.env): ClientEnv {
  const url = env.OMNIBOOK_URL;
  const apiKey = env.OMNIBOOK_API_KEY;
  return {
    ...(url !== undefined && url !== '' ? { url } : {}),
    ...(apiKey !== undefined && apiKey !== '' ? { apiKey } : {}),
  };
}
