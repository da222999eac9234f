// Predict.fun authentication as the simulator enforces it: the operator API key in `x-api-key` on every /v1 call,
// and for wallet endpoints a JWT obtained by signing a server-issued message (GET /v1/auth/message, POST /v1/auth):
// an EOA signs it with personal_sign (EIP-191); a Predict account signs the Kernel-wrapped hash with its owner key
// and sends 0x01 ‖ ECDSA validator ‖ signature (the official SDK's signPredictAccountMessage). Tokens are HS256 JWTs
// that expire 24 h after issue on the simulator's clock. Signatures are checked with ethers and the Kernel domain
// is the official SDK's constant, so the adapter's own (viem) reading of the scheme is never checked against itself.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ChainId, KernelDomainByChainId } from '@predictdotfun/sdk';
import { getBytes, hashMessage, TypedDataEncoder, verifyMessage } from 'ethers';
import { getAddress, type Hex, isAddress, isHex } from 'viem';
import type { SimClock } from '../shared/control.js';
import type { PfAccounts } from './accounts.js';

export const ECDSA_VALIDATOR = '0x845ADb2C711129d4f3966735eD98a9F09fC4cE57';
export const BNB_CHAIN_ID = 56;
export const BNB_TESTNET_CHAIN_ID = 97;
/** exp − iat of the venue's tokens (observed, undocumented). */
export const JWT_LIFETIME_SECONDS = 86_400;
const MESSAGE_LIFETIME_MS = 5 * 60_000;

export class AuthError extends Error {}

export interface PfAuthOptions {
  apiKey: string;
  /** Mainnet refuses every call without the key; the testnet serves without one (and ignores one sent). */
  requireApiKey: boolean;
  /** The chain of the Kernel domain Predict accounts sign in: 56, or 97 on testnet. */
  chainId: number;
  jwtLifetimeSeconds?: number;
}

export class PfAuth {
  private readonly secret = randomBytes(32);
  private readonly messages = new Map<string, number>();
  readonly apiKey: string;
  private readonly requireApiKey: boolean;
  private readonly chainId: number;
  private readonly jwtLifetimeSeconds: number;

  constructor(
    options: PfAuthOptions,
    private readonly accounts: PfAccounts,
    private readonly clock: SimClock,
  ) {
    this.apiKey = options.apiKey;
    this.requireApiKey = options.requireApiKey;
    this.chainId = options.chainId;
    this.jwtLifetimeSeconds = options.jwtLifetimeSeconds ?? JWT_LIFETIME_SECONDS;
  }

  apiKeyValid(header: string | string[] | undefined): boolean {
    if (!this.requireApiKey) return true;
    if (typeof header !== 'string') return false;
    const a = Buffer.from(header);
    const b = Buffer.from(this.apiKey);
    return a.length === b.length && timingSafeEqual(a, b);
  }

  /** A fresh message to sign; dynamic, so clients must not hard-code it (docs). */
  issueMessage(): string {
    const nonce = randomBytes(16).toString('hex');
    this.messages.set(nonce, this.clock.now());
    return `Sign in to predict.fun\n\nThis signature proves you own this wallet and costs no gas.\n\nNonce: ${nonce}`;
  }

  /** Checks the signed message and returns a JWT for the signer; throws AuthError with the venue's message. */
  async login(signer: string, message: string, signature: string): Promise<string> {
    const nonce = /Nonce: ([0-9a-f]{32})$/.exec(message)?.[1];
    const issuedAt = nonce ? this.messages.get(nonce) : undefined;
    if (!nonce || issuedAt === undefined || this.clock.now() - issuedAt > MESSAGE_LIFETIME_MS) {
      throw new AuthError('Invalid or expired auth message');
    }
    if (!isAddress(signer) || !isHex(signature)) throw new AuthError('Invalid signature');
    if (!this.signatureValid(getAddress(signer), message, signature)) {
      throw new AuthError('Invalid signature');
    }
    this.messages.delete(nonce);
    this.accounts.wallet(signer);
    return this.issueToken(getAddress(signer));
  }

  issueToken(address: string, issuedAtSeconds = Math.floor(this.clock.now() / 1000)): string {
    const header = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
    const payload = base64url(
      JSON.stringify({ address, iat: issuedAtSeconds, exp: issuedAtSeconds + this.jwtLifetimeSeconds }),
    );
    return `${header}.${payload}.${this.mac(`${header}.${payload}`)}`;
  }

  /** The wallet a Bearer token names, or null for a missing, forged or expired token. */
  verifyBearer(authorization: string | string[] | undefined): string | null {
    if (typeof authorization !== 'string') return null;
    const token = /^Bearer (\S+)$/.exec(authorization)?.[1];
    const parts = token?.split('.');
    if (parts?.length !== 3) return null;
    const [header, payload, mac] = parts as [string, string, string];
    const expected = Buffer.from(this.mac(`${header}.${payload}`));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
    try {
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
        address?: unknown;
        exp?: unknown;
      };
      if (typeof claims.address !== 'string' || typeof claims.exp !== 'number') return null;
      if (claims.exp * 1000 <= this.clock.now()) return null;
      return claims.address;
    } catch {
      return null;
    }
  }

  private signatureValid(signer: string, message: string, signature: Hex): boolean {
    try {
      // 65 bytes: a plain EOA personal_sign.
      if (signature.length === 132) return verifyMessage(message, signature) === signer;
      // 0x01 ‖ validator (20 bytes) ‖ 65-byte ECDSA signature: a Predict (Kernel) account.
      if (signature.length === 2 + 2 * (1 + 20 + 65) && signature.slice(2, 4) === '01') {
        const validator = getAddress(`0x${signature.slice(4, 44)}`);
        const owner = this.accounts.ownerOf(signer);
        if (validator !== ECDSA_VALIDATOR || !owner) return false;
        const digest = kernelWrappedHash(hashMessage(message), signer, this.chainId);
        // The owner personal_signs the 32 digest bytes, not their hex text.
        return verifyMessage(getBytes(digest), `0x${signature.slice(44)}`) === owner;
      }
    } catch {
      // malformed signature bytes: not valid
    }
    return false;
  }

  private mac(data: string): string {
    return createHmac('sha256', this.secret).update(data).digest('base64url');
  }
}

/** The SDK's Kernel domains ({name, version, chainId}), by chain. */
const KERNEL_DOMAINS = new Map<number, { name: string; version: string; chainId: number }>([
  [ChainId.BnbMainnet, KernelDomainByChainId[ChainId.BnbMainnet]],
  [ChainId.BnbTestnet, KernelDomainByChainId[ChainId.BnbTestnet]],
]);
const KERNEL_TYPES = { Kernel: [{ name: 'hash', type: 'bytes32' }] };

/**
 * EIP-712 hash of `Kernel(bytes32 hash)` in the account's Kernel domain (the SDK's constant plus the account as
 * verifying contract), computed by ethers' TypedDataEncoder from the typed data rather than by hand.
 */
export function kernelWrappedHash(messageHash: string, account: string, chainId = BNB_CHAIN_ID): string {
  const domain = KERNEL_DOMAINS.get(chainId);
  if (!domain) throw new Error(`no Kernel domain for chain ${chainId}`);
  return TypedDataEncoder.hash({ ...domain, verifyingContract: getAddress(account) }, KERNEL_TYPES, {
    hash: messageHash,
  });
}

function base64url(text: string): string {
  return Buffer.from(text).toString('base64url');
}
