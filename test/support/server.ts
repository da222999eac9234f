// Starts the real server in-process (sandbox mode, ephemeral port, temp data dir) with its logs captured, so
// integration tests talk HTTP to exactly what `omnibook sandbox` runs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { type DeepPartial, loadConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../src/main.js';
import { assertDocumentedResponse } from './response-schemas.js';
import { uniqueName } from './services.js';

export interface TestServer {
  url: string;
  adminKey: string;
  runtime: Runtime;
  dataDir: string;
  /** Every log line written so far, raw JSON text. */
  logs: string[];
  /** GET/POST helper: path relative to the base URL, key defaults to the admin key. */
  request(path: string, init?: TestRequestInit): Promise<TestResponse>;
  stop(): Promise<void>;
}

export interface TestRequestInit {
  method?: string;
  key?: string | null;
  headers?: Record<string, string>;
  body?: unknown;
  rawBody?: string;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

export interface StartOptions extends RuntimeOptions {
  config?: DeepPartial<Config>;
}

export async function startTestServer(options: StartOptions = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'omnibook-test-'));
  const adminKey = uniqueName('admin_key_for_tests');
  const logs: string[] = [];
  const logDestination = new Writable({
    write(chunk, _enc, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const config = loadConfig({
    env: {},
    overrides: {
      mode: 'sandbox',
      port: 0,
      host: '127.0.0.1',
      dataDir,
      adminKey,
      logLevel: 'warn',
      // Recording the top markets would add venue traffic to tests that count it: a test that wants the
      // recorder's own books sets recorder itself.
      recorder: { topN: 0 },
      ...options.config,
    },
  });
  const runtime = await createRuntime(config, { logDestination, ...options });
  const url = await runtime.listen();
  return {
    url,
    adminKey,
    runtime,
    dataDir,
    logs,
    request: (path, init = {}) => send(url, adminKey, path, init),
    async stop() {
      await runtime.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function send(
  url: string,
  defaultKey: string,
  path: string,
  init: TestRequestInit = {},
): Promise<TestResponse> {
  const headers: Record<string, string> = { ...init.headers };
  const key = init.key === undefined ? defaultKey : init.key;
  if (key !== null) headers['x-api-key'] = key;
  let body: string | undefined;
  if (init.rawBody !== undefined) body = init.rawBody;
  else if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${url}${path}`, {
    method: init.method ?? 'GET',
    headers,
    ...(body !== undefined ? { body } : {}),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    // Non-JSON bodies (metrics, docs) stay text.
  }
  // Every answer a test receives is held to the schema its route publishes.
  await assertDocumentedResponse(
    url,
    init.method ?? 'GET',
    new URL(res.url).pathname,
    res.status,
    parsed,
    text,
  );
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/** Waits for a condition with a bound instead of sleeping a fixed time. */
export async function waitFor<T>(
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 5_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
