// `omnibook doctor`: a read-only look at each exchange from this machine, the checks a user needs before trusting a
// live deployment — the venue's hosts resolve and accept a TLS (or, for the sandbox's loopback simulators, TCP)
// connection, this machine's clock agrees with the venue's (signed requests carry timestamps), and the adapter can
// decode one catalogue page, one book and one stream message of today's venue, plus, with credentials, one
// authenticated read. Nothing is written or sent that changes anything; a failure names what failed (a format that
// no longer decodes shows its JSON paths, never values). The adapters are used bare, without the server.
import { lookup } from 'node:dns/promises';
import { isIP, connect as netConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { ExchangeId } from '../../domain/exchanges.js';
import type { Market, Page } from '../../domain/market.js';
import { isAppError } from '../../errors/app-error.js';
import type { LoggerLike, StreamContext, VenueAdapter, VenueContext } from '../../venues/port.js';
import { payloadErrorIn } from '../../venues/shared/venue-errors.js';
import type { VenueTarget } from '../venue-targets.js';

export const DOCTOR_CHECKS = ['dns', 'connect', 'clock', 'catalogue', 'book', 'stream', 'auth'] as const;
export type DoctorCheck = (typeof DOCTOR_CHECKS)[number];

export interface CheckResult {
  check: DoctorCheck;
  /** `skipped`: not run (nothing to run it on, or no credentials given); it fails nothing. */
  result: 'ok' | 'failed' | 'skipped';
  detail: string;
  ms: number;
}

export interface ExchangeReport {
  exchange: ExchangeId;
  ok: boolean;
  checks: CheckResult[];
}

/** The adapter, every base URL it talks to (their hosts are resolved and connected to), and credentials if any. */
export type DoctorTarget = VenueTarget;

export interface DoctorOptions {
  /** Deadline of each network step. */
  timeoutMs: number;
  /** How long the stream may take to deliver its first book message. */
  streamTimeoutMs: number;
  /** Largest clock difference with a venue that passes. */
  maxSkewMs: number;
  logger: LoggerLike;
}

export const DOCTOR_DEFAULTS: Omit<DoctorOptions, 'logger'> = {
  timeoutMs: 10_000,
  streamTimeoutMs: 15_000,
  // Signed requests carry a timestamp the venue checks against its own clock; seconds off start to be refused.
  maxSkewMs: 5_000,
};

/** Catalogue pages read while looking for an active market with a book. */
const MAX_PAGES = 3;

export async function runDoctor(
  targets: readonly DoctorTarget[],
  options: DoctorOptions,
): Promise<ExchangeReport[]> {
  return Promise.all(targets.map((t) => checkExchange(t, options)));
}

async function checkExchange(target: DoctorTarget, options: DoctorOptions): Promise<ExchangeReport> {
  const { adapter } = target;
  const exchange = adapter.descriptor.id;
  const checks: CheckResult[] = [];
  const run = async (check: DoctorCheck, body: () => Promise<Omit<CheckResult, 'check' | 'ms'>>) => {
    const started = performance.now();
    let outcome: Omit<CheckResult, 'check' | 'ms'>;
    try {
      outcome = await body();
    } catch (error) {
      outcome = { result: 'failed', detail: describe(error) };
    }
    checks.push({ check, ...outcome, ms: Math.round(performance.now() - started) });
  };
  const urls = target.urls.map((u) => new URL(u));

  await run('dns', () => resolveHosts(urls));
  await run('connect', () => connectAll(urls, options.timeoutMs));
  await run('clock', () => clockSkew(urls, options));

  let market: { market: Market; outcome: string } | null = null;
  await run('catalogue', async () => {
    const read = adapter.catalog.fetchMarketsPage;
    if (!read) return { result: 'skipped', detail: `${exchange} has no catalogue listing` };
    let cursor: string | null = null;
    let seen = 0;
    for (let page = 0; page < MAX_PAGES; page++) {
      const got: Page<Market> = await read.call(adapter.catalog, context(options), cursor);
      seen += got.items.length;
      const found = got.items.find((m) => m.status === 'active' && m.outcomes.length > 0);
      if (found) {
        market = { market: found, outcome: found.outcomes[0]?.name ?? 'Yes' };
        return { result: 'ok', detail: `${seen} markets decoded; using ${found.svc_id}` };
      }
      if (!got.cursor) break;
      cursor = got.cursor;
    }
    return { result: 'failed', detail: `${seen} markets decoded, none active with outcomes` };
  });
  const picked = market as { market: Market; outcome: string } | null;

  await run('book', async () => {
    const read = adapter.marketData.fetchOrderBook;
    if (!read) return { result: 'skipped', detail: `${exchange} serves no order book` };
    if (!picked) return { result: 'skipped', detail: 'no market to read (see catalogue)' };
    const book = await read.call(adapter.marketData, context(options), picked.market, picked.outcome);
    const best = (side: Array<[number, number]>) => (side[0] ? String(side[0][0]) : '—');
    return {
      result: 'ok',
      detail: `${picked.outcome}: ${book.bids.length} bids (best ${best(book.bids)}), ${book.asks.length} asks (best ${best(book.asks)})`,
    };
  });

  await run('stream', async () => {
    const open = adapter.marketData.openMarketStream;
    if (!open) return { result: 'skipped', detail: `${exchange} has no book stream` };
    if (!picked) return { result: 'skipped', detail: 'no market to watch (see catalogue)' };
    return firstStreamBook(adapter, picked, options);
  });

  await run('auth', async () => {
    if (!target.session) return { result: 'skipped', detail: 'no credentials given (--credentials FILE)' };
    const outcome = await adapter.ping(context(options), target.session);
    return { result: outcome.authenticated ? 'ok' : 'failed', detail: outcome.message };
  });

  return { exchange, ok: checks.every((c) => c.result !== 'failed'), checks };
}

async function resolveHosts(urls: readonly URL[]): Promise<Omit<CheckResult, 'check' | 'ms'>> {
  const hosts = [...new Set(urls.map((u) => bareHost(u)))];
  const found: string[] = [];
  for (const host of hosts) {
    if (isIP(host)) {
      found.push(`${host} (an address)`);
      continue;
    }
    const addresses = await lookup(host, { all: true });
    found.push(`${host} → ${addresses.map((a) => a.address).join(', ')}`);
  }
  return { result: 'ok', detail: found.join('; ') };
}

async function connectAll(
  urls: readonly URL[],
  timeoutMs: number,
): Promise<Omit<CheckResult, 'check' | 'ms'>> {
  // https and wss on one host and port are one TLS endpoint (as are http and ws on one TCP one).
  const endpoints = new Map<string, URL>();
  for (const u of urls) endpoints.set(`${isSecure(u)} ${bareHost(u)}:${portOf(u)}`, u);
  const done: string[] = [];
  for (const u of endpoints.values()) done.push(await connectOne(u, timeoutMs));
  return { result: 'ok', detail: done.join('; ') };
}

/** A TLS handshake with certificate check for https/wss, a TCP connection for http/ws (the sandbox's loopback). */
function connectOne(url: URL, timeoutMs: number): Promise<string> {
  const secure = isSecure(url);
  const host = bareHost(url);
  const port = portOf(url);
  return new Promise((resolve, reject) => {
    const socket = secure
      ? tlsConnect({ host, port, servername: isIP(host) ? undefined : host })
      : netConnect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`${host}:${port} did not accept a connection within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`${host}:${port}: ${error.message}`));
    });
    socket.once(secure ? 'secureConnect' : 'connect', () => {
      clearTimeout(timer);
      let detail = `${host}:${port} TCP`;
      if (secure && 'getPeerCertificate' in socket) {
        const cert = socket.getPeerCertificate();
        detail = `${host}:${port} ${socket.getProtocol() ?? 'TLS'}, certificate valid to ${cert.valid_to}`;
      }
      socket.end();
      resolve(detail);
    });
  });
}

/** The venue's clock from the Date header of its first REST host (any answer carries one), against ours. */
async function clockSkew(
  urls: readonly URL[],
  options: DoctorOptions,
): Promise<Omit<CheckResult, 'check' | 'ms'>> {
  const rest = urls.find((u) => u.protocol === 'https:' || u.protocol === 'http:');
  if (!rest) return { result: 'skipped', detail: 'no REST host to ask' };
  const sentAt = Date.now();
  const res = await fetch(rest.origin, { method: 'HEAD', signal: AbortSignal.timeout(options.timeoutMs) });
  const receivedAt = Date.now();
  await res.body?.cancel();
  const date = res.headers.get('date');
  const venueMs = date ? Date.parse(date) : Number.NaN;
  if (!Number.isFinite(venueMs)) return { result: 'skipped', detail: `${rest.host} sent no Date header` };
  // The header has one-second resolution and was written somewhere during the round trip: the skew is known to
  // within half the trip plus a second, and only what exceeds that counts.
  const ours = (sentAt + receivedAt) / 2;
  const skew = ours - venueMs;
  const slack = (receivedAt - sentAt) / 2 + 1000;
  const excess = Math.max(0, Math.abs(skew) - slack);
  const detail = `this machine is ${Math.abs(Math.round(skew))} ms ${skew >= 0 ? 'ahead of' : 'behind'} ${rest.host} (±${Math.round(slack)} ms)`;
  return excess > options.maxSkewMs
    ? {
        result: 'failed',
        detail: `${detail}: more than ${options.maxSkewMs} ms; signed requests may be refused`,
      }
    : { result: 'ok', detail };
}

/** Opens the adapter's book stream on one market and waits for its first book message to decode. */
async function firstStreamBook(
  adapter: VenueAdapter,
  picked: { market: Market; outcome: string },
  options: DoctorOptions,
): Promise<Omit<CheckResult, 'check' | 'ms'>> {
  const undecoded = new Set<string>();
  const stop = new AbortController();
  const ctx: StreamContext = {
    signal: stop.signal,
    logger: options.logger,
    drift: (error) => {
      const payload = payloadErrorIn(error);
      if (payload) undecoded.add(`${payload.operation} at ${payload.paths.slice(0, 3).join(', ')}`);
    },
  };
  const stream = adapter.marketData.openMarketStream?.(ctx);
  if (!stream) return { result: 'skipped', detail: 'no stream opened' };
  const timer = setTimeout(() => void stream.close(), options.streamTimeoutMs);
  try {
    stream.subscribe([{ market: picked.market, outcome: picked.outcome }]);
    let lastState = '';
    for await (const event of stream) {
      if (event.type === 'book_snapshot' || event.type === 'book_delta') {
        return { result: 'ok', detail: `${event.type} decoded for ${picked.market.svc_id}` };
      }
      if (event.type === 'feed_state') lastState = `${event.state}: ${event.reason}`;
    }
    const why = undecoded.size > 0 ? `frames that did not decode: ${[...undecoded].join('; ')}` : lastState;
    return {
      result: 'failed',
      detail: `no book message within ${options.streamTimeoutMs} ms${why ? ` (${why})` : ''}`,
    };
  } finally {
    clearTimeout(timer);
    stop.abort();
    await stream.close();
  }
}

function context(options: DoctorOptions): VenueContext {
  return {
    signal: AbortSignal.timeout(options.timeoutMs),
    requestId: 'doctor',
    logger: options.logger,
    tenant: null,
  };
}

function isSecure(url: URL): boolean {
  return url.protocol === 'https:' || url.protocol === 'wss:';
}

function portOf(url: URL): number {
  return Number(url.port) || (isSecure(url) ? 443 : 80);
}

function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** What failed, in words: the API code and message for adapter errors, the paths of a format that changed. */
function describe(error: unknown): string {
  if (isAppError(error)) return `${error.code}: ${error.message}`;
  const payload = payloadErrorIn(error);
  if (payload) return `exchange_format_changed: ${payload.operation} at ${payload.paths.join(', ')}`;
  return (error as Error).message ?? String(error);
}
