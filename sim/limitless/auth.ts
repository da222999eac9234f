// Limitless request authentication, verified as docs.limitless.exchange/developers/authentication describes it:
// scoped API tokens sign every request (`lmts-api-key` token id, `lmts-timestamp` ISO-8601 within 30 s of server
// time, `lmts-signature` = base64 HMAC-SHA256 under the base64-decoded secret of
// `{timestamp}\n{METHOD}\n{path with query}\n{body}`), or a legacy `X-API-Key`. Also holds the paper accounts.
// The window is checked against wall time, never the simulator's movable clock (that one only drives markets).
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { privateKeyToAccount } from 'viem/accounts';

export const TIMESTAMP_TOLERANCE_MS = 30_000;
/** What the Socket.IO handshake signs, whatever URL the client actually used (documented canonical message). */
export const WS_SIGNED_PATH = '/socket.io/?EIO=4&transport=websocket';

export interface Holding {
  /** Outcome tokens held, × 1e6. */
  yes: number;
  no: number;
  /** USDC paid for them, × 1e6. */
  costYes: number;
  costNo: number;
}

export interface LimitlessAccount {
  profileId: number;
  tokenId: string;
  secret: string;
  apiKey: string;
  /** The wallet's key: orders are EIP-712 signed by it (EOA), the paper credentials carry it. */
  privateKey: `0x${string}`;
  /** EIP-55 checksummed, as Limitless shows accounts. */
  address: string;
  /** The exchange contract's order nonce for this maker (orders must carry it; CTF Exchange `isValidNonce`). */
  nonce: number;
  /** ERC-20 USDC allowance and CTF operator approval towards the exchange (set on chain before trading). */
  usdcApproved: boolean;
  ctfApproved: boolean;
  /** Paper USDC on Base, × 1e6 (Limitless's REST API has no cash-balance endpoint; the wallet holds it on chain). */
  usdc: bigint;
  holdings: Map<string, Holding>;
  /** Realised PnL in USD, from trading before the account was handed out. */
  realisedUsd: number;
  /** Lifetime traded volume in USD. */
  tradedUsd: number;
}

export type AuthResult =
  | { kind: 'anonymous' }
  | { kind: 'ok'; account: LimitlessAccount }
  | { kind: 'refused'; reason: string };

type Headers = Record<string, string | string[] | undefined>;

export class LimitlessAccounts {
  private readonly byToken = new Map<string, LimitlessAccount>();
  private readonly byKey = new Map<string, LimitlessAccount>();
  private readonly byAddress = new Map<string, LimitlessAccount>();
  private nextProfile = 410_000;
  /**
   * Test control (POST /__sim/limitless/auth-skew): how far the exchange's signature clock runs ahead of the wall
   * clock, so a client can be made to look stale without touching the simulated clock that drives markets.
   */
  skewMs = 0;

  register(): LimitlessAccount {
    const privateKey = `0x${randomBytes(32).toString('hex')}` as const;
    const account: LimitlessAccount = {
      profileId: this.nextProfile++,
      tokenId: randomUUID(),
      secret: randomBytes(32).toString('base64'),
      apiKey: `lmts_${randomBytes(20).toString('hex')}`,
      privateKey,
      address: privateKeyToAccount(privateKey).address,
      nonce: 0,
      usdcApproved: true,
      ctfApproved: true,
      usdc: 0n,
      holdings: new Map(),
      realisedUsd: 0,
      tradedUsd: 0,
    };
    this.byToken.set(account.tokenId, account);
    this.byKey.set(account.apiKey, account);
    this.byAddress.set(account.address.toLowerCase(), account);
    return account;
  }

  findByAddress(address: string): LimitlessAccount | undefined {
    return this.byAddress.get(address.toLowerCase());
  }

  /**
   * Who sent the request. HMAC headers win over X-API-Key (the SDK sends one or the other); no auth header at all
   * is anonymous, which public endpoints accept. Clients sign with their real time, so the timestamp is held
   * against the wall clock: after POST /__sim/clock a correctly signed request must still pass.
   */
  authenticate(headers: Headers, method: string, pathWithQuery: string, body: string): AuthResult {
    const tokenId = one(headers['lmts-api-key']);
    if (tokenId !== undefined) {
      const account = this.byToken.get(tokenId);
      if (!account) return { kind: 'refused', reason: 'unknown api token' };
      const ts = one(headers['lmts-timestamp']);
      const sig = one(headers['lmts-signature']);
      if (ts === undefined || sig === undefined)
        return { kind: 'refused', reason: 'missing signature headers' };
      const at = Date.parse(ts);
      if (Number.isNaN(at) || Math.abs(Date.now() + this.skewMs - at) > TIMESTAMP_TOLERANCE_MS) {
        return { kind: 'refused', reason: 'timestamp outside the 30 s window' };
      }
      const expected = sign(account.secret, ts, method, pathWithQuery, body);
      const given = Buffer.from(sig, 'base64');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        return { kind: 'refused', reason: 'bad signature' };
      }
      return { kind: 'ok', account };
    }
    const apiKey = one(headers['x-api-key']);
    if (apiKey !== undefined) {
      const account = this.byKey.get(apiKey);
      return account ? { kind: 'ok', account } : { kind: 'refused', reason: 'unknown api key' };
    }
    return { kind: 'anonymous' };
  }
}

function one(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

export function sign(
  secret: string,
  ts: string,
  method: string,
  pathWithQuery: string,
  body: string,
): Buffer {
  return createHmac('sha256', Buffer.from(secret, 'base64'))
    .update(`${ts}\n${method.toUpperCase()}\n${pathWithQuery}\n${body}`)
    .digest();
}
