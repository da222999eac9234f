// Predict.fun's public market-data routes: categories (events) and markets with first/after cursor paging, one
// category by slug, one market, its stats, its YES-quoted orderbook, and the order-match tape (by market and/or
// signer), all in the `{success, data, cursor}` envelope.
import type { ServerResponse } from 'node:http';
import type { PfMarketRef } from './catalog.js';
import { CATEGORY_SORTS, type CategorySort } from './catalog.js';
import { BadRequest, cursorOffset, decodeCursor, encodeCursor, fail, ok, parseFirst } from './envelope.js';
import { categoryJson, marketJson, orderbookJson, statsJson } from './payloads.js';
import type { Match, PfState } from './state.js';

/** Cells of the (step, market) tape a signer-filtered read may scan before it returns a cursor. */
const SCAN_BUDGET = 50_000;

function statusParam(raw: string | null): 'OPEN' | 'RESOLVED' | null {
  if (raw === null || raw === '') return null;
  if (raw === 'OPEN' || raw === 'RESOLVED') return raw;
  throw new BadRequest('status must be one of OPEN, RESOLVED');
}

function marketIdParam(raw: string | undefined): number {
  if (raw === undefined || !/^\d{1,15}$/.test(raw)) throw new BadRequest('id must be a number');
  return Number(raw);
}

export function listCategories(state: PfState, res: ServerResponse, q: URLSearchParams): void {
  const first = parseFirst(q.get('first'));
  const offset = cursorOffset(q.get('after'));
  const sortRaw = q.get('sort');
  if (sortRaw !== null && !(CATEGORY_SORTS as readonly string[]).includes(sortRaw)) {
    throw new BadRequest(`sort must be one of ${CATEGORY_SORTS.join(', ')}`);
  }
  const all = state.catalog.list(statusParam(q.get('status')), sortRaw as CategorySort | null);
  const page = all.slice(offset, offset + first);
  const next = offset + page.length < all.length ? encodeCursor({ offset: offset + page.length }) : null;
  ok(
    res,
    page.map((c) => categoryJson(state, c)),
    next,
  );
}

export function getCategory(state: PfState, res: ServerResponse, slug: string): void {
  const c = state.catalog.bySlug.get(slug);
  if (!c) {
    fail(res, 404, 'not_found', 'Category not found');
    return;
  }
  ok(res, categoryJson(state, c));
}

export function listMarkets(state: PfState, res: ServerResponse, q: URLSearchParams): void {
  const first = parseFirst(q.get('first'));
  const offset = cursorOffset(q.get('after'));
  const list = state.catalog.list(statusParam(q.get('status')), null);
  const { refs, total } = state.catalog.marketSlice(list, offset, first);
  const end = offset + refs.length;
  ok(
    res,
    refs.map((ref) => marketJson(state, ref)),
    end < total ? encodeCursor({ offset: end }) : null,
  );
}

export function getMarket(state: PfState, res: ServerResponse, idRaw: string | undefined): void {
  const ref = state.catalog.market(marketIdParam(idRaw));
  if (!ref) {
    fail(res, 404, 'not_found', 'Market not found');
    return;
  }
  ok(res, marketJson(state, ref));
}

export function getStats(state: PfState, res: ServerResponse, idRaw: string | undefined): void {
  const ref = state.catalog.market(marketIdParam(idRaw));
  if (!ref) {
    fail(res, 404, 'not_found', 'Market not found');
    return;
  }
  ok(res, statsJson(ref.category, ref.category.marketCount));
}

export function getOrderbook(state: PfState, res: ServerResponse, idRaw: string | undefined): void {
  const ref = state.catalog.market(marketIdParam(idRaw));
  if (!ref) {
    fail(res, 404, 'not_found', 'Orderbook not found');
    return;
  }
  ok(res, orderbookJson(state, ref));
}

/**
 * GET /v1/orders/matches: settled matches, newest first. `marketId` narrows to one market, `signerAddress` to the
 * matches a wallet signed (as taker or maker; `isSignerMaker` picks one side), `minValueUsdtWei` drops small ones.
 * A step's cells are its paper matches (POST /__sim/trade, latest first), then one tape cell per trading market.
 */
export function listMatches(state: PfState, res: ServerResponse, q: URLSearchParams): void {
  const first = parseFirst(q.get('first'));
  const marketRaw = q.get('marketId');
  const signer = q.get('signerAddress')?.toLowerCase() ?? null;
  if (signer !== null && !/^0x[0-9a-f]{40}$/.test(signer))
    throw new BadRequest('signerAddress must be an address');
  const makerRaw = q.get('isSignerMaker');
  if (makerRaw !== null && makerRaw !== 'true' && makerRaw !== 'false') {
    throw new BadRequest('isSignerMaker must be true or false');
  }
  const minRaw = q.get('minValueUsdtWei');
  if (minRaw !== null && !/^\d+$/.test(minRaw)) throw new BadRequest('minValueUsdtWei must be an integer');
  const minValue = minRaw === null ? 0n : BigInt(minRaw);
  let refs: readonly PfMarketRef[] = state.catalog.trading();
  let marketId: number | null = null;
  if (marketRaw !== null) {
    marketId = marketIdParam(marketRaw);
    const ref = state.catalog.market(marketId);
    refs = ref ? [ref] : [];
  }
  const signs = (m: Match): boolean =>
    m.taker.signer.toLowerCase() === signer || m.makers.some((x) => x.signer.toLowerCase() === signer);
  if (signer !== null && !state.traders.some((t) => t.toLowerCase() === signer)) {
    // Only the tape's own wallets ever appear in the tape: any other signer has at most paper matches.
    if (!state.paperMatches.some((p) => signs(p.match))) {
      ok(res, [], null);
      return;
    }
    refs = [];
  }
  const paperByStep = new Map<number, Match[]>();
  for (const { step, match } of state.paperMatches) {
    if (marketId !== null && match.market.id !== marketId) continue;
    const list = paperByStep.get(step) ?? [];
    list.unshift(match);
    paperByStep.set(step, list);
  }
  const cellsAt = (k: number): number => (paperByStep.get(k)?.length ?? 0) + (k >= 1 ? refs.length : 0);

  const cursor = decodeCursor(q.get('after'));
  let k = typeof cursor?.step === 'number' ? cursor.step : state.step;
  let i = typeof cursor?.index === 'number' ? cursor.index : 0;
  if (!Number.isInteger(k) || !Number.isInteger(i) || k < 0 || i < 0) throw new BadRequest('Invalid cursor');
  const keep = (m: Match): boolean => {
    if ((BigInt(m.amountFilled) * BigInt(m.priceExecuted)) / 10n ** 18n < minValue) return false;
    if (signer === null) return true;
    const asTaker = m.taker.signer.toLowerCase() === signer;
    const asMaker = m.makers.some((x) => x.signer.toLowerCase() === signer);
    if (makerRaw === 'true') return asMaker;
    if (makerRaw === 'false') return asTaker;
    return asTaker || asMaker;
  };
  const data: Match[] = [];
  let scanned = 0;
  // Newest step first; within a step, paper matches then market order. The cursor is the next cell to read.
  while (k >= 0 && data.length < first && scanned < SCAN_BUDGET) {
    if (i >= cellsAt(k)) {
      k -= 1;
      i = 0;
      continue;
    }
    const paper = paperByStep.get(k) ?? [];
    const m = i < paper.length ? paper[i] : state.match(refs[i - paper.length] as PfMarketRef, k);
    i += 1;
    scanned += 1;
    if (m && keep(m)) data.push(m);
  }
  while (k >= 0 && i >= cellsAt(k)) {
    k -= 1;
    i = 0;
  }
  ok(res, data, k >= 0 ? encodeCursor({ step: k, index: i }) : null);
}
