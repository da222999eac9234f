// Pure normalizers for Limitless portfolio documents: positions (CLOB amounts are 6-decimal integers, legacy AMM
// amounts human decimals) and the wallet-activity document. `group` positions have no documented shape and are
// not read; group children already appear in `clob`.
import type { Position } from '../../domain/trading.js';
import { toNumber, UNITS } from './parse.js';
import type { LimitlessPositions } from './payloads.js';

export function positionsToPositions(doc: LimitlessPositions, marketId: string | null): Position[] {
  const out: Position[] = [];
  for (const p of doc.clob) {
    if (marketId !== null && p.market.slug !== marketId) continue;
    const sides = [
      ['Yes', p.tokensBalance.yes, p.positions?.yes, p.latestTrade?.latestYesPrice],
      ['No', p.tokensBalance.no, p.positions?.no, p.latestTrade?.latestNoPrice],
    ] as const;
    for (const [outcome, balance, side, latest] of sides) {
      const size = toNumber(balance);
      if (size === null || size <= 0) continue;
      out.push({
        market_id: p.market.slug,
        outcome,
        size: size / UNITS,
        // fillPrice is the average entry price × 1e6.
        average_price: unit(side ? nullableDiv(toNumber(side.fillPrice), UNITS) : null),
        current_price: unit(toNumber(latest)),
      });
    }
  }
  for (const p of doc.amm) {
    const slug = p.market.slug;
    const size = toNumber(p.outcomeTokenAmount);
    if (!slug || size === null || size <= 0 || (marketId !== null && slug !== marketId)) continue;
    out.push({
      market_id: slug,
      outcome: p.outcomeIndex === 0 ? 'Yes' : 'No',
      size,
      average_price: unit(toNumber(p.averageFillPrice)),
      current_price: unit(toNumber(p.latestTrade?.outcomeTokenPrice)),
    });
  }
  return out;
}

function nullableDiv(x: number | null, by: number): number | null {
  return x === null ? null : x / by;
}

function unit(x: number | null): number | null {
  return x !== null && x >= 0 && x <= 1 ? x : null;
}

/** Keeps at most `limit` entries in each position list of a raw positions document; every other key as it is. */
export function limitPositionsDocument(doc: Record<string, unknown>, limit: number): Record<string, unknown> {
  const out: Record<string, unknown> = { ...doc };
  for (const key of ['clob', 'amm', 'group'] as const) {
    const list = doc[key];
    if (Array.isArray(list)) out[key] = list.slice(0, limit);
  }
  return out;
}
