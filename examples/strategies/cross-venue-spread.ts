// A cross-venue spread strategy on matched twins for `omnibook backtest` (docs/replay.md): for each recorded market
// with a recorded twin on another exchange (a published same_market link, not inverted), it buys the outcome where
// it is cheaper when its ask is below the twin's bid by more than `edge`, and sells what it holds once its bid
// reaches the twin's ask (the spread has closed). Orders are ioc, so it only ever takes recorded liquidity.
//   omnibook backtest examples/strategies/cross-venue-spread.ts --from T0 --to T1 --param edge=0.02 --param size=20
import type { Strategy, StrategyContext } from '../../src/cli/backtest/strategy.js';

interface Pair {
  a: StrategyContext['markets'][number];
  b: StrategyContext['markets'][number];
  outcome: string;
}

export default function crossVenueSpread(params: ReadonlyMap<string, string>): Strategy {
  const edge = Number(params.get('edge') ?? '0.02');
  const size = Number(params.get('size') ?? '20');
  let pairs: Pair[] = [];
  const top = async (ctx: StrategyContext, svcId: string, outcome: string) => {
    try {
      const book = await ctx.client.orderbook({ svc_id: svcId, outcome });
      return { bid: book.bids[0]?.[0], ask: book.asks[0]?.[0] };
    } catch {
      return null;
    }
  };
  return {
    name: 'cross-venue-spread',
    async start(ctx) {
      const recorded = new Map(ctx.markets.map((m) => [m.svc_id, m]));
      for (const m of ctx.markets) {
        const doc = (await ctx.client.markets({ scope: 'market', svc_id: m.svc_id, include_matches: true }))
          .markets[0];
        for (const link of doc?.matched_markets ?? []) {
          const twin = recorded.get(link.svc_id);
          if (!twin || twin.exchange === m.exchange || m.svc_id > twin.svc_id) continue;
          const outcome = m.outcomes.find((o) => twin.outcomes.includes(o));
          if (outcome) pairs.push({ a: m, b: twin, outcome });
        }
      }
      pairs = pairs.sort((x, y) => (x.a.svc_id < y.a.svc_id ? -1 : 1));
    },
    async onStep(ctx) {
      for (const pair of pairs) {
        const [ta, tb] = [
          await top(ctx, pair.a.svc_id, pair.outcome),
          await top(ctx, pair.b.svc_id, pair.outcome),
        ];
        if (!ta || !tb) continue;
        for (const [leg, mine, other] of [
          [pair.a, ta, tb],
          [pair.b, tb, ta],
        ] as const) {
          const exchange = leg.exchange as 'polymarket';
          const held =
            (await ctx.client.positions({ exchange, market_id: leg.market_id })).find(
              (p) => p.outcome.toLowerCase() === pair.outcome.toLowerCase(),
            )?.size ?? 0;
          const place = (side: 'buy' | 'sell', price: number, amount: number) =>
            ctx.client.placeOrder(
              { exchange },
              {
                market_id: leg.market_id,
                outcome: pair.outcome,
                side,
                price,
                size: amount,
                params: { order_type: 'ioc' },
              },
            );
          if (
            held === 0 &&
            mine.ask !== undefined &&
            other.bid !== undefined &&
            other.bid - mine.ask > edge
          ) {
            await place('buy', mine.ask, size);
          } else if (held > 0 && mine.bid !== undefined && other.ask !== undefined && mine.bid >= other.ask) {
            await place('sell', mine.bid, held);
          }
        }
      }
    },
  };
}
