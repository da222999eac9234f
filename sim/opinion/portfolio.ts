// Renders an account's positions, trades and balance in the OpenAPI's field names (the official generated
// client's types). Balances are "formatted with decimals" (human units); a trade's fee is wei as a JSON
// number with a formatted twin.
import { formatUnits } from 'viem';
import type { OpinionAccount, SimPosition, SimTrade } from './accounts.js';
import { USDT_DECIMALS } from './accounts.js';
import { decimal, midMills } from './book.js';
import { BSC_USDT, CHAIN_ID, STATUS_ENUM, type TradableMarket } from './catalogue.js';
import { hex32 } from './phrasing.js';

function currentPrice(seed: number, market: TradableMarket, side: 'yes' | 'no', step: number): number {
  if (market.status === 4) {
    const winner = market.resultTokenId === (side === 'yes' ? market.yesTokenId : market.noTokenId);
    return winner ? 1 : 0;
  }
  const yes = midMills(seed, market, step) / 1000;
  return side === 'yes' ? yes : 1 - yes;
}

const outcomeOf = (side: 'yes' | 'no') => (side === 'yes' ? 'Yes' : 'No');

function root(market: TradableMarket): { rootMarketId: number; rootMarketTitle: string } {
  // Order, position and trade documents name a categorical child's parent as its root; 0 means none.
  return market.parent
    ? { rootMarketId: market.parent.marketId, rootMarketTitle: market.parent.title }
    : { rootMarketId: 0, rootMarketTitle: '' };
}

export function renderPosition(seed: number, p: SimPosition, step: number): Record<string, unknown> {
  const { market, side, shares, avgPrice } = p;
  const price = currentPrice(seed, market, side, step);
  const value = shares * price;
  const cost = shares * avgPrice;
  return {
    avgEntryPrice: decimal(avgPrice, 6),
    claimStatus: 0,
    claimStatusEnum: 'CanNotClaim',
    conditionId: hex32('condition', seed, market.marketId),
    currentValueInQuoteToken: decimal(value, 6),
    dailyPnlChange: '0',
    dailyPnlChangePercent: '0',
    marketCutoffAt: Math.floor((market.parent?.prop ?? market.prop).closeTime.getTime() / 1000),
    marketId: market.marketId,
    marketStatus: market.status,
    marketStatusEnum: STATUS_ENUM[market.status],
    marketTitle: market.title,
    outcome: outcomeOf(side),
    outcomeSide: side === 'yes' ? 1 : 2,
    outcomeSideEnum: outcomeOf(side),
    quoteToken: BSC_USDT,
    ...root(market),
    sharesFrozen: '0',
    sharesOwned: decimal(shares, 6),
    tokenId: side === 'yes' ? market.yesTokenId : market.noTokenId,
    unrealizedPnl: decimal(value - cost, 6),
    unrealizedPnlPercent: decimal(cost > 0 ? ((value - cost) / cost) * 100 : 0, 2),
  };
}

export function renderTrade(t: SimTrade): Record<string, unknown> {
  const amount = t.shares * t.price;
  return {
    amount: decimal(amount, 6),
    chainId: CHAIN_ID,
    createdAt: t.createdAt,
    fee: Number(t.feeWei ?? BigInt(Math.round(t.fee * 1e6)) * 10n ** 12n),
    feeFormatted: decimal(t.fee, 6),
    marketId: t.market.marketId,
    marketTitle: t.market.title,
    orderNo: t.orderNo,
    outcome: outcomeOf(t.side),
    outcomeSide: t.side === 'yes' ? 1 : 2,
    outcomeSideEnum: outcomeOf(t.side),
    price: decimal(t.price, 6),
    profit: '0',
    quoteToken: BSC_USDT,
    quoteTokenUsdPrice: '1',
    ...root(t.market),
    shares: decimal(t.shares, 6),
    side: t.dir === 'buy' ? 'Buy' : 'Sell',
    status: 2,
    statusEnum: 'Finished',
    tradeNo: t.tradeNo,
    txHash: t.txHash,
    usdAmount: decimal(amount, 6),
  };
}

export function renderBalance(account: OpinionAccount): Record<string, unknown> {
  const total = formatUnits(account.balance, USDT_DECIMALS);
  return {
    balances: [
      {
        availableBalance: formatUnits(account.balance - account.frozen, USDT_DECIMALS),
        frozenBalance: formatUnits(account.frozen, USDT_DECIMALS),
        quoteToken: BSC_USDT,
        tokenDecimals: USDT_DECIMALS,
        totalBalance: total,
      },
    ],
    chainId: CHAIN_ID,
    multiSignAddress: account.multisig,
    walletAddress: account.wallet,
  };
}
