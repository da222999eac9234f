// The catalogue's markets on the sandbox chain: the simulator, as the oracle, prepares each listed market's binary
// condition for the market's own question id on the real ConditionalTokens contract, and the market then answers to
// the ids the chain gives it (condition id; token ids = the CTF position ids of YES and NO), as Polymarket's markets
// do. A market the world has already resolved gets its payouts reported at once; one resolved later through
// /__sim/chain/resolve is reported then and stops trading. Only the first `limit` markets are listed: every listing
// is a transaction at start-up, and a sandbox catalogue can hold far more markets than anyone splits.
import type { Hex } from 'viem';
import type { Catalogue, PmMarket } from './catalogue.js';
import type { SimChain } from './chain.js';

export async function listCatalogueOnChain(chain: SimChain, cat: Catalogue, limit: number): Promise<void> {
  for (const m of cat.markets.slice(0, limit)) {
    const condition = await chain.prepare(cat.questionId(m) as Hex);
    cat.listOnChain(m, condition.conditionId, condition.positionIds);
    if (m.status === 'resolved' && m.yesWon !== null) {
      await (chain.resolve(condition.conditionId, m.yesWon ? 'Yes' : 'No') as Promise<Hex>);
    }
  }
}

/** Resolves a listed catalogue market on chain (the oracle reports its payouts) and in the catalogue. */
export async function resolveCatalogueMarket(
  chain: SimChain,
  cat: Catalogue,
  m: PmMarket,
  winner: 'Yes' | 'No',
): Promise<Hex | null> {
  const tx = chain.resolve(cat.conditionId(m), winner);
  if (!tx) return null;
  const hash = await tx;
  cat.markResolved(m, winner === 'Yes');
  return hash;
}
