// Builds Predict.fun's JSON documents (category, market, orderbook, stats, position) from the simulator's
// compact records, with the field names, types and key order of the recorded GET /v1/categories payload.
import { complement } from './book.js';
import {
  categoryStatus,
  hex32,
  longDate,
  marketStatuses,
  marketTokens,
  type PfCategory,
  type PfMarketRef,
  phrase,
  tagOf,
} from './catalog.js';
import { MARKET_FEE_RATE_BPS, type PfState } from './state.js';

type Json = Record<string, unknown>;

const RESOLVER = '0x77620FAb2969dF2D5696F1f081940E416Cf17cA5';
const IMAGE = 'https://static.predict.fun/markets';

function description(ref: PfMarketRef): string {
  const p = ref.category.prop;
  const subject = ref.option ? `${ref.option.name} wins: ${p.statement}` : p.statement;
  return (
    `This market will resolve to "Yes" if the following is true: ${subject}. Otherwise, it will resolve to "No".` +
    `\r\n\r\nThe market closes on ${longDate(p.closeTime)} and resolves from official sources.`
  );
}

function quote(price: number | undefined, size: number | undefined): Json | null {
  return price === undefined || size === undefined ? null : { price, size };
}

export function outcomeStatus(ref: PfMarketRef, indexSet: 1 | 2): 'WON' | 'LOST' | null {
  const p = ref.category.prop;
  if (p.status !== 'resolved' || p.winner === null) return null;
  const yesWon = ref.option ? p.winner === ref.option.name : p.winner === 'Yes';
  return (indexSet === 1) === yesWon ? 'WON' : 'LOST';
}

export function marketJson(state: PfState, ref: PfMarketRef): Json {
  const c = ref.category;
  const p = c.prop;
  const words = phrase(ref);
  const tokens = marketTokens(state.world, ref.id);
  const book = state.liveBook(ref);
  const bid = book.bids[0];
  const ask = book.asks[0];
  const { status, tradingStatus } = marketStatuses(c);
  const created = p.openTime.toISOString();
  return {
    boostEndsAt: null,
    boostStartsAt: null,
    categorySlug: c.slug,
    conditionId: hex32('pf-condition', state.world.seed, ref.id),
    createdAt: created,
    decimalPrecision: c.decimalPrecision,
    description: description(ref),
    feeRateBps: Number(MARKET_FEE_RATE_BPS),
    id: ref.id,
    imageUrl: `${IMAGE}/${c.slug}`,
    isBoosted: false,
    isNegRisk: c.negRisk,
    isVisible: true,
    isYieldBearing: c.yieldBearing,
    kalshiMarketTicker: null,
    marketType: null,
    marketVariant: 'DEFAULT',
    oracleQuestionId: hex32('pf-question', state.world.seed, ref.id),
    outcomes: [
      {
        bestAsk: quote(ask?.[0], ask?.[1]),
        bestBid: quote(bid?.[0], bid?.[1]),
        indexSet: 1,
        name: 'Yes',
        onChainId: tokens.yes,
        status: outcomeStatus(ref, 1),
        team: null,
        variantData: null,
      },
      {
        // The NO outcome is quoted on its own side: its bid is 1 - the YES ask, its ask 1 - the YES bid.
        bestAsk: quote(bid ? complement(bid[0]) : undefined, bid?.[1]),
        bestBid: quote(ask ? complement(ask[0]) : undefined, ask?.[1]),
        indexSet: 2,
        name: 'No',
        onChainId: tokens.no,
        status: outcomeStatus(ref, 2),
        team: null,
        variantData: null,
      },
    ],
    polymarketConditionIds: [],
    question: words.question,
    questionIndex: ref.option ? ref.option.index : null,
    resolution: null,
    resolverAddress: RESOLVER,
    rewards: { current: null, schedule: [] },
    shareThreshold: 100,
    spreadThreshold: c.decimalPrecision === 3 ? 0.03 : 0.06,
    status,
    team: null,
    title: words.title,
    tradingStatus,
    variantData: null,
  };
}

export function categoryJson(state: PfState, c: PfCategory): Json {
  const p = c.prop;
  const refs = state.catalog.marketsOf(c);
  const first = refs[0] as PfMarketRef;
  const words = phrase(first);
  return {
    createdAt: p.openTime.toISOString(),
    description: c.negRisk
      ? `${words.categoryTitle}. This event resolves to the one option that wins; every other option resolves to "No".`
      : description(first),
    endsAt: p.closeTime.toISOString(),
    id: c.id,
    imageUrl: `${IMAGE}/${c.slug}`,
    isNegRisk: c.negRisk,
    isVisible: true,
    isYieldBearing: c.yieldBearing,
    marketVariant: 'DEFAULT',
    markets: refs.map((ref) => marketJson(state, ref)),
    negRiskOnChainId: c.negRisk ? hex32('pf-negrisk', state.world.seed, c.id) : null,
    parentSlug: null,
    publishedAt: new Date(p.openTime.getTime() + 20_780).toISOString(),
    resolutionProvider: null,
    shortTitle: words.categoryTitle.length > 40 ? null : words.categoryTitle,
    slug: c.slug,
    startsAt: p.openTime.toISOString(),
    stats: null,
    status: categoryStatus(c),
    tags: [tagOf(p)],
    teams: null,
    title: words.categoryTitle,
    variantData: null,
    variantDetails: null,
  };
}

export function orderbookJson(state: PfState, ref: PfMarketRef): Json {
  const book = state.liveBook(ref);
  const last = state.step > 0 ? state.match(ref, state.step) : null;
  return {
    marketId: ref.id,
    updateTimestampMs: state.bookUpdatedAt(),
    lastOrderSettled: last
      ? {
          id: String(BigInt(`0x${last.settlementId.replace(/-/g, '').slice(0, 12)}`)),
          kind: 'LIMIT',
          marketId: ref.id,
          outcome: 'Yes',
          price: (Number(BigInt(last.priceExecuted) / 10n ** 12n) / 1e6).toString(),
          side: last.taker.quoteType === 'Bid' ? 'Ask' : 'Bid',
        }
      : null,
    asks: book.asks,
    bids: book.bids,
  };
}

export function statsJson(c: PfCategory, marketCount: number): Json {
  const share = c.volumeUsd / marketCount;
  return {
    totalLiquidityUsd: Math.round(share * 0.2 * 100) / 100,
    volumeTotalUsd: Math.round(share * 100) / 100,
    volume24hUsd: Math.round(share * 0.05 * 100) / 100,
  };
}
