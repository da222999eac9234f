// Phrases one world proposition as a Limitless Market object (GET /markets/{slug}, items of /markets/active).
// Field names follow the recorded ccxt payload; amounts are strings of 6-decimal USDC as recorded.
import { createHash } from 'node:crypto';
import type { Proposition } from '../shared/world.js';

const USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const EXCHANGE = '0x05c748E2f4DcDe0ec9Fa8DDc40DE6b867f923fa5';

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function limitlessTokenId(p: Proposition, side: 'yes' | 'no'): string {
  return BigInt(`0x${hash(`limitless:${p.id}:${side}`)}`).toString(10);
}

/** Limitless slugs are lower-case dash-joined titles with a numeric suffix. */
export function limitlessSlug(p: Proposition): string {
  const base = limitlessTitle(p)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60);
  return `${base}-${p.id.replace(/\D/g, '')}`;
}

export function limitlessTitle(p: Proposition): string {
  return p.condition ? `${p.subject} ${p.condition}?` : `${p.subject}?`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

export function limitlessMarket(p: Proposition, numericId: number, fairYes: number): Record<string, unknown> {
  const yes = Math.round(fairYes * 1000) / 1000;
  const close = p.closeTime;
  return {
    id: String(numericId),
    automationType: p.topic,
    conditionId: `0x${hash(`limitless:condition:${p.id}`)}`,
    negRiskRequestId: null,
    description: `This market will resolve to "YES" if ${p.statement}. Otherwise it resolves to "NO".`,
    groupId: null,
    collateralToken: { address: USDC, decimals: '6', symbol: 'USDC' },
    title: limitlessTitle(p),
    proxyTitle: null,
    expirationDate: `${MONTHS[close.getUTCMonth()]} ${close.getUTCDate()}, ${close.getUTCFullYear()}`,
    expirationTimestamp: String(close.getTime()),
    createdAt: p.openTime.toISOString(),
    startAt: null,
    updatedAt: p.openTime.toISOString(),
    categories: [p.topic[0]?.toUpperCase() + p.topic.slice(1)],
    status: p.status === 'resolved' ? 'RESOLVED' : 'FUNDED',
    expired: p.status !== 'active',
    hidden: false,
    creator: { name: 'Limitless', imageURI: null, link: null },
    tags: [p.subject],
    volume: String(Math.round(p.baseVolumeUsd * 1e6)),
    volumeFormatted: p.baseVolumeUsd.toFixed(6),
    tokens: { yes: limitlessTokenId(p, 'yes'), no: limitlessTokenId(p, 'no') },
    prices: [yes, Math.round((1 - yes) * 1000) / 1000],
    tradePrices: null,
    isOther: false,
    isRewardable: false,
    slug: limitlessSlug(p),
    tradeType: 'clob',
    venue: { exchange: EXCHANGE, adapter: null },
    marketType: 'single',
    priorityIndex: '0',
    winningOutcomeIndex: p.winner === null ? null : p.winner === 'Yes' ? 0 : 1,
    metadata: { fee: true },
    settings: { minSize: '100000000', maxSpread: '0.035' },
    imageUrl: null,
    logo: null,
  };
}
