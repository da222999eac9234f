// Data API (public, by wallet): positions with average entry and PnL, activity rows for fills, the public trade tape
// (house prints plus user matches) and portfolio value. Camel-case arrays of JSON numbers, as recorded; wallet
// addresses compare case-insensitively.
import type { Fill, Position, Wallet } from './accounts.js';
import { HOUSE_ADDRESS, type PmMarket } from './catalogue.js';
import type { PmContext } from './context.js';
import type { HousePrint } from './exchange.js';
import { boolParam, type Ctx, intParam, listParam, type Route, send } from './http-util.js';
import { hash32 } from './ids.js';
import type { TradeRecord } from './trade.js';
import { ONE, toNumber } from './units.js';

const ADJECTIVES = ['Ultimate', 'Quiet', 'Bold', 'Lucky', 'Swift', 'Clever', 'Brave', 'Calm'];
const NOUNS = ['Locality', 'Harbor', 'Meadow', 'Signal', 'Summit', 'Orchard', 'Beacon', 'Canyon'];

function profile(address: string): Record<string, string> {
  const h = hash32(address.toLowerCase());
  const pseudonym = `${ADJECTIVES[h % ADJECTIVES.length]}-${NOUNS[(h >>> 8) % NOUNS.length]}`;
  return { name: '', pseudonym, bio: '', profileImage: '', profileImageOptimized: '' };
}

const r4 = (n: number) => Math.round(n * 10_000) / 10_000;
/** `GET /trades` offset range (Data API docs: "Required range: 0 <= x <= 10000"). */
const MAX_TRADES_OFFSET = 10_000;

interface Row {
  wallet: string;
  m: PmMarket;
  outcome: 0 | 1;
  side: 'BUY' | 'SELL';
  size: number;
  price: number;
  ms: number;
  tx: string;
  taker: boolean;
}

export function dataRoutes(pm: PmContext): Route[] {
  const { cat, exchange, accounts } = pm;

  const marketText = (m: PmMarket, outcome: 0 | 1) => ({
    title: m.question,
    slug: m.slug,
    icon: m.event.phrase.image,
    eventSlug: m.event.slug,
    outcome: outcome === 0 ? 'Yes' : 'No',
    outcomeIndex: outcome,
  });

  const yesPrice = (m: PmMarket): number => {
    if (m.yesWon !== null) return m.yesWon ? 1 : 0;
    const view = exchange.view(m);
    const bid = view?.depth.bids[0]?.[0];
    const ask = view?.depth.asks[0]?.[0];
    return bid !== undefined && ask !== undefined ? (bid + ask) / 2 / ONE : m.f0;
  };

  const userOf = (ctx: Ctx): Wallet | null | undefined => {
    const user = ctx.query.get('user');
    if (user === null) return undefined;
    if (!/^0x[0-9a-fA-F]{40}$/.test(user)) return null;
    return accounts.peek(user);
  };

  const positionJson = (w: Wallet, tokenId: string, p: Position) => {
    const cur = p.outcome === 0 ? yesPrice(p.market) : 1 - yesPrice(p.market);
    const size = toNumber(p.size);
    const avg = p.size > 0 ? p.cost / p.size : 0;
    const initial = toNumber(p.cost);
    const current = size * cur;
    const other = (1 - p.outcome) as 0 | 1;
    const opposite = w.positions.get(cat.tokenId(p.market, other));
    return {
      proxyWallet: w.address,
      asset: tokenId,
      conditionId: cat.conditionId(p.market),
      size: r4(size),
      avgPrice: r4(avg),
      initialValue: r4(initial),
      currentValue: r4(current),
      cashPnl: r4(current - initial),
      percentPnl: initial > 0 ? r4(((current - initial) / initial) * 100) : 0,
      totalBought: r4(toNumber(p.bought)),
      realizedPnl: r4(toNumber(p.realized)),
      percentRealizedPnl: initial > 0 ? r4((toNumber(p.realized) / initial) * 100) : 0,
      curPrice: r4(cur),
      redeemable: p.market.status === 'resolved',
      mergeable: p.size > 0 && (opposite?.size ?? 0) > 0,
      ...marketText(p.market, p.outcome),
      eventId: cat.eventGammaId(p.market.event),
      oppositeOutcome: other === 0 ? 'Yes' : 'No',
      oppositeAsset: cat.tokenId(p.market, other),
      endDate: p.market.prop.closeTime.toISOString().slice(0, 10),
      negativeRisk: p.market.event.negRisk,
    };
  };

  const rowJson = (r: Row, type: 'activity' | 'trade') => {
    const base = {
      proxyWallet: r.wallet,
      timestamp: Math.floor(r.ms / 1000),
      conditionId: cat.conditionId(r.m),
      size: r4(toNumber(r.size)),
      price: r4(r.price / ONE),
      asset: cat.tokenId(r.m, r.outcome),
      side: r.side,
      ...marketText(r.m, r.outcome),
      ...profile(r.wallet),
      transactionHash: r.tx,
    };
    return type === 'activity'
      ? { ...base, type: 'TRADE', usdcSize: r4((toNumber(r.size) * r.price) / ONE) }
      : base;
  };

  const fillRow = (w: Wallet, f: Fill): Row => ({
    wallet: w.address,
    m: f.market,
    outcome: f.outcome,
    side: f.side,
    size: f.size,
    price: f.price,
    ms: f.timestampMs,
    tx: f.txHash,
    taker: f.taker,
  });

  // A match whose settlement failed on chain never happened: it is on no tape.
  const tradeRows = (t: TradeRecord): Row[] =>
    t.chainStatus === 'FAILED'
      ? []
      : [
          {
            wallet: t.taker.account,
            m: t.market,
            outcome: t.taker.outcome,
            side: t.taker.side,
            size: t.size,
            price: t.price,
            ms: t.ms,
            tx: t.txHash,
            taker: true,
          },
          ...t.makers.map((f) => ({
            wallet: f.order.account,
            m: t.market,
            outcome: f.order.outcome,
            side: f.order.side,
            size: f.size,
            price: f.price,
            ms: t.ms,
            tx: t.txHash,
            taker: false,
          })),
        ];

  const printRow = (m: PmMarket, p: HousePrint): Row => ({
    wallet: HOUSE_ADDRESS,
    m,
    outcome: 0,
    side: p.side,
    size: p.size,
    price: p.price,
    ms: p.ms,
    tx: `0x${hash32(`${m.index}|${p.ms}|${p.price}`).toString(16).padStart(8, '0').repeat(8)}`,
    taker: true,
  });

  const paging = (ctx: Ctx, defaultLimit: number, max: number) => {
    const limit = intParam(ctx.query, 'limit');
    const offset = intParam(ctx.query, 'offset');
    if (limit === null || offset === null) return null;
    return { limit: Math.min(limit ?? defaultLimit, max), offset: offset ?? 0 };
  };

  const bad = (ctx: Ctx, error: string) => send(ctx, 400, { error });

  return [
    {
      method: 'GET',
      path: '/positions',
      handler: (ctx) => {
        const w = userOf(ctx);
        if (w === undefined) return bad(ctx, 'required query param "user" is missing');
        if (w === null) return bad(ctx, 'invalid user address');
        const page = paging(ctx, 100, 500);
        const threshold = Number(ctx.query.get('sizeThreshold') ?? '1');
        if (!page || !Number.isFinite(threshold)) return bad(ctx, 'invalid query parameters');
        const markets = new Set(listParam(ctx.query, 'market').map((c) => c.toLowerCase()));
        const rows = [...w.positions.entries()]
          .filter(([, p]) => p.size > 0 && toNumber(p.size) >= threshold)
          .filter(([, p]) => markets.size === 0 || markets.has(cat.conditionId(p.market)))
          .map(([tokenId, p]) => positionJson(w, tokenId, p));
        const sortBy = ctx.query.get('sortBy') ?? 'TOKENS';
        // A Map: `sortBy` is a query parameter, and `constructor` must be invalid, not Object's.
        const key = new Map<string, (p: ReturnType<typeof positionJson>) => number | string>([
          ['CURRENT', (p) => p.currentValue],
          ['INITIAL', (p) => p.initialValue],
          ['TOKENS', (p) => p.size],
          ['CASHPNL', (p) => p.cashPnl],
          ['PERCENTPNL', (p) => p.percentPnl],
          ['PRICE', (p) => p.curPrice],
          ['AVGPRICE', (p) => p.avgPrice],
          ['TITLE', (p) => p.title],
          ['RESOLVING', (p) => p.endDate],
        ]);
        const pick = key.get(sortBy);
        if (!pick) return bad(ctx, 'invalid sortBy');
        const dir = (ctx.query.get('sortDirection') ?? 'DESC').toUpperCase() === 'ASC' ? 1 : -1;
        rows.sort((a, b) => (pick(a) < pick(b) ? -dir : pick(a) > pick(b) ? dir : 0));
        send(ctx, 200, rows.slice(page.offset, page.offset + page.limit));
      },
    },
    {
      method: 'GET',
      path: '/activity',
      handler: (ctx) => {
        const w = userOf(ctx);
        if (w === undefined) return bad(ctx, 'required query param "user" is missing');
        if (w === null) return bad(ctx, 'invalid user address');
        const page = paging(ctx, 100, 500);
        if (!page) return bad(ctx, 'invalid query parameters');
        const types = listParam(ctx.query, 'type');
        const markets = new Set(listParam(ctx.query, 'market').map((c) => c.toLowerCase()));
        const side = ctx.query.get('side');
        const start = intParam(ctx.query, 'start');
        const end = intParam(ctx.query, 'end');
        const rows = w.fills
          .filter((f) => !f.failed)
          .map((f) => fillRow(w, f))
          .filter(() => types.length === 0 || types.includes('TRADE'))
          .filter((r) => markets.size === 0 || markets.has(cat.conditionId(r.m)))
          .filter((r) => side === null || r.side === side)
          .filter((r) => typeof start !== 'number' || r.ms / 1000 >= start)
          .filter((r) => typeof end !== 'number' || r.ms / 1000 <= end);
        const asc = (ctx.query.get('sortDirection') ?? 'DESC').toUpperCase() === 'ASC';
        rows.sort((a, b) => (asc ? a.ms - b.ms : b.ms - a.ms));
        send(
          ctx,
          200,
          rows.slice(page.offset, page.offset + page.limit).map((r) => rowJson(r, 'activity')),
        );
      },
    },
    {
      method: 'GET',
      path: '/trades',
      handler: (ctx) => {
        const page = paging(ctx, 100, 10_000);
        const takerOnly = boolParam(ctx.query, 'takerOnly');
        const user = userOf(ctx);
        // The docs bound offset to 0..10000: a tape deeper than that cannot be paged to.
        if (!page || page.offset > MAX_TRADES_OFFSET || takerOnly === null || user === null) {
          return bad(ctx, 'invalid query parameters');
        }
        const markets = listParam(ctx.query, 'market')
          .map((c) => cat.byConditionId(c))
          .filter((m): m is PmMarket => m !== undefined);
        const want = page.offset + page.limit;
        let rows: Row[];
        if (user) {
          rows = user.fills
            .filter((f) => !f.failed)
            .map((f) => fillRow(user, f))
            .reverse();
        } else if (markets.length > 0) {
          rows = markets.flatMap((m) =>
            exchange.tape(m, want).flatMap((t) => ('taker' in t ? tradeRows(t) : [printRow(m, t)])),
          );
        } else {
          rows = exchange.recordedTape().slice(0, want).flatMap(tradeRows);
        }
        const side = ctx.query.get('side');
        const marketSet = new Set(markets);
        const filterType = ctx.query.get('filterType');
        const filterAmount = Number(ctx.query.get('filterAmount') ?? '0');
        const filtered = rows
          .filter((r) => takerOnly === false || r.taker)
          .filter((r) => marketSet.size === 0 || marketSet.has(r.m))
          .filter((r) => side === null || r.side === side)
          .filter((r) => {
            if (filterType === 'CASH') return (toNumber(r.size) * r.price) / ONE >= filterAmount;
            if (filterType === 'TOKENS') return toNumber(r.size) >= filterAmount;
            return true;
          })
          .sort((a, b) => b.ms - a.ms);
        send(
          ctx,
          200,
          filtered.slice(page.offset, want).map((r) => rowJson(r, 'trade')),
        );
      },
    },
    {
      method: 'GET',
      path: '/value',
      handler: (ctx) => {
        const w = userOf(ctx);
        if (w === undefined) return bad(ctx, 'required query param "user" is missing');
        if (w === null) return bad(ctx, 'invalid user address');
        let value = 0;
        for (const [tokenId, p] of w.positions)
          if (p.size > 0) value += positionJson(w, tokenId, p).currentValue;
        send(ctx, 200, [{ user: w.address, value: r4(value) }]);
      },
    },
  ];
}
