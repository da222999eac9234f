// Predict.fun wallet credentials and the sign-in signature. A session carries either the wallet's private key (we
// sign GET /v1/auth/message and exchange it for a JWT) or a JWT obtained elsewhere; with `predict_account` the key
// is the Privy owner key of a Predict smart account (Kernel v0.3.1), which signs the Kernel-wrapped message hash
// and sends 0x01 ‖ ECDSA validator ‖ signature, as the official SDK's signPredictAccountMessage does.
import {
  type Address,
  concat,
  encodeAbiParameters,
  getAddress,
  type Hex,
  hashMessage,
  isAddress,
  keccak256,
  toHex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { secp256k1Key, secp256k1KeyMessage, secp256k1KeyProblem } from '../../domain/secp256k1-key.js';
import { AppError } from '../../errors/app-error.js';
import type { VenueSession } from '../port.js';

/** The ECDSA validator module Predict accounts use (the SDK's Constants, BNB mainnet and testnet alike). */
export const ECDSA_VALIDATOR: Address = '0x845ADb2C711129d4f3966735eD98a9F09fC4cE57';

export interface PredictfunCredentials {
  privateKey: Hex | null;
  predictAccount: Address | null;
  jwt: string | null;
}

/** Reads and checks the session's credential fields; messages name fields, never values. */
export function credentialsFrom(session: VenueSession): PredictfunCredentials {
  const { private_key: pk, predict_account: account, jwt } = session.credentials;
  const problems: string[] = [];
  let privateKey: Hex | null = null;
  if (pk !== undefined) {
    privateKey = secp256k1Key(pk) as Hex | null;
    if (privateKey === null) {
      problems.push(secp256k1KeyMessage('credentials.private_key', secp256k1KeyProblem(pk) ?? 'shape'));
    }
  }
  let predictAccount: Address | null = null;
  if (account !== undefined) {
    if (isAddress(account, { strict: false })) predictAccount = getAddress(account);
    else problems.push('credentials.predict_account must be an address');
    if (pk === undefined) problems.push('credentials.predict_account needs the owner private_key');
  }
  if (jwt !== undefined && !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(jwt)) {
    problems.push('credentials.jwt must be a JWT');
  }
  if (pk === undefined && jwt === undefined)
    problems.push('credentials.private_key or credentials.jwt is required');
  if (problems.length > 0) {
    throw new AppError('validation_error', problems[0] as string, { validationErrors: problems });
  }
  return { privateKey, predictAccount, jwt: jwt ?? null };
}

/** The address that signs in: the Predict account when there is one, else the key's EOA. */
export function signerAddress(creds: PredictfunCredentials): Address | null {
  if (creds.predictAccount) return creds.predictAccount;
  return creds.privateKey ? privateKeyToAccount(creds.privateKey).address : null;
}

/**
 * Who a sign-in acts for, as a cache key: the key's own EOA (so only its holder can reach the entry) and the Predict
 * account it signs for. Addresses only, never the key. Null for a session that brought its own JWT.
 */
export function signInIdentity(creds: PredictfunCredentials): string | null {
  if (!creds.privateKey) return null;
  const owner = privateKeyToAccount(creds.privateKey).address;
  return creds.predictAccount ? `${owner} for ${creds.predictAccount}` : owner;
}

/**
 * When a JWT expires (its `exp` claim, epoch ms), read without verifying: the venue checks the signature, we only
 * plan the next sign-in. Null when the token carries no readable `exp`.
 */
export function jwtExpiresAt(token: string): number | null {
  const payload = token.split('.')[1];
  if (payload === undefined) return null;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof claims.exp === 'number' && Number.isFinite(claims.exp) ? claims.exp * 1000 : null;
  } catch {
    return null;
  }
}

/** Signs the venue's sign-in message for POST /v1/auth. */
export async function signAuthMessage(
  creds: PredictfunCredentials,
  message: string,
  chainId: number,
): Promise<Hex> {
  if (!creds.privateKey) throw new Error('signing needs a private key');
  const owner = privateKeyToAccount(creds.privateKey);
  if (!creds.predictAccount) return owner.signMessage({ message });
  const digest = kernelWrappedHash(hashMessage(message), creds.predictAccount, chainId);
  const inner = await owner.signMessage({ message: { raw: digest } });
  return concat(['0x01', ECDSA_VALIDATOR, inner]);
}

/** EIP-712 hash of `Kernel(bytes32 hash)` in the account's Kernel v0.3.1 domain. */
export function kernelWrappedHash(messageHash: Hex, account: Address, chainId: number): Hex {
  const domainTypeHash = keccak256(
    toHex('EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)'),
  );
  const domainSeparator = keccak256(
    encodeAbiParameters(
      [
        { type: 'bytes32' },
        { type: 'bytes32' },
        { type: 'bytes32' },
        { type: 'uint256' },
        { type: 'address' },
      ],
      [domainTypeHash, keccak256(toHex('Kernel')), keccak256(toHex('0.3.1')), BigInt(chainId), account],
    ),
  );
  const structHash = keccak256(
    encodeAbiParameters(
      [{ type: 'bytes32' }, { type: 'bytes32' }],
      [keccak256(toHex('Kernel(bytes32 hash)')), messageHash],
    ),
  );
  return keccak256(concat(['0x1901', domainSeparator, structHash]));
}
