// The catalogue's markets on the sandbox chain: the simulator, as the oracle, prepares each listed market's binary
// condition for the market's own question id on the real ConditionalTokens contract, and the market then answers to
// the ids the chain gives it (condition id; token ids = the CTF position ids of YES and NO), as Polymarket's markets
// do. A market the world has already resolved gets its payouts reported at once; one resolved later through
// /__sim/chain/resolve is reported then and stops trading. Only the first `limit` markets are listed: every listing
// is a transaction at start-up, and a sandbox catalogue can hold far more markets than anyone splits.
// A neg-risk event's options go through the NegRiskAdapter, as Polymarket's do (Polymarket/neg-risk-ctf-adapter):
// the simulator prepares the event as an adapter market (its market id becomes the event's negRiskMarketID) and
// each option as its next question, in option order, so question id = market id + option index; the adapter is the
// CTF oracle of those conditions and the token ids are its position ids on the wrapped collateral. Markets are
// listed in catalogue order and an event's options are consecutive, so the listed options of an event are always
// its first ones and their question indexes match.
import { type Hex, toHex } from 'viem';
import type { Catalogue, PmMarket } from './catalogue.js';
import type { OnChainCondition, SimChain } from './chain.js';

export async function listCatalogueOnChain(chain: SimChain, cat: Catalogue, limit: number): Promise<void> {
  for (const m of cat.markets.slice(0, limit)) {
    const condition = await prepareOnChain(chain, cat, m);
    cat.listOnChain(m, condition.conditionId, condition.positionIds);
    if (m.status === 'resolved' && m.yesWon !== null) {
      await (chain.resolve(condition.conditionId, m.yesWon ? 'Yes' : 'No') as Promise<Hex>);
    }
  }
}

async function prepareOnChain(chain: SimChain, cat: Catalogue, m: PmMarket): Promise<OnChainCondition> {
  const e = m.event;
  if (!e.negRisk) return chain.prepare(cat.questionId(m) as Hex);
  if (m.optionIndex === 0) {
    const marketId = await chain.prepareNegRiskMarket(toHex(`polymarket-sim|${e.slug}`));
    cat.listNegRiskEventOnChain(e, marketId);
  }
  const condition = await chain.prepareNegRiskQuestion(
    cat.negRiskMarketId(e) as Hex,
    toHex(`polymarket-sim|${m.slug}`),
  );
  if (condition.questionId.toLowerCase() !== cat.questionId(m).toLowerCase())
    throw new Error(
      `sandbox chain: option ${m.slug} got question ${condition.questionId}, not ${cat.questionId(m)}`,
    );
  return condition;
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
