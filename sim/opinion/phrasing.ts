// How Opinion words a world proposition: titles ending in "?", kebab-case slugs (a categorical child's slug
// is its parent's slug plus the option, as recorded), labels (categories) with stable ids, and deterministic
// uint256 token ids and 32-byte hex condition ids (without 0x, as Opinion sends them).
import { createHash } from 'node:crypto';
import type { Proposition, Topic } from '../shared/world.js';

export interface OpinionLabel {
  labelId: number;
  labelName: string;
}

// Politics = 1 as in the recorded categorical market; the other ids are the simulator's own.
export const OPINION_LABELS: Readonly<Record<Topic, OpinionLabel>> = {
  politics: { labelId: 1, labelName: 'Politics' },
  crypto: { labelId: 2, labelName: 'Crypto' },
  economics: { labelId: 3, labelName: 'Economy' },
  sports: { labelId: 4, labelName: 'Sports' },
  weather: { labelId: 5, labelName: 'Weather' },
};

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function day(d: Date): string {
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
}

export function opinionTitle(p: Proposition): string {
  const when = day(p.closeTime);
  switch (p.topic) {
    case 'crypto':
      return `${p.subject} above $${(p.threshold ?? 0).toLocaleString('en-US')} on ${when}?`;
    case 'economics':
      return p.threshold === 0
        ? `Fed holds rates at the meeting before ${when}?`
        : `Fed cuts rates by ${p.threshold} bps at the meeting before ${when}?`;
    case 'politics':
      return `Who will win the ${p.subject} election by ${when}?`;
    case 'sports':
      return `Will the ${p.condition.replace(/ win$/, '')} beat the ${p.subject.split(' vs ')[1] ?? ''} on ${when}?`;
    default:
      return `Highest temperature in ${p.subject.replace('the high temperature in ', '')} above ${p.threshold}°F on ${when}?`;
  }
}

export function opinionRules(p: Proposition): string {
  const resolves =
    p.shape.kind === 'multi'
      ? 'This market resolves to the candidate who wins the election; each option resolves YES for the winner and NO otherwise.'
      : 'This market resolves YES if the statement below is true, and NO otherwise.';
  return `${resolves}\nStatement: ${p.statement}.\nResolution source: official results published after ${p.closeTime.toISOString().slice(0, 10)}.`;
}

export function slugify(text: string): string {
  return text
    .toLowerCase()
    .replace(/\+/g, ' plus ')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

// Token ids are a bijection of (marketId, side) onto uint256: XOR with a per-seed mask, then multiply by an
// odd constant modulo 2^256. They look like Opinion's 77-digit ids, and a lookup inverts the product instead
// of keeping a Map of every token (the catalogue serves 100k+ markets).
const MOD = 1n << 256n;
const MUL = 0x9e3779b97f4a7c15f39cc0605cedc8341082276bf3a27251f86c6a11d0c18e95n;
const INV = (() => {
  // Newton's iteration for the inverse of an odd number modulo 2^256: each step doubles the correct bits.
  let x = MUL;
  for (let i = 0; i < 8; i++) x = (x * (2n - MUL * x)) % MOD;
  return (x + MOD) % MOD;
})();
const masks = new Map<number, bigint>();
function seedMask(seed: number): bigint {
  let mask = masks.get(seed);
  if (mask === undefined) {
    mask = BigInt(`0x${sha256(`opinion-token-mask:${seed}`).slice(0, 12)}`);
    masks.set(seed, mask);
  }
  return mask;
}

/** A uint256 as a decimal string, like Opinion's yesTokenId / noTokenId. */
export function tokenIdFor(seed: number, marketId: number, side: 'yes' | 'no'): string {
  const plain = BigInt(marketId * 2 + (side === 'yes' ? 0 : 1)) ^ seedMask(seed);
  return ((plain * MUL) % MOD).toString(10);
}

/** The (marketId, side) a token id names, or null for a number no market's token is. */
export function tokenOwner(seed: number, tokenId: string): { marketId: number; side: 'yes' | 'no' } | null {
  if (!/^\d{1,78}$/.test(tokenId)) return null;
  const plain = ((BigInt(tokenId) * INV) % MOD) ^ seedMask(seed);
  if (plain >= 1n << 40n) return null;
  const n = Number(plain);
  return { marketId: Math.floor(n / 2), side: n % 2 === 0 ? 'yes' : 'no' };
}

/** 64 hex characters without 0x, as Opinion sends conditionId and questionId. */
export function hex32(kind: string, seed: number, id: number | string): string {
  return sha256(`opinion-${kind}:${seed}:${id}`);
}

export function walletHex(kind: string, seed: number, n: number): string {
  return `0x${sha256(`opinion-wallet-${kind}:${seed}:${n}`).slice(0, 40)}`;
}
