// The one check of a hex secp256k1 private key, wherever credentials are parsed (per-request, stored, onboarding):
// 64 hex digits, optionally 0x-prefixed, and a scalar in [1, n-1]. A key of the right shape outside that range used
// to reach the signing library, which threw an error quoting the key as a decimal: a 500 with the secret in the
// logs and in GET /ping's message. Callers turn `null` into a 400 naming their field, never the value.

/** The order n of secp256k1's group. */
const ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const SHAPE = /^(0x)?[0-9a-fA-F]{64}$/;

export type Secp256k1KeyProblem = 'shape' | 'range';

/** Why `raw` is not a usable private key, or null when it is. */
export function secp256k1KeyProblem(raw: string): Secp256k1KeyProblem | null {
  if (!SHAPE.test(raw)) return 'shape';
  const scalar = BigInt(raw.startsWith('0x') ? raw : `0x${raw}`);
  return scalar > 0n && scalar < ORDER ? null : 'range';
}

/** The key as lowercase 0x-hex when usable, else null. */
export function secp256k1Key(raw: string): `0x${string}` | null {
  if (secp256k1KeyProblem(raw) !== null) return null;
  return (raw.startsWith('0x') ? raw : `0x${raw}`).toLowerCase() as `0x${string}`;
}

/** The fixed message for a field holding such a key; it names the field, never the value. */
export function secp256k1KeyMessage(field: string, problem: Secp256k1KeyProblem): string {
  return problem === 'shape'
    ? `${field} must be 64 hex characters, optionally 0x-prefixed`
    : // Zero, or not below the curve order.
      `${field} is not a valid secp256k1 private key`;
}
