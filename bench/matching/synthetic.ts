// Markets phrased exactly as the simulators phrase the shared world, built in memory (no HTTP walk), for timing
// the engine at 100k and 1M markets and for the incremental-equals-full property test. Each market carries the
// ground-truth key of its proposition (and option) beside the fields matching reads.

import { phrase as kalshiPhrase } from '../../sim/kalshi/phrasing.js';
import { marketTitle as limitlessTitle } from '../../sim/limitless/catalog.js';
import { opinionRules, opinionTitle } from '../../sim/opinion/phrasing.js';
import { phraseEvent, phraseOption } from '../../sim/polymarket/phrasing.js';
import { phrase as predictfunPhrase } from '../../sim/predictfun/catalog.js';
import { createWorld, type Proposition, propositionKey, type World } from '../../sim/shared/world.js';
import type { ExchangeId } from '../../src/domain/exchanges.js';
import type { MatchInput } from '../../src/domain/matching/features.js';

export interface SyntheticMarket extends MatchInput {
  key: string;
}

function options(p: Proposition): string[] {
  return p.shape.kind === 'multi' ? p.shape.options.map((o) => o.name) : [];
}

function* marketsOf(p: Proposition, venue: ExchangeId): Generator<SyntheticMarket> {
  const end = p.closeTime.toISOString();
  const multi = options(p);
  switch (venue) {
    case 'polymarket': {
      const ev = phraseEvent(p);
      if (multi.length === 0) {
        yield {
          svc_id: `polymarket:${p.id}`,
          exchange: venue,
          question: ev.question,
          group_title: ev.question,
          svc_group_id: `polymarket:${p.id}`,
          description: ev.description,
          end_date: end,
          key: propositionKey(p),
        };
        return;
      }
      for (const o of multi) {
        const ph = phraseOption(p, o);
        yield {
          svc_id: `polymarket:${p.id}-${o}`,
          exchange: venue,
          question: ph.question,
          group_title: ev.question,
          svc_group_id: `polymarket:${p.id}`,
          description: ph.description,
          end_date: end,
          key: propositionKey(p, o),
        };
      }
      return;
    }
    case 'kalshi': {
      const k = kalshiPhrase(p);
      for (const m of k.markets) {
        const ticker = `${k.eventBase}-${m.suffix}`;
        yield {
          svc_id: `kalshi:${ticker}-${p.id}`,
          exchange: venue,
          exchange_market_id: ticker,
          question: m.title,
          group_title: k.eventTitle,
          svc_group_id: `kalshi:${k.eventBase}-${p.id}`,
          rules: m.rules,
          description: m.rules,
          end_date: end,
          key: m.key,
        };
      }
      return;
    }
    case 'limitless': {
      if (multi.length === 0) {
        yield {
          svc_id: `limitless:${p.id}`,
          exchange: venue,
          question: limitlessTitle(p),
          end_date: end,
          key: propositionKey(p),
        };
        return;
      }
      const group = `Who will win the ${p.subject} election?`;
      for (const o of multi) {
        yield {
          svc_id: `limitless:${p.id}-${o}`,
          exchange: venue,
          question: o,
          group_title: group,
          svc_group_id: `limitless:${p.id}`,
          end_date: end,
          key: propositionKey(p, o),
        };
      }
      return;
    }
    case 'opinion': {
      const title = opinionTitle(p);
      const rules = opinionRules(p);
      if (multi.length === 0) {
        yield {
          svc_id: `opinion:${p.id}`,
          exchange: venue,
          question: title,
          group_title: title,
          rules,
          description: rules,
          end_date: end,
          key: propositionKey(p),
        };
        return;
      }
      for (const o of multi) {
        yield {
          svc_id: `opinion:${p.id}-${o}`,
          exchange: venue,
          question: `${title} - ${o}`,
          group_title: title,
          svc_group_id: `opinion:${p.id}`,
          rules,
          description: rules,
          end_date: end,
          key: propositionKey(p, o),
        };
      }
      return;
    }
    default: {
      const refs = multi.length === 0 ? [null] : multi;
      for (const [i, o] of refs.entries()) {
        const ref = {
          category: { prop: p },
          id: i,
          option: o === null ? null : { name: o, fair: 0.5, index: i },
          fairYes: 0.5,
        };
        const ph = predictfunPhrase(ref as unknown as Parameters<typeof predictfunPhrase>[0]);
        yield {
          svc_id: `predictfun:${p.id}-${i}`,
          exchange: 'predictfun',
          question: ph.question,
          group_title: ph.categoryTitle,
          svc_group_id: `predictfun:${p.id}`,
          end_date: end,
          key: o === null ? propositionKey(p) : propositionKey(p, o),
        };
      }
    }
  }
}

/** Every market of the worlds as the five venues list them. */
export function* syntheticMarkets(worlds: World | readonly World[]): Generator<SyntheticMarket> {
  for (const [i, world] of (Array.isArray(worlds) ? worlds : [worlds]).entries())
    yield* worldMarkets(world, i);
}

/** The markets of the i-th world of a catalogue; propositions past the first world are renamed apart. */
function* worldMarkets(world: World, i: number): Generator<SyntheticMarket> {
  for (const p of world.propositions) {
    const prop = i === 0 ? p : { ...p, id: `${p.id}-w${i}` };
    for (const v of p.venues) yield* marketsOf(prop, v);
  }
}

/** Propositions per world: about as many as one venue-year of a real catalogue holds on these few subjects. */
const WORLD_SIZE = 3_000;

/**
 * Worlds for about `markets` markets (each proposition is listed about 2.9 times). One simulator world has only a
 * few coins, cities and candidates; scaled up alone it would repeat the same propositions thousands of times,
 * which no catalogue does. So a large catalogue is many worlds, each `WORLD_SIZE` propositions, each moved a
 * year further into the future, so that each block holds what a real one would.
 */
export function worldsFor(markets: number, seed = 7): World[] {
  const total = Math.max(1, Math.round(markets / 2.9));
  const worlds: World[] = [];
  for (let i = 0; i * WORLD_SIZE < total; i++) worlds.push(worldAt(total, i, seed));
  return worlds;
}

function worldAt(total: number, i: number, seed: number): World {
  const size = Math.min(WORLD_SIZE, total - i * WORLD_SIZE);
  return createWorld({ seed: seed + i, size, now: new Date(Date.UTC(2026 + i, 10, 22, 12)) });
}

/**
 * The markets of `worldsFor(markets, seed)`, each world made when it is reached and dropped after it: a million
 * markets' worlds hold about 460 MiB, which a bench of the engine's memory must not count as the engine's.
 */
export function* catalogueOf(markets: number, seed = 7): Generator<SyntheticMarket> {
  const total = Math.max(1, Math.round(markets / 2.9));
  for (let i = 0; i * WORLD_SIZE < total; i++) yield* worldMarkets(worldAt(total, i, seed), i);
}
