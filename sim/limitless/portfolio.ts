// Portfolio documents: positions (GET /portfolio/positions and the public /portfolio/{account}/positions share
// one shape: rewards, points, amm[], clob[], group[]), the PnL chart (`currentValue` = realised PnL in USD) and
// traded volume. CLOB amounts are 6-decimal integer strings; group children appear in `clob` with `market.group`,
// as in the positions mock of Limitless's own web app.
import { createRng } from '../shared/prng.js';
import type { Holding, LimitlessAccount } from './auth.js';
import { tick } from './book.js';
import { hashHex, type SimCatalog, type SimMarket, tokenIdOf } from './catalog.js';
import { USDC } from './payloads.js';
import { bookAt, marketState } from './tape.js';

export interface PortfolioContext {
  step: number;
  worldNowMs: number;
  nowMs: number;
}

const EMPTY_REWARDS = {
  todaysRewards: '0',
  totalUnpaidRewards: '0',
  totalUserRewardsLastEpoch: '0',
  rewardsByEpoch: [],
  rewardsChartData: [],
};

/** A market's live orders as a position entry's `orders` carries them (DOCS positions: `orders` per entry). */
export interface LiveOrders {
  liveOrders: Array<Record<string, unknown>>;
  /** USDC × 1e6 set aside. */
  totalCollateralLocked: number;
}

export function positionsDocument(
  account: LimitlessAccount | undefined,
  catalog: SimCatalog,
  ctx: PortfolioContext,
  live: ReadonlyMap<string, LiveOrders> = new Map(),
): Record<string, unknown> {
  const clob: Array<Record<string, unknown>> = [];
  const slugs = new Set([...(account?.holdings.keys() ?? []), ...live.keys()]);
  for (const slug of slugs) {
    const m = catalog.bySlug.get(slug);
    if (m?.kind !== 'market' || !account) continue;
    const h = account.holdings.get(slug) ?? { yes: 0, no: 0, costYes: 0, costNo: 0 };
    clob.push(clobPosition(m, h, account, ctx, live.get(slug)));
  }
  return {
    rewards: EMPTY_REWARDS,
    points: account ? (account.tradedUsd / 10).toFixed(8) : '0',
    accumulativePoints: account ? (account.tradedUsd / 10).toFixed(8) : '0',
    amm: [],
    clob,
    group: [],
  };
}

function clobPosition(
  m: SimMarket,
  h: Holding,
  account: LimitlessAccount,
  ctx: PortfolioContext,
  live?: LiveOrders,
): Record<string, unknown> {
  const state = marketState(m, ctx.worldNowMs);
  const mid = bookAt(m, ctx.step, ctx.worldNowMs).mid ?? m.fairYes;
  const yesPrice = tick(mid);
  const side = (tokens: number, cost: number, price: number) => {
    const value = Math.round(tokens * price);
    return {
      cost: String(cost),
      fillPrice: tokens > 0 ? String(Math.round((cost / tokens) * 1e6)) : '0',
      marketValue: String(value),
      realisedPnl: '0',
      unrealizedPnl: String(value - cost),
    };
  };
  return {
    market: {
      slug: m.slug,
      status: state === 'resolved' ? 'RESOLVED' : 'FUNDED',
      title: m.title,
      conditionId: `0x${hashHex(`limitless:condition:${m.slug}`)}`,
      id: m.id,
      address: null,
      closed: state !== 'active',
      expirationDate: m.prop.closeTime.toISOString(),
      deadline: m.prop.closeTime.toISOString(),
      negRiskRequestId: m.group ? `0x${hashHex(`limitless:negrisk-request:${m.slug}`)}` : null,
      winningOutcomeIndex: null,
      yesPositionId: tokenIdOf(m, 'yes'),
      noPositionId: tokenIdOf(m, 'no'),
      collateralToken: { id: 7, decimals: 6, symbol: 'USDC', address: USDC },
      group: m.group ? { title: m.group.title, slug: m.group.slug } : {},
    },
    makerAddress: account.address,
    latestTrade: {
      outcomeTokenPrice: h.yes >= h.no ? yesPrice : tick(1 - yesPrice),
      latestNoPrice: tick(1 - yesPrice),
      latestYesPrice: yesPrice,
    },
    orders: {
      liveOrders: live?.liveOrders ?? [],
      totalCollateralLocked: String(live?.totalCollateralLocked ?? 0),
    },
    positions: { yes: side(h.yes, h.costYes, yesPrice), no: side(h.no, h.costNo, tick(1 - yesPrice)) },
    tokensBalance: { yes: String(h.yes), no: String(h.no) },
    rewards: { isEarning: false, epochs: [] },
  };
}

function unrealisedUsd(account: LimitlessAccount, catalog: SimCatalog, ctx: PortfolioContext): number {
  let total = 0;
  for (const [slug, h] of account.holdings) {
    const m = catalog.bySlug.get(slug);
    if (m?.kind !== 'market') continue;
    const yes = bookAt(m, ctx.step, ctx.worldNowMs).mid ?? m.fairYes;
    total += (h.yes * yes + h.no * (1 - yes) - h.costYes - h.costNo) / 1e6;
  }
  return round2(total);
}

// A Map: `timeframe` is a query parameter, and `constructor` or `__proto__` must be unknown, not Object's.
const TIMEFRAMES: ReadonlyMap<string, number | null> = new Map([
  ['1d', 1],
  ['7d', 7],
  ['30d', 30],
  ['all', null],
]);

/** GET /portfolio/pnl-chart and /portfolio/{account}/pnl-chart: realised series plus the current hybrid snapshot. */
export function pnlChartDocument(
  account: LimitlessAccount | undefined,
  catalog: SimCatalog,
  ctx: PortfolioContext,
  timeframe: string,
): Record<string, unknown> | null {
  if (!TIMEFRAMES.has(timeframe)) return null;
  const days = TIMEFRAMES.get(timeframe) ?? 90;
  const realised = account ? round2(account.realisedUsd) : 0;
  const unrealized = account ? unrealisedUsd(account, catalog, ctx) : 0;
  const dayMs = 86_400_000;
  const today = Math.floor(ctx.nowMs / dayMs) * dayMs;
  // The realised series: flat here, since a paper account realises nothing while the simulator runs.
  const data = Array.from({ length: days + 1 }, (_, i) => ({
    timestamp: today - (days - i) * dayMs,
    value: realised,
  }));
  return {
    timeframe,
    data,
    currentValue: realised,
    previousValue: realised,
    percentChange: 0,
    current: { realised, unrealized, total: round2(realised + unrealized) },
  };
}

/** GET /portfolio/{account}/traded-volume. The response shape is not documented; see docs/venues/limitless.md. */
export function tradedVolumeDocument(account: LimitlessAccount | undefined): Record<string, unknown> {
  return { totalVolume: account ? round2(account.tradedUsd) : 0 };
}

/**
 * Gives a new paper account `count` positions on active markets, bought at the market's fair price, plus a
 * realised PnL and traded volume, so the wallet-activity and positions endpoints have something to show.
 */
export function seedHoldings(
  account: LimitlessAccount,
  catalog: SimCatalog,
  count: number,
  worldNowMs: number,
): void {
  const markets = catalog.rows
    .flatMap((r) => (r.kind === 'group' ? r.children : [r]))
    .filter((m) => marketState(m, worldNowMs) === 'active');
  if (markets.length === 0) return;
  const rng = createRng(account.profileId);
  for (let i = 0; i < count && account.holdings.size < markets.length; i++) {
    const m = markets[Math.floor(rng() * markets.length)] as SimMarket;
    if (account.holdings.has(m.slug)) continue;
    const tokens = (10 + Math.floor(rng() * 190)) * 1_000_000;
    const yes = rng() < 0.6;
    const price = yes ? m.fairYes : 1 - m.fairYes;
    const cost = Math.round(tokens * price);
    account.holdings.set(m.slug, {
      yes: yes ? tokens : 0,
      no: yes ? 0 : tokens,
      costYes: yes ? cost : 0,
      costNo: yes ? 0 : cost,
    });
    account.tradedUsd += cost / 1e6;
  }
  account.realisedUsd = round2((rng() - 0.4) * 40);
  account.tradedUsd = round2(account.tradedUsd + Math.abs(account.realisedUsd) * 3);
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

/**
 * GET /profiles/me (signed: the caller's own, private profile) and GET /profiles/{account} (public): the fields of
 * the SDK's `UserProfile` (@limitless-exchange/sdk 1.1.0 `dist/index.d.ts`; `id` is the ownerId orders carry,
 * `rank.feeRateBps` the fee the SDK signs). Every simulated account is Bronze at 300 bps, the SDK's default.
 */
export function profileDocument(account: LimitlessAccount): Record<string, unknown> {
  return {
    id: account.profileId,
    account: account.address,
    rank: { id: 1, name: 'Bronze', feeRateBps: 300 },
    createdAt: new Date(Date.UTC(2025, 0, 1) + (account.profileId % 1000) * 86_400_000).toISOString(),
    username: account.address,
    displayName: account.address.slice(0, 8),
    pfpUrl: null,
    bio: null,
    socialUrl: null,
    tradeWalletOption: 'eoa',
    embeddedAccount: null,
    points: 0,
    accumulativePoints: 0,
    enrolledInPointsProgram: false,
    referralData: [],
    referredUsersCount: 0,
  };
}
