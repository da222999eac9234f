// Gamma JSON for markets and events with the recorded field names and quirks: `outcomes`, `outcomePrices` and
// `clobTokenIds` are JSON-encoded string arrays, `volume`/`liquidity` are decimal strings on markets but numbers on
// events, ids are numeric strings, and every market says `version: "v1"` unless moved to Protocol V2 (`"v2"`).
import type { Catalogue, PmEvent, PmMarket } from './catalogue.js';
import type { Exchange } from './exchange.js';
import { fairAt } from './house.js';
import { marketStats, probText } from './stats.js';

const TAG_CREATED = '2023-10-24T22:37:50.31Z';

function round(n: number, digits = 6): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** Gamma's JSON-encoded string arrays keep a space after each comma: `["Yes", "No"]`. */
export function encodedList(values: readonly string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(', ')}]`;
}

const isoMs = (d: Date) => d.toISOString().replace('Z', '000Z');
const isoS = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
const day = (d: Date) => d.toISOString().slice(0, 10);

export interface MarketFigures {
  volume: number;
  liquidity: number;
}

/** Volume and liquidity, the figures list filters and sorts use. */
export function marketFigures(m: PmMarket, exchange: Exchange): MarketFigures {
  return { volume: round(exchange.volume(m)), liquidity: marketStats(m, exchange).liquidity };
}

export function gammaMarketJson(
  cat: Catalogue,
  exchange: Exchange,
  m: PmMarket,
  withEvents: boolean,
): Record<string, unknown> {
  const stats = marketStats(m, exchange);
  const volume = round(exchange.volume(m));
  const active = m.status === 'active';
  const prop = m.prop;
  const updated = isoMs(cat.world.now);
  const fee = m.feeRate > 0;
  const step = exchange.step;
  const out: Record<string, unknown> = {
    id: cat.gammaId(m),
    question: m.question,
    conditionId: cat.conditionId(m),
    slug: m.slug,
    resolutionSource: m.event.phrase.resolutionSource,
    endDate: isoS(prop.closeTime),
    liquidity: String(stats.liquidity),
    startDate: isoMs(m.event.opened),
    image: m.event.phrase.image,
    icon: m.event.phrase.image,
    description: m.description,
    outcomes: encodedList(['Yes', 'No']),
    outcomePrices: encodedList([probText(stats.price), probText(1 - stats.price)]),
    volume: String(volume),
    active: true,
    closed: !active,
    marketMakerAddress: '',
    createdAt: isoMs(m.event.opened),
    updatedAt: updated,
    new: false,
    featured: false,
    submitted_by: '0x91430CaD2d3975766499717fA0D66A78D814E5c5',
    archived: m.archived,
    resolvedBy: '0x65070BE91477460D8A7AeEb94ef92fe056C2f2A7',
    restricted: true,
    groupItemTitle: m.option ?? m.event.phrase.label,
    groupItemThreshold: String(m.optionIndex),
    questionID: cat.questionId(m),
    enableOrderBook: true,
    orderPriceMinTickSize: stats.tick,
    orderMinSize: 5,
    volumeNum: volume,
    liquidityNum: stats.liquidity,
    endDateIso: day(prop.closeTime),
    startDateIso: day(m.event.opened),
    hasReviewedDates: true,
    secondsDelay: 0,
    automaticallyResolved: true,
    comboStatus: 'disabled',
    ...sportsMarketFields(cat, m.event),
    volume24hr: round(volume * 0.08),
    volume1wk: round(volume * 0.35),
    volume1mo: round(volume * 0.8),
    volume1yr: volume,
    clobTokenIds: encodedList(cat.tokenIds(m)),
    umaBond: '500',
    umaReward: '2',
    volume24hrClob: round(volume * 0.08),
    volume1wkClob: round(volume * 0.35),
    volume1moClob: round(volume * 0.8),
    volume1yrClob: volume,
    volumeClob: volume,
    liquidityClob: stats.liquidity,
    customLiveness: 0,
    acceptingOrders: active,
    negRisk: m.event.negRisk,
    ...(m.event.negRisk ? { negRiskMarketID: cat.negRiskMarketId(m.event) } : {}),
    negRiskRequestID: cat.negRiskRequestId(m),
    ready: false,
    funded: false,
    acceptingOrdersTimestamp: isoS(m.event.opened),
    cyom: false,
    competitive: stats.spread === null ? 0 : round(Math.max(0, 1 - stats.spread * 5), 4),
    pagerDutyNotificationEnabled: false,
    approved: true,
    rewardsMinSize: 50,
    rewardsMaxSpread: 4.5,
    ...(stats.spread === null ? {} : { spread: stats.spread }),
    oneDayPriceChange: active ? round(fairAt(m, step) - fairAt(m, step - 24), 3) : 0,
    oneHourPriceChange: active ? round(fairAt(m, step) - fairAt(m, step - 1), 3) : 0,
    ...(stats.lastTrade === null ? {} : { lastTradePrice: stats.lastTrade }),
    ...(stats.bestBid === null ? {} : { bestBid: stats.bestBid }),
    ...(stats.bestAsk === null ? {} : { bestAsk: stats.bestAsk }),
    automaticallyActive: true,
    clearBookOnStart: true,
    manualActivation: false,
    negRiskOther: false,
    umaResolutionStatuses: m.status === 'resolved' ? encodedList(['proposed', 'resolved']) : '[]',
    pendingDeployment: false,
    deploying: false,
    deployingTimestamp: isoMs(m.event.opened),
    rfqEnabled: false,
    holdingRewardsEnabled: false,
    feesEnabled: fee,
    requiresTranslation: false,
    feeType: fee ? 'crypto_fees_v2' : null,
    ...(fee
      ? {
          feeSchedule: { exponent: m.feeExp, rate: m.feeRate, takerOnly: true, rebateRate: 0.2 },
          makerBaseFee: 1000,
          takerBaseFee: 1000,
        }
      : {}),
    ...(active ? {} : { closedTime: `${isoS(prop.closeTime).replace('T', ' ').replace('Z', '')}+00` }),
    ...(m.status === 'resolved' ? { umaResolutionStatus: 'resolved', umaEndDate: isoS(prop.closeTime) } : {}),
    version: m.protocolV2 ? 'v2' : 'v1',
  };
  if (withEvents) out.events = [eventHead(cat, exchange, m.event)];
  return out;
}

/** Sports games carry a game id and start time on each market. */
function sportsMarketFields(cat: Catalogue, e: PmEvent): Record<string, unknown> {
  if (e.prop.topic !== 'sports') return {};
  const start = gameStart(e);
  return {
    gameId: String(gameId(cat, e)),
    gameStartTime: `${isoS(start).replace('T', ' ').replace('Z', '')}+00`,
    eventStartTime: isoS(start),
    sportsMarketType: 'moneyline',
  };
}

function gameStart(e: PmEvent): Date {
  return new Date(e.prop.closeTime.getTime() - 5 * 3_600_000);
}

function gameId(cat: Catalogue, e: PmEvent): number {
  return 1_400_000 + e.index * 7 + (cat.seed % 7);
}

/** The game block a sports event carries: date, period, score, the two teams and the league. */
function sportsEventFields(cat: Catalogue, e: PmEvent): Record<string, unknown> {
  if (e.prop.topic !== 'sports') return {};
  const [home = 'Home', away = 'Away'] = e.prop.subject.split(' vs ');
  const start = gameStart(e);
  const ended = e.prop.status !== 'active';
  const team = (name: string, ordering: string, i: number) => ({
    id: 3_270_000 + (name.length * 97 + i),
    name,
    league: 'nba',
    record: '0-0',
    logo: `https://polymarket-upload.s3.us-east-2.amazonaws.com/nba-${name.toLowerCase()}.png`,
    abbreviation: name.slice(0, 3).toLowerCase(),
    createdAt: TAG_CREATED,
    updatedAt: TAG_CREATED,
    providerId: 1_000 + i,
    color: '#1d428a',
    ordering,
  });
  return {
    eventDate: day(start),
    startTime: isoS(start),
    period: ended ? 'VFT' : 'NS',
    gameId: gameId(cat, e),
    live: false,
    ended,
    score: ended ? (e.prop.winner === 'Yes' ? '112-104' : '98-107') : '',
    eventWeek: 1,
    eventMetadata: { league: 'NBA' },
    teams: [team(home, 'home', 0), team(away, 'away', 1)],
    sport: {
      id: 4,
      sport: 'nba',
      name: 'Basketball',
      image: 'https://polymarket-upload.s3.us-east-2.amazonaws.com/league-icons/nba.png',
      resolution: 'https://www.nba.com/',
      ordering: 'home',
      tags: '1,745',
      primaryTagId: 745,
      series: '10345',
      createdAt: TAG_CREATED,
    },
  };
}

function seriesJson(e: PmEvent, figures: EventFigures): Record<string, unknown> {
  const slug = e.phrase.seriesSlug;
  return {
    id: String(10_000 + ((slug.length * 131) % 9_000)),
    ticker: slug,
    slug,
    title: slug.replace(/-/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase()),
    seriesType: 'single',
    recurrence: 'daily',
    image: e.phrase.image,
    icon: e.phrase.image,
    active: true,
    closed: false,
    archived: false,
    createdAt: TAG_CREATED,
    updatedAt: TAG_CREATED,
    volume24hr: round(figures.volume * 0.08),
    volume: figures.volume,
    liquidity: figures.liquidity,
    commentCount: 0,
    requiresTranslation: false,
  };
}

function tagJson(t: { id: string; label: string; slug: string }): Record<string, unknown> {
  return {
    id: t.id,
    label: t.label,
    slug: t.slug,
    createdAt: TAG_CREATED,
    updatedAt: TAG_CREATED,
    requiresTranslation: false,
  };
}

export interface EventFigures {
  volume: number;
  liquidity: number;
}

export function eventFigures(e: PmEvent, exchange: Exchange): EventFigures {
  let volume = 0;
  let liquidity = 0;
  for (const m of e.markets) {
    const f = marketFigures(m, exchange);
    volume += f.volume;
    liquidity += f.liquidity;
  }
  return { volume: round(volume), liquidity: round(liquidity) };
}

/** Event fields without `markets` (the form nested in a market's `events`). */
function eventHead(cat: Catalogue, exchange: Exchange, e: PmEvent): Record<string, unknown> {
  const prop = e.prop;
  const active = prop.status === 'active';
  const figures = eventFigures(e, exchange);
  const first = e.markets[0];
  return {
    id: cat.eventGammaId(e),
    ticker: e.slug,
    slug: e.slug,
    title: e.phrase.question,
    description: e.phrase.description,
    resolutionSource: e.phrase.resolutionSource,
    startDate: isoMs(e.opened),
    creationDate: isoMs(e.opened),
    endDate: isoS(prop.closeTime),
    image: e.phrase.image,
    icon: e.phrase.image,
    active: true,
    closed: !active,
    archived: first?.archived ?? false,
    new: false,
    featured: false,
    restricted: true,
    liquidity: figures.liquidity,
    volume: figures.volume,
    openInterest: round(figures.volume * 0.4),
    createdAt: isoMs(e.opened),
    updatedAt: isoMs(cat.world.now),
    competitive: 0.5,
    volume24hr: round(figures.volume * 0.08),
    volume1wk: round(figures.volume * 0.35),
    volume1mo: round(figures.volume * 0.8),
    volume1yr: figures.volume,
    enableOrderBook: true,
    liquidityClob: figures.liquidity,
    negRisk: e.negRisk,
    ...(e.negRisk ? { negRiskMarketID: cat.negRiskMarketId(e) } : {}),
    commentCount: 0,
    automaticallyResolved: true,
    series: [seriesJson(e, figures)],
    ...sportsEventFields(cat, e),
    ...(active ? {} : { closedTime: isoS(prop.closeTime) }),
    cyom: false,
    showAllOutcomes: true,
    showMarketImages: false,
    enableNegRisk: e.negRisk,
    automaticallyActive: true,
    seriesSlug: e.phrase.seriesSlug,
    negRiskAugmented: false,
    pendingDeployment: false,
    deploying: false,
    requiresTranslation: false,
    version: 'v1',
  };
}

export function gammaEventJson(cat: Catalogue, exchange: Exchange, e: PmEvent): Record<string, unknown> {
  return {
    ...eventHead(cat, exchange, e),
    markets: e.markets.map((m) => gammaMarketJson(cat, exchange, m, false)),
    tags: cat.tags(e).map(tagJson),
  };
}

export { tagJson };
