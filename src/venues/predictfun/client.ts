// Predict.fun over VenueHttp: the REST API (operator x-api-key on every mainnet call, a wallet JWT on wallet routes), the
// sign-in that turns a wallet key into a JWT (cached per signer until shortly before it expires), and the BNB Chain
// JSON-RPC read of the collateral balance (the venue has no balance endpoint). Attributes a 401 to our API key or to
// the caller's credentials by the call it hit.
import type { Static, TSchema } from 'typebox';
import { type Address, decodeFunctionResult, encodeFunctionData, erc20Abi, type Hex } from 'viem';
import { AppError } from '../../errors/app-error.js';
import type { VenueContext, VenueSession } from '../port.js';
import { CredentialCache, type IssuedCredential } from '../shared/credential-cache.js';
import { decodeResponse, type PayloadDecoder, payloadDecoder } from '../shared/payload.js';
import { VenueStatusError } from '../shared/venue-errors.js';
import { type HttpMethod, type QueryValue, VenueHttp } from '../shared/venue-http.js';
import {
  credentialsFrom,
  jwtExpiresAt,
  type PredictfunCredentials,
  signAuthMessage,
  signerAddress,
  signInIdentity,
} from './auth.js';
import { operatorKeyRejected, walletRejected } from './errors.js';
import {
  envelope,
  JsonRpcBatch,
  PredictfunAccount,
  PredictfunAuthMessage,
  PredictfunAuthToken,
} from './payloads.js';

export interface PredictfunAdapterOptions {
  restUrl: string;
  /** BNB Chain JSON-RPC endpoint for balances. */
  rpcUrl: string;
  /** The collateral ERC-20 (USDT on BSC) whose balance is the account balance. */
  collateralToken: string;
  /**
   * Operator API key, sent as x-api-key. Mainnet requires it on every request: without it every call answers 503
   * at once. Elsewhere (the key-less testnet) calls go without it, and a venue that still demands one gets the same
   * 503.
   */
  apiKey?: string;
  /** Book polling interval of the market stream. */
  pollIntervalMs: number;
  timeoutMs: number;
  /** The counterpart publishes no limit (a simulator): send without pacing. */
  unpaced?: boolean;
  /**
   * 56 (BNB Chain); 97 for the testnet API. Signs Predict-account sign-ins and is checked against the RPC. Left
   * out, it follows the REST host (`predictfunNetwork`).
   */
  chainId?: number;
}

export const MISSING_KEY_MESSAGE = 'PREDICTFUN_API_KEY not configured';
const MAINNET_HOST = 'api.predict.fun';
const TESTNET_HOST = 'api-testnet.predict.fun';

/**
 * What a REST base URL implies: the mainnet host wants an API key on every request, the testnet host (BNB testnet,
 * chain 97) none ("API Key: required for all endpoints (only on Mainnet)", dev.predict.fun authentication guide).
 * Any other host (a proxy, the simulator) is not known to demand one: the venue's own 401 will say so.
 */
export function predictfunNetwork(restUrl: string): { keyRequired: boolean; chainId: number } {
  let host = '';
  try {
    host = new URL(restUrl).hostname.toLowerCase();
  } catch {
    // not a URL: VenueHttp refuses it when the adapter is built
  }
  if (host === TESTNET_HOST) return { keyRequired: false, chainId: 97 };
  return { keyRequired: host === MAINNET_HOST, chainId: 56 };
}
export const DEFAULT_RATE_LIMIT = { requestsPerSecond: 4, burst: 8 };

export interface Call {
  method?: HttpMethod;
  path: string;
  query?: Record<string, QueryValue>;
  body?: string;
  /** Whether a lost answer may be resent; GETs are, anything else only when the caller says so. */
  idempotent?: boolean;
  operation: string;
}

/** A signed-in caller: the credentials it came with and the JWT that acts for its wallet. */
export interface WalletSession {
  creds: PredictfunCredentials;
  jwt: string;
  /** The JWT cache entry the token came from; null when the caller brought its own JWT. */
  cacheKey: string | null;
}

/** The venue's JWTs live 24 h (`exp − iat`); one this close to its end is replaced before a call, not during it. */
const JWT_REFRESH_MARGIN_MS = 5 * 60_000;
/** A token without a readable `exp` is trusted for less than the observed 24 h, and replaced on a 401 anyway. */
const JWT_ASSUMED_LIFETIME_MS = 23 * 60 * 60_000;
/** Signed-in wallets kept per adapter; past it the least recently used signs in again when it next calls. */
const MAX_CACHED_JWTS = 1_000;

const decodeMessage = payloadDecoder(envelope(PredictfunAuthMessage));
const decodeToken = payloadDecoder(envelope(PredictfunAuthToken));
const decodeAccount = payloadDecoder(envelope(PredictfunAccount));
const decodeRpc = payloadDecoder(JsonRpcBatch);

export class PredictfunClient {
  readonly rest: VenueHttp;
  readonly rpc: VenueHttp;
  readonly chainId: number;
  /** Whether calls must carry our API key before they are sent (mainnet). */
  readonly keyRequired: boolean;
  /**
   * JWTs per signer of this adapter instance (keyed by base URL, the key's EOA and the Predict account): the venue
   * allows 240 requests a minute per API key, and a sign-in costs two of them.
   */
  private readonly jwts = new CredentialCache<string>({
    maxEntries: MAX_CACHED_JWTS,
    refreshMarginMs: JWT_REFRESH_MARGIN_MS,
  });

  constructor(readonly options: PredictfunAdapterOptions) {
    this.rest = new VenueHttp({
      venue: 'predictfun',
      baseUrl: options.restUrl,
      timeoutMs: options.timeoutMs,
      rateLimit: DEFAULT_RATE_LIMIT,
      unpaced: options.unpaced,
    });
    this.rpc = new VenueHttp({
      venue: 'predictfun',
      baseUrl: options.rpcUrl,
      timeoutMs: options.timeoutMs,
      rateLimit: { requestsPerSecond: 20, burst: 20 },
      unpaced: options.unpaced,
    });
    const network = predictfunNetwork(options.restUrl);
    this.chainId = options.chainId ?? network.chainId;
    this.keyRequired = network.keyRequired;
  }

  /** Whether a call can go out at all: mainnet refuses every call without our key, so none is sent. */
  get usable(): boolean {
    return Boolean(this.options.apiKey) || !this.keyRequired;
  }

  /** The x-api-key header when we have a key; none on a network that serves without one. */
  private keyHeaders(): Record<string, string> {
    const key = this.options.apiKey;
    if (key) return { 'x-api-key': key };
    if (this.keyRequired) throw new AppError('service_unavailable', MISSING_KEY_MESSAGE);
    return {};
  }

  /** A 401/403 is the caller's credentials on a wallet call, our API key (or its absence) otherwise. */
  private authFailure(error: unknown, withJwt: boolean): unknown {
    if (!(error instanceof VenueStatusError) || (error.status !== 401 && error.status !== 403)) return error;
    if (withJwt) return walletRejected(error);
    if (!this.options.apiKey)
      return new AppError('service_unavailable', MISSING_KEY_MESSAGE, { cause: error });
    return operatorKeyRejected(error);
  }

  /** A call that needs only our API key (market data, positions by address, the sign-in message). */
  async public<T extends TSchema>(
    ctx: VenueContext,
    decoder: PayloadDecoder<T>,
    call: Call,
  ): Promise<Static<T>> {
    return this.send(ctx, decoder, call, null);
  }

  /**
   * A call acting for the session's wallet (JWT). A JWT we signed in for that the venue answers with 401 (expired
   * or revoked early) is dropped from the cache and replaced by one new sign-in, and the call is sent once more;
   * a second refusal, or a refusal of a JWT the caller brought, is the caller's `authentication_failed`.
   */
  async wallet<T extends TSchema>(
    ctx: VenueContext,
    wallet: WalletSession,
    decoder: PayloadDecoder<T>,
    call: Call,
  ): Promise<Static<T>> {
    try {
      return await this.sendRaw(ctx, decoder, call, wallet.jwt);
    } catch (error) {
      if (wallet.cacheKey === null || !(error instanceof VenueStatusError) || error.status !== 401) {
        throw this.authFailure(error, true);
      }
    }
    this.jwts.invalidate(wallet.cacheKey, wallet.jwt);
    wallet.jwt = await this.cachedJwt(ctx, wallet.cacheKey, wallet.creds);
    try {
      return await this.sendRaw(ctx, decoder, call, wallet.jwt);
    } catch (error) {
      throw this.authFailure(error, true);
    }
  }

  private async send<T extends TSchema>(
    ctx: VenueContext,
    decoder: PayloadDecoder<T>,
    call: Call,
    jwt: string | null,
  ): Promise<Static<T>> {
    try {
      return await this.sendRaw(ctx, decoder, call, jwt);
    } catch (error) {
      throw this.authFailure(error, jwt !== null);
    }
  }

  /** Sends one REST call; a refusal stays the venue's VenueStatusError for the caller to attribute. */
  private async sendRaw<T extends TSchema>(
    ctx: VenueContext,
    decoder: PayloadDecoder<T>,
    call: Call,
    jwt: string | null,
  ): Promise<Static<T>> {
    const method = call.method ?? 'GET';
    const headers = this.keyHeaders();
    if (jwt) headers.authorization = `Bearer ${jwt}`;
    const res = await this.rest.send(ctx, {
      method,
      path: call.path,
      query: call.query,
      body: call.body,
      headers,
      idempotent: call.idempotent ?? method === 'GET',
      operation: call.operation,
    });
    return decodeResponse(decoder, res, 'predictfun', call.operation);
  }

  /**
   * The session's credentials with a JWT: the one given, or the signer's cached one, or a fresh one from signing the
   * venue's message (one sign-in however many calls of the same signer wait for it).
   */
  async signIn(ctx: VenueContext, session: VenueSession): Promise<WalletSession> {
    const creds = credentialsFrom(session);
    if (creds.jwt) return { creds, jwt: creds.jwt, cacheKey: null };
    const cacheKey = `${this.options.restUrl} ${signInIdentity(creds)}`;
    return { creds, jwt: await this.cachedJwt(ctx, cacheKey, creds), cacheKey };
  }

  private cachedJwt(ctx: VenueContext, cacheKey: string, creds: PredictfunCredentials): Promise<string> {
    return this.jwts.get(cacheKey, () => this.issueJwt(ctx, creds));
  }

  /** Signs the venue's sign-in message and exchanges it for a JWT (GET /v1/auth/message, POST /v1/auth). */
  private async issueJwt(ctx: VenueContext, creds: PredictfunCredentials): Promise<IssuedCredential<string>> {
    const signer = signerAddress(creds) as Address;
    const { data } = await this.public(ctx, decodeMessage, {
      path: '/v1/auth/message',
      operation: 'auth_message',
    });
    const signature = await signAuthMessage(creds, data.message, this.chainId);
    try {
      const res = await this.rest.send(ctx, {
        method: 'POST',
        path: '/v1/auth',
        body: JSON.stringify({ signer, message: data.message, signature }),
        headers: this.keyHeaders(),
        // A sign-in message is single-use: a resend after a lost answer could only fail.
        idempotent: false,
        operation: 'auth',
      });
      const token = decodeResponse(decodeToken, res, 'predictfun', 'auth').data.token;
      return { value: token, expiresAt: jwtExpiresAt(token) ?? Date.now() + JWT_ASSUMED_LIFETIME_MS };
    } catch (error) {
      if (error instanceof VenueStatusError && (error.status === 401 || error.status === 403)) {
        throw walletRejected(error);
      }
      throw error;
    }
  }

  /** Where the session's funds live: the Predict account, the key's EOA, or (JWT only) what GET /v1/account says. */
  async walletAddress(ctx: VenueContext, wallet: WalletSession): Promise<Address> {
    const known = signerAddress(wallet.creds);
    if (known) return known;
    const { data } = await this.wallet(ctx, wallet, decodeAccount, {
      path: '/v1/account',
      operation: 'account',
    });
    return data.address as Address;
  }

  /** Reads the collateral balance on chain (eth_chainId and balanceOf in one JSON-RPC batch). */
  async collateralBalance(ctx: VenueContext, owner: Address): Promise<bigint> {
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [owner] });
    const body = JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] },
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'eth_call',
        params: [{ to: this.options.collateralToken, data }, 'latest'],
      },
    ]);
    const res = await this.rpc.send(ctx, {
      method: 'POST',
      path: '',
      body,
      idempotent: true,
      operation: 'balance_of',
    });
    const answers = decodeResponse(decodeRpc, res, 'predictfun', 'balance_of');
    const byId = new Map(answers.map((a) => [a.id, a]));
    const chain = byId.get(1);
    const call = byId.get(2);
    const failure = chain?.error ?? call?.error;
    if (failure || chain?.result === undefined || call?.result === undefined) {
      throw new AppError('service_unavailable', `BNB Chain RPC failed: ${failure?.message ?? 'no result'}`);
    }
    if (Number(BigInt(chain.result)) !== this.chainId) {
      throw new AppError(
        'service_unavailable',
        `the configured RPC is chain ${BigInt(chain.result)}, not ${this.chainId}`,
      );
    }
    try {
      return decodeFunctionResult({ abi: erc20Abi, functionName: 'balanceOf', data: call.result as Hex });
    } catch {
      throw new AppError('service_unavailable', 'BNB Chain RPC answered balanceOf with unreadable data');
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.rest.close(), this.rpc.close()]);
  }
}
