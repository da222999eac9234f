// CLOB JSON as the exchange sends it: the order book summary (REST and the WS `book` frame), the market object of
// /markets and the compact /clob-markets record. Levels go out worst-first (bids ascending, asks descending, best
// last) as recorded, and `hash` is the SHA-1 of the summary serialized with an empty hash, which is what the SDK's
// getOrderBookHash recomputes.
import { createHash } from 'node:crypto';
import { type Depth, mirror } from './book.js';
import { type Catalogue, MIN_ORDER_SIZE, type PmMarket } from './catalogue.js';
import { CONTRACTS } from './contracts.js';
import type { BookView, Exchange } from './exchange.js';
import { marketStats } from './stats.js';
import { fmtUnits, ONE } from './units.js';

export interface BookSummary {
  market: string;
  asset_id: string;
  timestamp: string;
  hash: string;
  bids: Array<{ price: string; size: string }>;
  asks: Array<{ price: string; size: string }>;
  min_order_size: string;
  tick_size: string;
  neg_risk: boolean;
  last_trade_price: string;
}

export function assetDepth(view: BookView, outcome: 0 | 1): Depth {
  return outcome === 0 ? view.depth : mirror(view.depth);
}

function levels(side: Array<[number, number]>): Array<{ price: string; size: string }> {
  return [...side].reverse().map(([p, s]) => ({ price: fmtUnits(p), size: fmtUnits(s) }));
}

export function bookSummary(cat: Catalogue, m: PmMarket, outcome: 0 | 1, view: BookView): BookSummary {
  const depth = assetDepth(view, outcome);
  const last = view.last ? (outcome === 0 ? view.last.price : ONE - view.last.price) : null;
  const summary: BookSummary = {
    market: cat.conditionId(m),
    asset_id: cat.tokenId(m, outcome),
    timestamp: String(view.ms),
    hash: '',
    bids: levels(depth.bids),
    asks: levels(depth.asks),
    min_order_size: String(MIN_ORDER_SIZE),
    tick_size: fmtUnits(view.tick),
    neg_risk: m.event.negRisk,
    last_trade_price: last === null ? '' : fmtUnits(last),
  };
  summary.hash = createHash('sha1').update(JSON.stringify(summary)).digest('hex');
  return summary;
}

/** The market channel's `book` frame carries the keys of the recorded V2 frame. */
export function bookEvent(s: BookSummary): Record<string, unknown> {
  return {
    market: s.market,
    asset_id: s.asset_id,
    timestamp: s.timestamp,
    hash: s.hash,
    bids: s.bids,
    asks: s.asks,
    tick_size: s.tick_size,
    event_type: 'book',
    last_trade_price: s.last_trade_price,
  };
}

const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

export function clobMarketJson(cat: Catalogue, exchange: Exchange, m: PmMarket): Record<string, unknown> {
  const stats = marketStats(m, exchange);
  const active = m.status === 'active';
  const fee = m.feeRate > 0 ? 1000 : 0;
  const [yes, no] = cat.tokenIds(m);
  return {
    enable_order_book: true,
    active: true,
    closed: !active,
    archived: m.archived,
    accepting_orders: active,
    accepting_order_timestamp: iso(m.event.opened),
    minimum_order_size: MIN_ORDER_SIZE,
    minimum_tick_size: stats.tick,
    condition_id: cat.conditionId(m),
    question_id: cat.questionId(m),
    question: m.question,
    description: m.description,
    market_slug: m.slug,
    end_date_iso: iso(m.prop.closeTime),
    game_start_time: null,
    seconds_delay: 0,
    fpmm: '',
    maker_base_fee: fee,
    taker_base_fee: fee,
    notifications_enabled: true,
    neg_risk: m.event.negRisk,
    neg_risk_market_id: cat.negRiskMarketId(m.event),
    neg_risk_request_id: cat.negRiskRequestId(m),
    icon: m.event.phrase.image,
    image: m.event.phrase.image,
    // Live markets pay liquidity rewards in the collateral token (as rewardsMinSize/MaxSpread say on Gamma).
    rewards: active
      ? {
          rates: [{ asset_address: CONTRACTS.collateral, rewards_daily_rate: 5 + (m.h % 20) * 5 }],
          min_size: 50,
          max_spread: 4.5,
        }
      : { rates: null, min_size: 0, max_spread: 0 },
    is_50_50_outcome: false,
    tokens: [
      { token_id: yes, outcome: 'Yes', price: stats.price, winner: m.yesWon === true },
      {
        token_id: no,
        outcome: 'No',
        price: Math.round((1 - stats.price) * 10_000) / 10_000,
        winner: m.yesWon === false,
      },
    ],
    tags: cat.tags(m.event).map((t) => t.label),
  };
}

/** GET /clob-markets/{condition_id}: the compact record the V2 SDK caches tick, neg-risk and fee curve from. */
export function clobMarketInfoJson(cat: Catalogue, exchange: Exchange, m: PmMarket): Record<string, unknown> {
  const stats = marketStats(m, exchange);
  const [yes, no] = cat.tokenIds(m);
  const fee = m.feeRate > 0 ? 1000 : 0;
  return {
    c: cat.conditionId(m),
    gst: null,
    r: null,
    t: [
      { t: yes, o: 'Yes' },
      { t: no, o: 'No' },
    ],
    mos: MIN_ORDER_SIZE,
    mts: stats.tick,
    nr: m.event.negRisk,
    ...(m.feeRate > 0 ? { fd: { r: m.feeRate, e: m.feeExp, to: true } } : {}),
    mbf: fee,
    tbf: fee,
    ao: m.status === 'active',
    sd: 0,
    cbos: false,
    aot: iso(m.event.opened),
    rfqe: false,
    ibce: false,
  };
}
