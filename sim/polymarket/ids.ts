// Deterministic, realistic-looking identifiers (bytes32 condition ids, uint256 token ids, addresses) for the
// simulated catalogue. Each id hides its market index under a mask taken from its own random bits, so a lookup by
// condition id or token id is a decode plus one recomputation instead of a 150k-entry map built at start-up.
import { createHash } from 'node:crypto';

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A 32-bit deterministic hash for small variations (tick, fee, spreads); FNV-1a over the text. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** bytes32 condition id whose last 4 bytes are the market index XOR its first 4 bytes. */
export function conditionIdFor(seed: number, index: number): string {
  const hex = sha256Hex(`polymarket|${seed}|condition|${index}`);
  const mask = Number.parseInt(hex.slice(0, 8), 16);
  const tail = ((index ^ mask) >>> 0).toString(16).padStart(8, '0');
  return `0x${hex.slice(0, 56)}${tail}`;
}

export function decodeConditionIndex(seed: number, conditionId: string): number | null {
  if (!/^0x[0-9a-fA-F]{64}$/.test(conditionId)) return null;
  const hex = conditionId.slice(2).toLowerCase();
  const index = (Number.parseInt(hex.slice(56), 16) ^ Number.parseInt(hex.slice(0, 8), 16)) >>> 0;
  return conditionIdFor(seed, index) === `0x${hex}` ? index : null;
}

const LOW32 = 0xffffffffn;

/** uint256 token id (decimal string) for outcome 0 (Yes) or 1 (No) of a market. */
export function tokenIdFor(seed: number, index: number, outcome: 0 | 1): string {
  const high = BigInt(`0x${sha256Hex(`polymarket|${seed}|token|${index}|${outcome}`).slice(0, 56)}`);
  const mask = (high >> 192n) & LOW32;
  const low = (BigInt(index * 2 + outcome) ^ mask) & LOW32;
  return ((high << 32n) | low).toString(10);
}

export function decodeTokenId(seed: number, tokenId: string): { index: number; outcome: 0 | 1 } | null {
  if (!/^\d{1,78}$/.test(tokenId)) return null;
  const value = BigInt(tokenId);
  const high = value >> 32n;
  const code = Number((value & LOW32) ^ ((high >> 192n) & LOW32));
  const index = Math.floor(code / 2);
  const outcome = (code % 2) as 0 | 1;
  return tokenIdFor(seed, index, outcome) === tokenId ? { index, outcome } : null;
}

/** Any other bytes32 (question ids, neg-risk market ids, transaction hashes). */
export function bytes32For(label: string): string {
  return `0x${sha256Hex(label)}`;
}

/** A 20-byte address, lower case. */
export function addressFor(label: string): string {
  return `0x${sha256Hex(label).slice(0, 40)}`;
}
