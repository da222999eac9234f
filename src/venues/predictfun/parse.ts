// Pure normalizers from Predict.fun payloads to our shapes. The venue quotes each market's book in its YES outcome
// (indexSet 1); the other outcome's book is the complement (its bids are 1 − YES asks, its asks 1 − YES bids, same
// sizes). Order amounts and fills are wei (1e18); book sizes and USD figures are plain decimals.
import type { BookLevel, OrderBook, Trade } from '../../domain/book.js';
import type { Market, MarketEvent, MarketStatus, Outcome } from '../../domain/market.js';
import { encodeSvcId } from '../../domain/svc-id.js';
import type { Position } from '../../domain/trading.js';
import type {
  PredictfunBook,
  PredictfunCategory,
  PredictfunMarket,
  PredictfunMatch,
  PredictfunPosition,
} from './payloads.js';

const WEI_DIGITS = 18;

/** A wei decimal string as a number of whole units (shares or USDT), exact to 1e-18 before the float. */
export function fromWei(wei: string): number {
  const digits = wei.replace(/^0+/, '') || '0';
  const padded = digits.padStart(WEI_DIGITS + 1, '0');
  const whole = padded.slice(0, -WEI_DIGITS);
  const fraction = padded.slice(-WEI_DIGITS).replace(/0+$/, '');
  return Number(fraction ? `${whole}.${fraction}` : whole);
}

function num(value: number | string | null | undefined): number | null {
  if (value === null || value === undefined || value === '') return null;
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(n) ? n : null;
}

/** 1 − p without binary noise (1 − 0.42 is 0.5800000000000001 in floats). */
export function complement(price: number): number {
  return Number((1 - price).toFixed(9));
}

function sortedOutcomes(m: PredictfunMarket): PredictfunMarket['outcomes'] {
  return [...m.outcomes].sort((a, b) => a.indexSet - b.indexSet);
}

export function marketStatus(m: PredictfunMarket, categoryStatus?: string): MarketStatus {
  const resolved =
    m.status === 'RESOLVED' ||
    m.status === 'SETTLED' ||
    categoryStatus === 'RESOLVED' ||
    m.outcomes.some((o) => o.status === 'WON');
  if (resolved) return 'resolved';
  // REGISTERED is the registration state; whether it trades is tradingStatus.
  return m.tradingStatus === 'OPEN' ? 'active' : 'closed';
}

/**
 * A market with the category (its event) it belongs to. The native id is the numeric market id: the one
 * GET /v1/markets/{id}, its orderbook and the match feed are addressed by; the event id is the category slug
 * (GET /v1/categories/{slug}).
 */
export function toMarket(m: PredictfunMarket, category: PredictfunCategory | null): Market {
  const id = String(m.id);
  const status = marketStatus(m, category?.status);
  const outcomes: Outcome[] = sortedOutcomes(m).map((o) => {
    const out: Outcome = { name: o.name, token_id: o.onChainId };
    if (status === 'resolved' && (o.status === 'WON' || o.status === 'LOST'))
      out.price = o.status === 'WON' ? 1 : 0;
    return out;
  });
  const yes = sortedOutcomes(m)[0];
  const market: Market = {
    svc_id: encodeSvcId('predictfun', id),
    svc_group_id: encodeSvcId('predictfun', m.categorySlug),
    exchange: 'predictfun',
    exchange_market_id: id,
    exchange_group_id: m.categorySlug,
    question: m.question || m.title,
    group_title: category?.title ?? m.title,
    status,
    market_type: m.outcomes.length > 2 ? 'categorical' : 'binary',
    outcomes,
    // Volumes live behind one /stats request per market; a listing does not carry them.
    volume_total: null,
    slug: m.categorySlug,
    best_bid: yes?.bestBid?.price ?? null,
    best_ask: yes?.bestAsk?.price ?? null,
    tick_size: tickSize(m.decimalPrecision),
    outcome_count: m.outcomes.length,
    created_at: m.createdAt ?? null,
    end_date: category?.endsAt ?? null,
    image_url: m.imageUrl ?? null,
  };
  if (m.description) market.description = m.description;
  if (m.conditionId) market.condition_id = m.conditionId;
  return market;
}

export function tickSize(decimalPrecision: number | null | undefined): number | null {
  return typeof decimalPrecision === 'number' && decimalPrecision > 0 ? 10 ** -decimalPrecision : null;
}

export function toEvent(c: PredictfunCategory): MarketEvent {
  let status: MarketStatus = 'active';
  if (c.status === 'RESOLVED') status = 'resolved';
  else if (c.markets.length > 0 && c.markets.every((m) => marketStatus(m, c.status) !== 'active'))
    status = 'closed';
  return {
    exchange: 'predictfun',
    exchange_group_id: c.slug,
    title: c.title,
    status,
    close_time: c.endsAt ?? null,
    volume_total: null,
  };
}

function levels(raw: PredictfunBook['bids']): BookLevel[] {
  const out: BookLevel[] = [];
  for (const [p, s] of raw) {
    const price = num(p);
    const size = num(s);
    if (price !== null && size !== null && size > 0 && price > 0 && price < 1) out.push([price, size]);
  }
  return out;
}

/** The book of one outcome: the YES book as sent, or its complement for the other outcome. */
export function toOrderBook(
  raw: PredictfunBook,
  market: Market,
  outcome: { name: string; token_id: string; indexSet: number },
): OrderBook {
  const yes: OrderBook = {
    exchange: 'predictfun',
    market_id: market.exchange_market_id,
    outcome: outcome.name,
    token_id: outcome.token_id,
    bids: levels(raw.bids).sort((a, b) => b[0] - a[0]),
    asks: levels(raw.asks).sort((a, b) => a[0] - b[0]),
    timestamp: new Date(raw.updateTimestampMs).toISOString(),
    tick_size: market.tick_size ?? null,
  };
  return outcome.indexSet === 1 ? yes : complementBook(yes, outcome);
}

/** The other outcome's book from a YES book: NO bids are 1 − YES asks, NO asks 1 − YES bids, sizes unchanged. */
export function complementBook(yes: OrderBook, outcome: { name: string; token_id: string }): OrderBook {
  return {
    ...yes,
    outcome: outcome.name,
    token_id: outcome.token_id,
    bids: yes.asks.map(([p, s]): BookLevel => [complement(p), s]).sort((a, b) => b[0] - a[0]),
    asks: yes.bids.map(([p, s]): BookLevel => [complement(p), s]).sort((a, b) => a[0] - b[0]),
  };
}

const opposite = (side: 'buy' | 'sell'): 'buy' | 'sell' => (side === 'buy' ? 'sell' : 'buy');
const sideOf = (quoteType: string): 'buy' | 'sell' | null => {
  const q = quoteType.toLowerCase();
  return q === 'bid' ? 'buy' : q === 'ask' ? 'sell' : null;
};

/**
 * The prints of one match on one outcome's book, newest-first order kept by the caller. When the taker traded this
 * outcome, one print at the executed price, the taker's side the aggressor. Otherwise each maker leg on this outcome
 * (a complementary mint or merge) is a print at that maker's price, the aggressor on this book being its opposite.
 */
export function matchToTrades(match: PredictfunMatch, indexSet: number, outcomeName: string): Trade[] {
  const base = match.settlementId ?? match.transactionHash ?? `${match.market.id}:${match.executedAt}`;
  const timestamp = new Date(match.executedAt).toISOString();
  const takerSide = sideOf(match.taker.quoteType);
  if (match.taker.outcome.indexSet === indexSet && takerSide) {
    return [
      {
        id: base,
        price: fromWei(match.priceExecuted),
        size: fromWei(match.amountFilled),
        side: takerSide,
        aggressor_side: takerSide,
        timestamp,
        outcome: outcomeName,
        tx_hash: match.transactionHash ?? null,
        taker_address: match.taker.signer,
      },
    ];
  }
  const trades: Trade[] = [];
  match.makers.forEach((maker, i) => {
    const makerSide = sideOf(maker.quoteType);
    if (maker.outcome.indexSet !== indexSet || !makerSide) return;
    const aggressor = opposite(makerSide);
    trades.push({
      id: `${base}:${maker.hash ?? i}`,
      price: fromWei(maker.price),
      size: fromWei(maker.amount),
      side: aggressor,
      aggressor_side: aggressor,
      timestamp,
      outcome: outcomeName,
      tx_hash: match.transactionHash ?? null,
      taker_address: match.taker.signer,
    });
  });
  return trades;
}

/** A holding: shares from wei, the venue's average buy price, and its valuation per share as the current price. */
export function toPosition(p: PredictfunPosition): Position {
  const size = fromWei(p.amount);
  const average = num(p.averageBuyPriceUsd);
  const value = num(p.valueUsd);
  const current = value !== null && size > 0 ? Number((value / size).toFixed(6)) : null;
  const unit = (x: number | null) => (x !== null && x >= 0 && x <= 1 ? x : null);
  return {
    market_id: String(p.market.id),
    outcome: p.outcome.name,
    size,
    average_price: unit(average),
    current_price: unit(current),
  };
}
