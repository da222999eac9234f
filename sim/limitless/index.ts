// Public entry of the Limitless simulator: builds the shared world's Limitless catalogue and serves the REST API,
// the Socket.IO /markets feed and the /__sim control surface on one loopback port. Imports nothing from src/.
// Beside the shared controls: POST /__sim/limitless/auth-skew {skew_ms} runs the signature clock ahead of wall time;
// POST /__sim/limitless/approvals {address, usdc?, ctf?} sets a wallet's approvals towards the exchange.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleControl, type SimAccount, SimClock } from '../shared/control.js';
import { SimFaults } from '../shared/faults.js';
import { parseJson, readBody, sendJson } from '../shared/http.js';
import { SimRequestLog } from '../shared/request-log.js';
import { createWorld } from '../shared/world.js';
import { LimitlessAccounts } from './auth.js';
import { buildCatalog } from './catalog.js';
import { LimitlessExchange } from './exchange.js';
import { SimListing } from './listing.js';
import { seedHoldings } from './portfolio.js';
import { handleLimitlessRequest, type LimitlessSimState, requestUrl } from './server.js';
import { attachLimitlessStream } from './stream.js';
import { SimTape } from './tape.js';

export interface LimitlessSimOptions {
  port?: number;
  seed?: number;
  /** Number of propositions in the shared world. */
  size?: number;
  /** The instant the world is built around (see createWorld). */
  now?: Date;
}

export interface LimitlessAccountOptions {
  /** Positions the account starts with (0 = a fresh account). */
  holdings?: number;
  /** Paper USDC in base units (6 decimals). */
  fund?: string;
  /** `api_key` hands out a legacy X-API-Key instead of a scoped HMAC token. */
  scheme?: 'hmac' | 'api_key';
}

export interface LimitlessSim {
  /** REST base URL (api.limitless.exchange). */
  url: string;
  /** Socket.IO base URL (ws.limitless.exchange); clients connect to `${wsUrl}/markets`. */
  wsUrl: string;
  /** Base URL of /__sim/*. */
  control: string;
  /** Native market ids (slugs) per proposition key. */
  manifest: Record<string, string[]>;
  createAccount(options?: LimitlessAccountOptions): Promise<SimAccount>;
  close(): Promise<void>;
}

export async function startLimitlessSim(opts: LimitlessSimOptions = {}): Promise<LimitlessSim> {
  const world = createWorld({ seed: opts.seed, size: opts.size, now: opts.now });
  const clock = new SimClock();
  const startMs = clock.now();
  const catalog = buildCatalog(world);
  const accounts = new LimitlessAccounts();
  const faults = new SimFaults();
  const tape = new SimTape(startMs);
  const listing = new SimListing(catalog);
  const worldNowMs = () => world.now.getTime() + (clock.now() - startMs);
  // Order expirations and the signature window are held against wall time, as the chain and Limitless hold them.
  const exchange = new LimitlessExchange(
    () => tape.step,
    worldNowMs,
    () => Date.now(),
  );
  const state: LimitlessSimState = {
    catalog,
    listing,
    accounts,
    tape,
    faults,
    clock,
    worldNowMs,
    exchange,
    bookChanged: (slug) => stream.publishMarket(slug),
  };

  const createAccount = (options: LimitlessAccountOptions = {}): SimAccount => {
    const account = accounts.register();
    if (options.fund !== undefined && /^\d+$/.test(options.fund)) account.usdc += BigInt(options.fund);
    if (options.holdings) seedHoldings(account, catalog, options.holdings, worldNowMs());
    // The wallet key signs orders (EIP-712); the token (or legacy key) authenticates requests.
    const credentials: Record<string, string> =
      options.scheme === 'api_key'
        ? { api_key: account.apiKey, private_key: account.privateKey }
        : { token_id: account.tokenId, secret: account.secret, private_key: account.privateKey };
    return { credentials, address: account.address };
  };

  const requests = new SimRequestLog();
  const control = {
    faults,
    clock,
    requests,
    hooks: {
      manifest: () => catalog.manifest,
      advance: (steps: number) => {
        const step = tape.advance(steps, clock.now());
        stream.publishBooks();
        return step;
      },
      onClockAdvanced: () => listing.invalidate(),
      dropStreams: () => stream.drop(),
      createAccount: (body: Record<string, unknown>) =>
        createAccount({
          holdings: typeof body.holdings === 'number' ? Math.max(0, Math.floor(body.holdings)) : 0,
          fund: typeof body.fund === 'string' ? body.fund : undefined,
          scheme: body.scheme === 'api_key' ? 'api_key' : 'hmac',
        }),
      fund: (address: string, amount: string) => {
        const account = accounts.findByAddress(address);
        if (account) account.usdc += BigInt(amount);
      },
    },
  };

  const authSkew = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = (parseJson(await readBody(req)) ?? {}) as { skew_ms?: unknown };
    accounts.skewMs = typeof body.skew_ms === 'number' && Number.isFinite(body.skew_ms) ? body.skew_ms : 0;
    sendJson(res, 200, { skew_ms: accounts.skewMs });
  };

  // The wallet's on-chain approvals towards the exchange (USDC allowance for buys, CTF operator for sells).
  const approvals = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = (parseJson(await readBody(req)) ?? {}) as {
      address?: unknown;
      usdc?: unknown;
      ctf?: unknown;
    };
    const account = typeof body.address === 'string' ? accounts.findByAddress(body.address) : undefined;
    if (!account) return sendJson(res, 404, { error: 'no such account' });
    if (typeof body.usdc === 'boolean') account.usdcApproved = body.usdc;
    if (typeof body.ctf === 'boolean') account.ctfApproved = body.ctf;
    sendJson(res, 200, { usdc: account.usdcApproved, ctf: account.ctfApproved });
  };

  const server = createServer((req, res) => {
    const path = requestUrl(req.url ?? '/').pathname;
    if (path === '/__sim/limitless/approvals' && req.method === 'POST') {
      approvals(req, res).catch(() => {
        if (!res.headersSent) sendJson(res, 400, { error: 'body must be {address, usdc?, ctf?}' });
      });
      return;
    }
    if (path === '/__sim/limitless/auth-skew' && req.method === 'POST') {
      authSkew(req, res).catch(() => {
        if (!res.headersSent) sendJson(res, 400, { error: 'skew_ms must be a JSON number' });
      });
      return;
    }
    handleControl(req, res, path, control)
      .then((handled) => {
        if (handled) return;
        requests.record(req.method ?? 'GET', path);
        return handleLimitlessRequest(state, req, res);
      })
      .catch(() => {
        if (!res.headersSent) sendJson(res, 500, { statusCode: 500, message: 'Internal server error' });
      });
  });
  const stream = attachLimitlessStream(server, {
    catalog,
    accounts,
    faults,
    clock,
    context: () => ({ step: tape.step, worldNowMs: worldNowMs() }),
    book: (m) => exchange.book(m),
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    wsUrl: `ws://127.0.0.1:${port}`,
    control: url,
    manifest: catalog.manifest,
    createAccount: async (options) => createAccount(options),
    close: () => stream.close(),
  };
}
