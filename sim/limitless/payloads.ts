// Limitless JSON documents for markets, groups and books, built per request from the catalogue records. Field
// names, order and JSON types follow the recorded market detail (ccxt) corrected by first-party evidence: the SDK's
// types and Limitless's own web app send `id`, `expirationTimestamp`, `decimals`, `priorityIndex` and book
// prices/sizes as numbers (ccxt's recorder stringifies every numeric scalar).
import { type SimBook, tick } from './book.js';
import { categoryOf, expirationDate, hashHex, type SimGroup, type SimMarket, tokenIdOf } from './catalog.js';
import { bookAt, type MarketState, marketState } from './tape.js';

export const USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
/** CLOB exchange of single markets (ccxt's live default); negRisk markets name their own exchange + adapter. */
const CLOB_EXCHANGE = '0x05c748E2f4DcDe0ec9Fa8DDc40DE6b867f923fa5';
// Simulated negRisk contracts: addresses derived from a name, not Limitless's real deployment.
const NEGRISK_EXCHANGE = `0x${hashHex('limitless:negrisk-exchange').slice(0, 40)}`;
const NEGRISK_ADAPTER = `0x${hashHex('limitless:negrisk-adapter').slice(0, 40)}`;

/** The exchange contract a market's orders are signed for (its `venue.exchange`). */
export function exchangeOf(m: SimMarket): string {
  return m.group ? NEGRISK_EXCHANGE : CLOB_EXCHANGE;
}

const CREATOR = {
  name: 'Limitless',
  imageURI: 'https://limitless.exchange/assets/images/logo.svg',
  link: 'https://x.com/trylimitless',
};

export interface PayloadContext {
  step: number;
  /** The world's clock (status, expiry). */
  worldNowMs: number;
}

const STATUS: Record<MarketState, string> = { active: 'FUNDED', closed: 'FUNDED', resolved: 'RESOLVED' };

function volumeOf(m: { prop: SimMarket['prop']; id: number }): number {
  // Each venue applies its own factor to the shared volume scale; whole micro-USDC.
  return Math.round(m.prop.baseVolumeUsd * 0.6 * 1e6) + (m.id % 997) * 1_000;
}

function statement(m: SimMarket): string {
  if (m.option === null) return `${m.prop.statement}`;
  return `${m.option} wins the election for ${m.prop.subject}`;
}

function winningIndex(m: SimMarket, state: MarketState): number | null {
  if (state !== 'resolved' || m.prop.winner === null) return null;
  const yes = m.option === null ? m.prop.winner === 'Yes' : m.prop.winner === m.option;
  return yes ? 0 : 1;
}

/** One CLOB market (stand-alone, or a child of a group), as GET /markets/{slug} and list rows carry it. */
export function marketPayload(
  m: SimMarket,
  ctx: PayloadContext,
  options: { withGroup: boolean } = { withGroup: true },
): Record<string, unknown> {
  const state = marketState(m, ctx.worldNowMs);
  const book = bookAt(m, ctx.step, ctx.worldNowMs);
  const bestBid = book.bids[0]?.price ?? null;
  const bestAsk = book.asks[0]?.price ?? null;
  const winner = winningIndex(m, state);
  const yes = winner === null ? (book.mid ?? m.fairYes) : winner === 0 ? 1 : 0;
  const volume = volumeOf(m);
  const close = m.prop.closeTime;
  const payload: Record<string, unknown> = {
    id: m.id,
    automationType: m.prop.topic === 'sports' ? 'sports' : 'manual',
    conditionId: `0x${hashHex(`limitless:condition:${m.slug}`)}`,
    negRiskRequestId: m.group ? `0x${hashHex(`limitless:negrisk-request:${m.slug}`)}` : null,
    description: `This market will resolve to "YES" if ${statement(m)}. Otherwise, this market will resolve to "NO".`,
    groupId: m.group ? m.group.id : null,
    collateralToken: { address: USDC, decimals: 6, symbol: 'USDC' },
    title: m.title,
    proxyTitle: null,
    expirationDate: expirationDate(close),
    expirationTimestamp: close.getTime(),
    createdAt: new Date(m.createdMs).toISOString(),
    startAt: null,
    updatedAt: new Date(m.createdMs + 60_000).toISOString(),
    categories: [categoryOf(m.prop)],
    status: STATUS[state],
    expired: state !== 'active',
    hidden: false,
    creator: CREATOR,
    tags: [m.prop.subject],
    volume: String(volume),
    volumeFormatted: (volume / 1e6).toFixed(6),
    tokens: { yes: tokenIdOf(m, 'yes'), no: tokenIdOf(m, 'no') },
    prices: [tick(yes), tick(1 - yes)],
    tradePrices: tradePrices(bestBid, bestAsk),
    isOther: false,
    isRewardable: state === 'active',
    slug: m.slug,
    tradeType: 'clob',
    venue: m.group
      ? { exchange: NEGRISK_EXCHANGE, adapter: NEGRISK_ADAPTER }
      : { exchange: CLOB_EXCHANGE, adapter: null },
    marketType: 'single',
    priorityIndex: 0,
    winningOutcomeIndex: winner,
    metadata: { fee: true },
    settings: {
      minSize: '100000000',
      maxSpread: 0.035,
      dailyReward: '1',
      rewardsEpoch: '0.0006944444444444445',
      c: '3',
    },
    imageUrl: null,
    logo: null,
  };
  if (m.group) {
    payload.orderInGroup = m.group.children.indexOf(m);
    // A child fetched on its own names its group, so a client can find the event it belongs to.
    if (options.withGroup) payload.group = { id: m.group.id, slug: m.group.slug, title: m.group.title };
  }
  return payload;
}

/**
 * buy.market / sell.limit are the prices a taker / maker deals at now, per token: the YES book read directly and
 * the NO token at the complement (Limitless quotes one book per market).
 */
function tradePrices(bid: number | null, ask: number | null): Record<string, unknown> | null {
  if (bid === null || ask === null) return null;
  const pair = (yes: number, noFromYes: number) => [tick(yes), tick(1 - noFromYes)];
  return {
    buy: { market: pair(ask, bid), limit: pair(bid, ask) },
    sell: { market: pair(bid, ask), limit: pair(ask, bid) },
  };
}

/** A negRisk group with its child markets nested in `markets`, as list rows and GET /markets/{groupSlug} carry it. */
export function groupPayload(g: SimGroup, ctx: PayloadContext): Record<string, unknown> {
  const state = marketState(g, ctx.worldNowMs);
  const volume = g.children.reduce((sum, c) => sum + volumeOf(c), 0);
  const close = g.prop.closeTime;
  return {
    id: g.id,
    slug: g.slug,
    title: g.title,
    proxyTitle: null,
    description: `The market resolves to the candidate who wins the election for ${g.prop.subject}.`,
    collateralToken: { address: USDC, decimals: 6, symbol: 'USDC' },
    expirationDate: expirationDate(close),
    expirationTimestamp: close.getTime(),
    expired: state !== 'active',
    createdAt: new Date(g.createdMs).toISOString(),
    updatedAt: new Date(g.createdMs + 60_000).toISOString(),
    categories: [categoryOf(g.prop)],
    status: STATUS[state],
    creator: CREATOR,
    tags: [g.prop.subject],
    tradeType: 'group',
    marketType: 'group',
    priorityIndex: 0,
    metadata: { fee: true },
    volume: String(volume),
    volumeFormatted: (volume / 1e6).toFixed(6),
    negRiskMarketId: `0x${hashHex(`limitless:negrisk:${g.slug}`)}`,
    outcomeTokens: g.children.map((c) => c.title),
    ogImageURI: `https://limitless.exchange/api/og?slug=${g.slug}`,
    dailyReward: '0',
    venue: { exchange: NEGRISK_EXCHANGE, adapter: NEGRISK_ADAPTER },
    imageUrl: null,
    logo: null,
    markets: g.children.map((c) => marketPayload(c, ctx, { withGroup: false })),
  };
}

/** GET /markets/{slug}/orderbook: the YES book; REST sends maxSpread and minSize as strings (web app's type). */
export function orderbookPayload(
  m: SimMarket,
  ctx: PayloadContext,
  book: SimBook = bookAt(m, ctx.step, ctx.worldNowMs),
): Record<string, unknown> {
  const mid = book.mid;
  return {
    bids: book.bids,
    asks: book.asks,
    tokenId: tokenIdOf(m, 'yes'),
    adjustedMidpoint: mid,
    midpoint: mid,
    maxSpread: '0.035',
    minSize: '100000000',
    lastTradePrice: mid === null ? null : lastTradePrice(m, ctx),
  };
}

function lastTradePrice(m: SimMarket, ctx: PayloadContext): number | null {
  const book = bookAt(m, Math.max(0, ctx.step - 1), ctx.worldNowMs);
  return book.asks[0]?.price ?? null;
}

/** The orderbookUpdate frame of the /markets Socket.IO namespace (the SDK types maxSpread/minSize as numbers). */
export function orderbookUpdatePayload(
  m: SimMarket,
  ctx: PayloadContext,
  nowMs: number,
  book: SimBook = bookAt(m, ctx.step, ctx.worldNowMs),
): Record<string, unknown> {
  return {
    marketSlug: m.slug,
    orderbook: {
      bids: book.bids,
      asks: book.asks,
      tokenId: tokenIdOf(m, 'yes'),
      adjustedMidpoint: book.mid,
      maxSpread: 0.035,
      minSize: 100_000_000,
    },
    timestamp: new Date(nowMs).toISOString(),
  };
}
