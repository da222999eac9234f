// A backtest's report from its paper fills, the marks at the window's end and the equity curve, in exact decimals:
// PnL (cash flows plus positions at their marks), fees, fills, exposure per market and per venue, and the largest
// fall of equity from a previous peak (max drawdown). Pure, so the same fills give the same report, byte for byte.
import { Decimal } from '../decimal.js';

export interface ReportFill {
  exchange: string;
  marketId: string;
  outcome: string;
  side: 'buy' | 'sell';
  price: number;
  size: number;
  fee: number | null;
  isTaker: boolean;
}

export interface EquityPoint {
  tMs: number;
  equity: Decimal;
}

export interface MarketLine {
  exchange: string;
  market_id: string;
  outcome: string;
  fills: number;
  bought: string;
  sold: string;
  fees: string;
  position: string;
  mark: string | null;
  exposure: string;
  pnl: string;
}

export interface VenueLine {
  exchange: string;
  fills: number;
  fees: string;
  exposure: string;
  pnl: string;
}

export interface BacktestReport {
  strategy: string;
  from: string;
  to: string;
  seed: number;
  steps: number;
  pnl: string;
  fees: string;
  fills: number;
  maker_fills: number;
  taker_fills: number;
  max_drawdown: string;
  start_equity: string;
  end_equity: string;
  markets: MarketLine[];
  venues: VenueLine[];
}

interface Acc {
  fills: number;
  bought: Decimal;
  sold: Decimal;
  fees: Decimal;
  cash: Decimal;
}

export function buildReport(input: {
  strategy: string;
  fromMs: number;
  toMs: number;
  seed: number;
  steps: number;
  fills: readonly ReportFill[];
  /** The mark of each held outcome at the end, keyed `exchange\0market_id\0outcome` (null: no book to mark at). */
  marks: ReadonlyMap<string, Decimal | null>;
  equity: readonly EquityPoint[];
  startEquity: Decimal;
}): BacktestReport {
  const byMarket = new Map<string, Acc & { exchange: string; marketId: string; outcome: string }>();
  let makers = 0;
  for (const f of input.fills) {
    const key = markKey(f.exchange, f.marketId, f.outcome);
    const acc = byMarket.get(key) ?? {
      exchange: f.exchange,
      marketId: f.marketId,
      outcome: f.outcome,
      fills: 0,
      bought: Decimal.ZERO,
      sold: Decimal.ZERO,
      fees: Decimal.ZERO,
      cash: Decimal.ZERO,
    };
    const size = Decimal.fromNumber(f.size);
    const notional = Decimal.fromNumber(f.price).mul(size);
    const fee = f.fee === null ? Decimal.ZERO : Decimal.fromNumber(f.fee);
    acc.fills += 1;
    acc.fees = acc.fees.add(fee);
    if (f.side === 'buy') {
      acc.bought = acc.bought.add(size);
      acc.cash = acc.cash.sub(notional).sub(fee);
    } else {
      acc.sold = acc.sold.add(size);
      acc.cash = acc.cash.add(notional).sub(fee);
    }
    if (!f.isTaker) makers += 1;
    byMarket.set(key, acc);
  }
  const markets: MarketLine[] = [];
  const venues = new Map<string, { fills: number; fees: Decimal; exposure: Decimal; pnl: Decimal }>();
  let pnl = Decimal.ZERO;
  let fees = Decimal.ZERO;
  for (const [key, acc] of [...byMarket].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const position = acc.bought.sub(acc.sold);
    const mark = input.marks.get(key) ?? null;
    const exposure = mark === null ? Decimal.ZERO : position.mul(mark);
    const linePnl = acc.cash.add(exposure);
    markets.push({
      exchange: acc.exchange,
      market_id: acc.marketId,
      outcome: acc.outcome,
      fills: acc.fills,
      bought: acc.bought.toString(),
      sold: acc.sold.toString(),
      fees: acc.fees.toString(),
      position: position.toString(),
      mark: mark === null ? null : mark.toString(),
      exposure: exposure.toString(),
      pnl: linePnl.toString(),
    });
    const v = venues.get(acc.exchange) ?? {
      fills: 0,
      fees: Decimal.ZERO,
      exposure: Decimal.ZERO,
      pnl: Decimal.ZERO,
    };
    v.fills += acc.fills;
    v.fees = v.fees.add(acc.fees);
    v.exposure = v.exposure.add(exposure);
    v.pnl = v.pnl.add(linePnl);
    venues.set(acc.exchange, v);
    pnl = pnl.add(linePnl);
    fees = fees.add(acc.fees);
  }
  const endEquity = input.equity[input.equity.length - 1]?.equity ?? input.startEquity;
  return {
    strategy: input.strategy,
    from: new Date(input.fromMs).toISOString(),
    to: new Date(input.toMs).toISOString(),
    seed: input.seed,
    steps: input.steps,
    pnl: pnl.toString(),
    fees: fees.toString(),
    fills: input.fills.length,
    maker_fills: makers,
    taker_fills: input.fills.length - makers,
    max_drawdown: maxDrawdown(input.startEquity, input.equity).toString(),
    start_equity: input.startEquity.toString(),
    end_equity: endEquity.toString(),
    markets,
    venues: [...venues]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([exchange, v]) => ({
        exchange,
        fills: v.fills,
        fees: v.fees.toString(),
        exposure: v.exposure.toString(),
        pnl: v.pnl.toString(),
      })),
  };
}

/** The largest fall from a running peak (starting at the starting equity), ≥ 0. */
export function maxDrawdown(start: Decimal, equity: readonly EquityPoint[]): Decimal {
  let peak = start;
  let worst = Decimal.ZERO;
  for (const p of equity) {
    if (p.equity.gt(peak)) peak = p.equity;
    const fall = peak.sub(p.equity);
    if (fall.gt(worst)) worst = fall;
  }
  return worst;
}

export function markKey(exchange: string, marketId: string, outcome: string): string {
  return `${exchange}\u0000${marketId}\u0000${outcome}`;
}

/** The report as the command prints it: a summary, then one line per venue and per market. */
export function formatReport(r: BacktestReport): string {
  const lines = [
    `backtest ${r.strategy}  ${r.from} .. ${r.to}  seed ${r.seed}  steps ${r.steps}`,
    `PnL ${r.pnl} USD   fees ${r.fees} USD   fills ${r.fills} (maker ${r.maker_fills}, taker ${r.taker_fills})   max drawdown ${r.max_drawdown} USD`,
    `equity ${r.start_equity} -> ${r.end_equity} USD`,
    '',
    'per venue: exchange  fills  fees  exposure  pnl',
    ...r.venues.map((v) => `  ${v.exchange}  ${v.fills}  ${v.fees}  ${v.exposure}  ${v.pnl}`),
    '',
    'per market: exchange  market  outcome  fills  bought  sold  position  mark  exposure  fees  pnl',
    ...r.markets.map(
      (m) =>
        `  ${m.exchange}  ${m.market_id}  ${m.outcome}  ${m.fills}  ${m.bought}  ${m.sold}  ${m.position}  ${m.mark ?? '-'}  ${m.exposure}  ${m.fees}  ${m.pnl}`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}
