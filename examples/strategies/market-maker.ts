// A simple market maker for `omnibook backtest` (docs/replay.md): on each recorded book it quotes one bid at the
// best bid and, while it holds shares, one ask at the best ask, replacing both every `every` steps. It trades only
// through the SDK client, as it would against a live server.
//   omnibook backtest examples/strategies/market-maker.ts --from T0 --to T1 --param size=10 --param max=50
import type { Strategy, StrategyContext } from '../../src/cli/backtest/strategy.js';

export default function marketMaker(params: ReadonlyMap<string, string>): Strategy {
  const size = Number(params.get('size') ?? '10');
  const maxInventory = Number(params.get('max') ?? '50');
  const every = Number(params.get('every') ?? '1');
  const quote = async (ctx: StrategyContext, market: StrategyContext['markets'][number], outcome: string) => {
    const { client } = ctx;
    const exchange = market.exchange as 'polymarket';
    let book: Awaited<ReturnType<typeof client.orderbook>>;
    try {
      book = await client.orderbook({ svc_id: market.svc_id, outcome });
    } catch {
      return; // nothing recorded for this book yet
    }
    const bid = book.bids[0]?.[0];
    const ask = book.asks[0]?.[0];
    if (bid === undefined || ask === undefined || ask - bid <= 0) return;
    const open = await client.listOrders({ exchange, market_id: market.market_id });
    for (const order of open) {
      if (order.status === 'open' || order.status === 'partially_filled') {
        await client.cancelOrder(order.id, { exchange });
      }
    }
    const positions = await client.positions({ exchange, market_id: market.market_id });
    const held = positions.find((p) => p.outcome.toLowerCase() === outcome.toLowerCase())?.size ?? 0;
    const order = (side: 'buy' | 'sell', price: number, amount: number) =>
      client.placeOrder(
        { exchange },
        { market_id: market.market_id, outcome, side, price, size: amount, params: { order_type: 'gtc' } },
      );
    if (held < maxInventory) await order('buy', bid, size);
    if (held > 0) await order('sell', ask, Math.min(held, size));
  };
  return {
    name: 'market-maker',
    async onStep(ctx, step) {
      if (step.step % every !== 0) return;
      for (const market of ctx.markets) {
        const outcome = market.outcomes[0];
        if (outcome) await quote(ctx, market, outcome);
      }
    },
  };
}
