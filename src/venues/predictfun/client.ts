// Predict.fun over VenueHttp: the REST API (operator x-api-key on every call, a wallet JWT on wallet routes), the
// sign-in that turns a wallet key into a JWT, and the BNB Chain JSON-RPC read of the collateral balance (the venue
// has no balance endpoint). Attributes a 401 to our API key or to the caller's credentials by the call it hit.
import type { Static, TSchema } from 'typebox';
import { type Address, decodeFunctionResult, encodeFunctionData, erc20Abi, type Hex } from 'viem';
import { AppError } from '../../errors/app-error.js';
import type { VenueContext, VenueSession } from '../port.js';
import { decodeResponse, type PayloadDecoder, payloadDecoder } from '../shared/payload.js';
import { VenueStatusError } from '../shared/venue-errors.js';
import { type HttpMethod, type QueryValue, VenueHttp } from '../shared/venue-http.js';
import { credentialsFrom, type PredictfunCredentials, signAuthMessage, signerAddress } from './auth.js';
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
  /** Operator API key; without it every venue call answers 503. */
  apiKey?: string;
  /** Book polling interval of the market stream. */
  pollIntervalMs: number;
  timeoutMs: number;
  /** The counterpart publishes no limit (a simulator): send without pacing. */
  unpaced?: boolean;
  /** 56 (BNB Chain); 97 for the testnet API. Signs Predict-account sign-ins and is checked against the RPC. */
  chainId?: number;
}

export const MISSING_KEY_MESSAGE = 'PREDICTFUN_API_KEY not configured';
export const DEFAULT_RATE_LIMIT = { requestsPerSecond: 4, burst: 8 };

export interface Call {
  method?: HttpMethod;
  path: string;
  query?: Record<string, QueryValue>;
  body?: string;
  operation: string;
}

/** A signed-in caller: the credentials it came with and the JWT that acts for its wallet. */
export interface WalletSession {
  creds: PredictfunCredentials;
  jwt: string;
}

const decodeMessage = payloadDecoder(envelope(PredictfunAuthMessage));
const decodeToken = payloadDecoder(envelope(PredictfunAuthToken));
const decodeAccount = payloadDecoder(envelope(PredictfunAccount));
const decodeRpc = payloadDecoder(JsonRpcBatch);

export class PredictfunClient {
  readonly rest: VenueHttp;
  readonly rpc: VenueHttp;
  readonly chainId: number;

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
    this.chainId = options.chainId ?? 56;
  }

  private apiKey(): string {
    const key = this.options.apiKey;
    if (!key) throw new AppError('service_unavailable', MISSING_KEY_MESSAGE);
    return key;
  }

  /** A call that needs only our API key (market data, positions by address, the sign-in message). */
  async public<T extends TSchema>(
    ctx: VenueContext,
    decoder: PayloadDecoder<T>,
    call: Call,
  ): Promise<Static<T>> {
    return this.send(ctx, decoder, call, null);
  }

  /** A call acting for the session's wallet (JWT). */
  async wallet<T extends TSchema>(
    ctx: VenueContext,
    wallet: WalletSession,
    decoder: PayloadDecoder<T>,
    call: Call,
  ): Promise<Static<T>> {
    return this.send(ctx, decoder, call, wallet.jwt);
  }

  private async send<T extends TSchema>(
    ctx: VenueContext,
    decoder: PayloadDecoder<T>,
    call: Call,
    jwt: string | null,
  ): Promise<Static<T>> {
    const key = this.apiKey();
    const method = call.method ?? 'GET';
    const headers: Record<string, string> = { 'x-api-key': key };
    if (jwt) headers.authorization = `Bearer ${jwt}`;
    try {
      const res = await this.rest.send(ctx, {
        method,
        path: call.path,
        query: call.query,
        body: call.body,
        headers,
        idempotent: method === 'GET',
        operation: call.operation,
      });
      return decodeResponse(decoder, res, 'predictfun', call.operation);
    } catch (error) {
      if (error instanceof VenueStatusError && (error.status === 401 || error.status === 403)) {
        throw jwt ? walletRejected(error) : operatorKeyRejected(error);
      }
      throw error;
    }
  }

  /** The session's credentials with a JWT: the one given, or a fresh one from signing the venue's message. */
  async signIn(ctx: VenueContext, session: VenueSession): Promise<WalletSession> {
    const creds = credentialsFrom(session);
    if (creds.jwt) return { creds, jwt: creds.jwt };
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
        headers: { 'x-api-key': this.apiKey() },
        // A sign-in message is single-use: a resend after a lost answer could only fail.
        idempotent: false,
        operation: 'auth',
      });
      return { creds, jwt: decodeResponse(decodeToken, res, 'predictfun', 'auth').data.token };
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
