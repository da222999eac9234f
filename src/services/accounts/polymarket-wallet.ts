// Polymarket's wallet rules for onboarding: which wallet holds the funds (the order's maker) and how orders are
// signed for it. wallet_type eoa → signature type 0 (maker = the EOA); proxy → 1, safe → 2 (maker = funder,
// signed by the EOA); deposit → 3 (POLY_1271, maker = the deposit wallet, which accounts opened since May 2026
// must use; venues.md "Signature types / funder").
import { type Hex, isAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { secp256k1Key, secp256k1KeyMessage, secp256k1KeyProblem } from '../../domain/secp256k1-key.js';
import { AppError } from '../../errors/app-error.js';
import type { WalletType } from './accounts-schema.js';

export const SIGNATURE_TYPE = new Map<WalletType, number>([
  ['eoa', 0],
  ['proxy', 1],
  ['safe', 2],
  ['deposit', 3],
]);

export const POLYGON_CHAIN_ID = 137;

/** The EOA of a hex private key; 400 naming the field (never echoing it) when it is not one. */
export function eoaOf(privateKey: string, field = 'private_key'): Hex {
  const key = secp256k1Key(privateKey);
  if (key === null) {
    const message = secp256k1KeyMessage(field, secp256k1KeyProblem(privateKey) ?? 'shape');
    throw new AppError('validation_error', message, { validationErrors: [`body.${message}`] });
  }
  return privateKeyToAccount(key).address;
}

export function checkAddress(value: string | undefined, field: string, problems: string[]): void {
  if (value !== undefined && !isAddress(value, { strict: false })) {
    problems.push(`body.${field} must be a 0x-prefixed 20-byte hex address`);
  }
}

export function sameAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}
