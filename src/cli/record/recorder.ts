// `omnibook record`: the calls the adapters make, made once against the real exchange, and their answers written
// as fixtures in the layout of test/fixtures/<exchange>/ — one JSON file per distinct call (`http_<method>_<operation>`)
// and per kind of stream frame (`ws_<type>`), secrets redacted (redact.ts), and a README.md with the provenance of
// each (endpoint, when, which build). Only reads: the catalogue, one market, its book, history and trades, a few
// seconds of its stream, and with credentials the account's balance and positions.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExchangeId } from '../../domain/exchanges.js';
import type { Market } from '../../domain/market.js';
import type {
  CapturedPayload,
  LoggerLike,
  PayloadCapture,
  VenueAdapter,
  VenueContext,
  VenueSession,
} from '../../venues/port.js';
import { redactBody } from './redact.js';

export interface RecordOptions {
  out: string;
  timeoutMs: number;
  /** How long the stream is listened to. */
  streamMs: number;
  logger: LoggerLike;
  /** Written into the README as the build that recorded. */
  version: string;
  /** Where the adapter was pointed, for the README (`live`, or the sandbox's origin). */
  origin: string;
}

export interface RecordedFile {
  file: string;
  kind: 'http' | 'ws';
  endpoint: string;
  operation: string;
}

export interface RecordResult {
  exchange: ExchangeId;
  dir: string;
  files: RecordedFile[];
  /** Calls that failed (the rest were still recorded). */
  failures: string[];
}

/** Stream frame kinds kept (the first frame of each). */
const MAX_FRAME_KINDS = 12;

export async function recordExchange(
  adapter: VenueAdapter,
  session: VenueSession | null,
  options: RecordOptions,
): Promise<RecordResult> {
  const exchange = adapter.descriptor.id;
  const dir = join(options.out, exchange);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const files: RecordedFile[] = [];
  const failures: string[] = [];
  const taken = new Set<string>();
  const capturedAt = new Date().toISOString();

  const capture: PayloadCapture = (p) => {
    const name = fileName(p);
    if (
      taken.has(name) ||
      (p.kind === 'ws' && files.filter((f) => f.kind === 'ws').length >= MAX_FRAME_KINDS)
    ) {
      return;
    }
    taken.add(name);
    writeFileSync(join(dir, name), `${JSON.stringify(redactBody(p.body), null, 2)}\n`, { mode: 0o600 });
    files.push({
      file: name,
      kind: p.kind,
      endpoint: p.kind === 'http' ? `${p.method} ${p.path}` : 'WS frame',
      operation: p.operation,
    });
  };
  const ctx = (): VenueContext => ({
    signal: AbortSignal.timeout(options.timeoutMs),
    requestId: 'record',
    logger: options.logger,
    tenant: null,
    capture,
  });
  const attempt = async (what: string, call: () => Promise<unknown> | undefined) => {
    try {
      await call();
    } catch (error) {
      failures.push(`${what}: ${(error as Error).message}`);
    }
  };

  const { catalog, marketData, trading } = adapter;
  let market: Market | null = null;
  await attempt('catalogue page', async () => {
    const page = await catalog.fetchMarketsPage?.(ctx(), null);
    market = page?.items.find((m) => m.status === 'active' && m.outcomes.length > 0) ?? null;
  });
  await attempt('events page', () => catalog.fetchEventsPage?.(ctx(), null));
  const picked = market as Market | null;
  if (picked) {
    const outcome = picked.outcomes[0]?.name ?? 'Yes';
    const nowS = Math.floor(Date.now() / 1000);
    await attempt('market', () => catalog.fetchMarket?.(ctx(), picked.exchange_market_id));
    await attempt('book', () => marketData.fetchOrderBook?.(ctx(), picked, outcome));
    await attempt('price history', () =>
      marketData.fetchPriceHistory?.(ctx(), picked, outcome, {
        interval: '1h',
        startTs: nowS - 86_400,
        endTs: nowS,
      }),
    );
    await attempt('trades', () =>
      marketData.fetchTrades?.(ctx(), picked, outcome, {
        limit: 20,
        startTs: null,
        endTs: null,
        cursor: null,
      }),
    );
    await attempt('stream', () => listen(adapter, picked, outcome, capture, options));
  } else {
    failures.push('no active market found: market, book, history, trades and stream not recorded');
  }
  if (session) {
    await attempt('balance', () => trading.fetchBalance?.(ctx(), session));
    await attempt('positions', () => trading.fetchPositions?.(ctx(), session, null));
  }

  writeFileSync(join(dir, 'README.md'), readme(exchange, files, capturedAt, options), { mode: 0o600 });
  return { exchange, dir, files, failures };
}

async function listen(
  adapter: VenueAdapter,
  market: Market,
  outcome: string,
  capture: PayloadCapture,
  options: RecordOptions,
): Promise<void> {
  const stop = new AbortController();
  const stream = adapter.marketData.openMarketStream?.({
    signal: stop.signal,
    logger: options.logger,
    capture,
  });
  if (!stream) return;
  const timer = setTimeout(() => void stream.close(), options.streamMs);
  try {
    stream.subscribe([{ market, outcome }]);
    for await (const _ of stream) {
      // Frames are captured as they arrive; the events themselves are not needed.
    }
  } finally {
    clearTimeout(timer);
    stop.abort();
    await stream.close();
  }
}

/** `http_get_<operation>.json`, or `ws_<type>.json` by the frame's own type field. */
function fileName(p: CapturedPayload): string {
  const slug = (s: string) =>
    s
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_|_$/g, '')
      .slice(0, 60) || 'frame';
  if (p.kind === 'http') {
    const method = slug(p.method ?? 'get');
    // Our operation labels often start with the verb already (`get_book`): said once.
    return `http_${method}_${slug(p.operation).replace(new RegExp(`^${method}_`), '')}.json`;
  }
  return `ws_${slug(frameType(p.body) ?? p.operation)}.json`;
}

/** The field venues name a frame's kind with (`type`, `event_type`, `event`, `channel`), first element of a batch. */
function frameType(body: string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  const first = Array.isArray(parsed) ? parsed[0] : parsed;
  if (typeof first !== 'object' || first === null) return null;
  for (const key of ['type', 'event_type', 'event', 'channel'] as const) {
    const value = Object.hasOwn(first, key) ? (first as Record<string, unknown>)[key] : undefined;
    if (typeof value === 'string' && value.length > 0) return value;
  }
  return null;
}

function readme(
  exchange: ExchangeId,
  files: readonly RecordedFile[],
  capturedAt: string,
  options: RecordOptions,
): string {
  const rows = files.map(
    (f) =>
      `| \`${f.file}\` | ${f.endpoint.replace(/\|/g, '\\|')} | \`${f.operation}\` | ${options.origin} | ${capturedAt} |`,
  );
  return `# ${exchange} fixtures recorded by \`omnibook record\`

Recorded by omnibook ${options.version} through its ${exchange} adapter: each file is the body of one answer (or
the first stream frame of its kind) exactly as received, except that fields named as secrets (keys, secrets,
passphrases, tokens, signatures) have the value \`<redacted>\`. Request headers and query strings were never
recorded. Copy a file over its counterpart in \`test/fixtures/${exchange}/\` to run the contract tests on it, and
record its provenance in that folder's README.

| File | Endpoint / message | Operation | Source | Captured (UTC) |
|---|---|---|---|---|
${rows.join('\n')}
`;
}
