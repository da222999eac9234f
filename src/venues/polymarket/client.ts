// Polymarket's three REST hosts over VenueHttp — Gamma (catalogue), CLOB (books, prices, trading) and the Data API
// (positions, activity, the public tape) — each paced to its own published limit, plus the authenticated CLOB call
// (L2 headers rebuilt per attempt) and the API-credential resolution (given, or derived with L1 once per wallet and
// kept until the CLOB refuses them).
import type { Static, TSchema } from 'typebox';
import type { Hex } from 'viem';
import { AppError } from '../../errors/app-error.js';
import type { VenueContext, VenueSession } from '../port.js';
import { CredentialCache } from '../shared/credential-cache.js';
import { decodeResponse, type PayloadDecoder, payloadDecoder } from '../shared/payload.js';
import { VenueStatusError } from '../shared/venue-errors.js';
import { type HttpMethod, type QueryValue, VenueHttp } from '../shared/venue-http.js';
import {
  apiCredsFromSession,
  l1Headers,
  l2Headers,
  type PolymarketApiCreds,
  type PolymarketSignatureType,
  type PolymarketSigner,
  signerFromSession,
  tradingWalletFromSession,
} from './auth.js';
import { lookupDepositWallet } from './deposit-wallet.js';
import { PolymarketApiCreds as ApiCredsSchema } from './payloads.js';

export interface PolymarketUrls {
  gammaUrl: string;
  clobUrl: string;
  dataUrl: string;
  wsMarketUrl: string;
  wsUserUrl: string;
}

export interface PolymarketClientOptions extends PolymarketUrls {
  timeoutMs: number;
  /** Stream heartbeat period (the venue documents 10 s); a socket silent for three is replaced. */
  streamHeartbeatMs?: number;
  /** Assets one market socket carries (default ASSETS_PER_SOCKET in stream.ts; the venue's limit is about 500). */
  wsAssetsPerConnection?: number;
  /** 137 (Polygon) in production and in the sandbox; the EIP-712 domains depend on it. */
  chainId?: number;
  /** The counterpart publishes no limit (a simulator): send without pacing. */
  unpaced?: boolean;
  /** The gasless relayer (deposit wallets); without it type-3 sessions must name their funder_address. */
  relayerUrl?: string;
  /** The operator's builder API credentials, which authorise relayer submissions (deposit wallet creation). */
  relayerAuth?: PolymarketApiCreds;
}

/** An authenticated caller: the wallet that signs, the one that trades, and the CLOB API credentials. */
export interface PolymarketAuth {
  signer: PolymarketSigner;
  /** Signature type and maker: balances, positions and fills are the maker's, not the signing EOA's. */
  wallet: { signatureType: PolymarketSignatureType; maker: Hex };
  creds: PolymarketApiCreds;
  /** The derived-credential cache entry the creds came from; null when the caller sent its own. */
  cacheKey: string | null;
}

/** The L1 nonce our derived keys use (the SDK's default). */
const DERIVE_NONCE = 0;
/** Wallets whose derived keys are kept per adapter; past it the least recently used derives again. */
const MAX_DERIVED_KEYS = 1_000;

interface Call {
  method?: HttpMethod;
  path: string;
  query?: Record<string, QueryValue>;
  body?: string;
  idempotent?: boolean;
  operation: string;
  headers?: () => Record<string, string>;
}

const decodeCreds = payloadDecoder(ApiCredsSchema);

export class PolymarketClient {
  readonly gamma: VenueHttp;
  readonly clob: VenueHttp;
  readonly data: VenueHttp;
  readonly relayer: VenueHttp | null;
  readonly chainId: number;
  /**
   * CLOB API keys derived from a wallet (L1), per base URL, chain, wallet address and nonce. They do not expire;
   * an L2 401 drops one and derives it again once.
   */
  private readonly derived = new CredentialCache<PolymarketApiCreds>({
    maxEntries: MAX_DERIVED_KEYS,
    refreshMarginMs: 0,
  });

  constructor(readonly options: PolymarketClientOptions) {
    const base = { venue: 'polymarket' as const, timeoutMs: options.timeoutMs, unpaced: options.unpaced };
    // Published limits per 10 s: Gamma listings 300, CLOB /book 1,500, Data API /positions 150.
    this.gamma = new VenueHttp({
      ...base,
      baseUrl: options.gammaUrl,
      rateLimit: { requestsPerSecond: 30, burst: 30 },
    });
    this.clob = new VenueHttp({
      ...base,
      baseUrl: options.clobUrl,
      rateLimit: { requestsPerSecond: 150, burst: 150 },
    });
    this.data = new VenueHttp({
      ...base,
      baseUrl: options.dataUrl,
      rateLimit: { requestsPerSecond: 15, burst: 15 },
    });
    this.relayer = options.relayerUrl
      ? new VenueHttp({
          ...base,
          baseUrl: options.relayerUrl,
          rateLimit: { requestsPerSecond: 10, burst: 10 },
        })
      : null;
    this.chainId = options.chainId ?? 137;
  }

  async get<T extends TSchema>(
    http: VenueHttp,
    ctx: VenueContext,
    decoder: PayloadDecoder<T>,
    call: Call,
  ): Promise<Static<T>> {
    const res = await http.send(ctx, {
      method: call.method ?? 'GET',
      path: call.path,
      query: call.query,
      body: call.body,
      idempotent: call.idempotent ?? true,
      operation: call.operation,
      ...(call.headers ? { headers: call.headers } : {}),
    });
    return decodeResponse(decoder, res, 'polymarket', call.operation);
  }

  /**
   * An L2-authenticated CLOB call; the signature covers the bare path and the exact body. When the CLOB answers 401
   * to credentials we derived (the key was deleted or rotated), they are derived again once and the call is sent
   * once more: a 401 is a refusal before any processing, so even an order is safe to resend.
   */
  async private<T extends TSchema>(
    ctx: VenueContext,
    auth: PolymarketAuth,
    decoder: PayloadDecoder<T>,
    call: Call,
  ): Promise<Static<T>> {
    try {
      return await this.sendL2(ctx, auth, decoder, call);
    } catch (error) {
      if (auth.cacheKey === null || !(error instanceof VenueStatusError) || error.status !== 401) throw error;
    }
    this.derived.invalidate(auth.cacheKey, auth.creds);
    auth.creds = await this.derivedCreds(ctx, auth.cacheKey, auth.signer);
    return this.sendL2(ctx, auth, decoder, call);
  }

  private async sendL2<T extends TSchema>(
    ctx: VenueContext,
    auth: PolymarketAuth,
    decoder: PayloadDecoder<T>,
    call: Call,
  ): Promise<Static<T>> {
    const method = call.method ?? 'GET';
    const res = await this.clob.send(ctx, {
      method,
      path: call.path,
      query: call.query,
      body: call.body,
      idempotent: call.idempotent ?? method !== 'POST',
      operation: call.operation,
      headers: () => l2Headers(auth.signer.address, auth.creds, method, call.path, call.body),
    });
    return decodeResponse(decoder, res, 'polymarket', call.operation);
  }

  /**
   * The session's signer and API credentials; credentials left out are derived from the wallet (L1) once and
   * reused, one derivation however many calls of the wallet wait for it.
   */
  async authenticate(ctx: VenueContext, session: VenueSession): Promise<PolymarketAuth> {
    const signer = signerFromSession(session);
    const given = apiCredsFromSession(session);
    const wallet = await this.tradingWallet(ctx, session, signer);
    // The API key stays bound to the signing EOA for every signature type (L1 is signed by the EOA; the CLOB
    // accepts a deposit wallet's order from its owner's key): see docs/venues/polymarket.md.
    if (given) return { signer, wallet, creds: given, cacheKey: null };
    const cacheKey = `${this.options.clobUrl} ${this.chainId} ${signer.address} ${DERIVE_NONCE}`;
    return { signer, wallet, creds: await this.derivedCreds(ctx, cacheKey, signer), cacheKey };
  }

  /** The session's signature type and maker; a type-3 session without funder_address finds its deposit wallet. */
  async tradingWallet(
    ctx: VenueContext,
    session: VenueSession,
    signer: PolymarketSigner,
  ): Promise<PolymarketAuth['wallet']> {
    const { signatureType, funder } = tradingWalletFromSession(session, signer.address);
    if (funder) return { signatureType, maker: funder };
    if (!this.relayer) {
      throw new AppError('validation_error', 'credentials.funder_address is required for signature_type 3', {
        validationErrors: [
          'credentials.funder_address: the deposit wallet address (no relayer is configured)',
        ],
      });
    }
    const found = await lookupDepositWallet(this, ctx, signer.address);
    if (!found.deployed) {
      throw new AppError('validation_error', `signer ${signer.address} has no deposit wallet yet`, {
        validationErrors: ['credentials.funder_address: create the deposit wallet (onboarding) or name it'],
      });
    }
    return { signatureType, maker: found.address };
  }

  private derivedCreds(ctx: VenueContext, cacheKey: string, signer: PolymarketSigner) {
    return this.derived.get(cacheKey, async () => ({
      value: await this.createOrDeriveCreds(ctx, signer),
      expiresAt: Number.POSITIVE_INFINITY,
    }));
  }

  /** Derives the wallet's API key for nonce 0, creating it first when the wallet has none yet. */
  async createOrDeriveCreds(ctx: VenueContext, signer: PolymarketSigner): Promise<PolymarketApiCreds> {
    const l1 = async () => l1Headers(signer, this.chainId, DERIVE_NONCE);
    let raw: Static<typeof ApiCredsSchema>;
    try {
      const res = await this.clob.send(ctx, {
        method: 'GET',
        path: '/auth/derive-api-key',
        headers: l1,
        idempotent: true,
        operation: 'derive_api_key',
      });
      raw = decodeResponse(decodeCreds, res, 'polymarket', 'derive_api_key');
    } catch (error) {
      // No key for this wallet yet (a 4xx other than auth): create one. Anything else is the answer.
      if (!(error instanceof VenueStatusError) || error.status >= 500 || error.status === 401) throw error;
      const res = await this.clob.send(ctx, {
        method: 'POST',
        path: '/auth/api-key',
        headers: l1,
        idempotent: false,
        operation: 'create_api_key',
      });
      raw = decodeResponse(decodeCreds, res, 'polymarket', 'create_api_key');
    }
    return { key: raw.apiKey, secret: raw.secret, passphrase: raw.passphrase };
  }

  async close(): Promise<void> {
    await Promise.all([this.gamma.close(), this.clob.close(), this.data.close(), this.relayer?.close()]);
  }
}
