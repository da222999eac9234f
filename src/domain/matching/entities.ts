// Named things that venues spell differently: assets by name, ticker or `$TICKER`, indices, the Fed, a few
// countries. Each maps to one canonical token that replaces every spelling in the text before tokenizing, so
// `Bitcoin`, `BTC`, `$BTC` and Kalshi's `KXBTCD` series all become `btc`. A canonical token is also an *entity*:
// two markets that each name one, and no common one, are about different things.

import { applyLexicon, applyStages, isLexiconEntity } from './lexicon.js';

/** Multi-word spellings, replaced in folded text (longest first). */
const PHRASES: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bfederal reserve(?: board)?\b|\bfed(?:eral)? funds?(?: target)?(?: rate)?\b|\bfomc\b/g, ' fed '],
  [/\bs\s*&\s*p\s*500\b|\bs&p\b|\bsp500\b|\bspx\b/g, ' spx '],
  [/\bnasdaq[- ]?100\b|\bnasdaq composite\b|\bnasdaq\b|\bndx\b/g, ' ndx '],
  [/\bdow jones(?: industrial average)?\b|\bdjia\b/g, ' dji '],
  [/\bcrude oil\b|\bwti\b/g, ' oil '],
  [/\bconsumer price index\b/g, ' cpi '],
  [/\bunited states\b|\bu\.s\.a?\.?(?=\s|$)/g, ' us '],
  [/\bunited kingdom\b|\bu\.k\.(?=\s|$)/g, ' uk '],
  [/\bnew york city\b|\bnyc\b/g, ' new york '],
  [/\bdonald j\.? trump\b/g, ' donald trump '],
  [/\bbinance coin\b/g, ' bnb '],
];

/** Single-word spellings → canonical entity token. */
const ALIASES: ReadonlyMap<string, string> = new Map([
  ['bitcoin', 'btc'],
  ['btc', 'btc'],
  ['xbt', 'btc'],
  ['ethereum', 'eth'],
  ['ether', 'eth'],
  ['eth', 'eth'],
  ['solana', 'sol'],
  ['sol', 'sol'],
  ['xrp', 'xrp'],
  ['ripple', 'xrp'],
  ['dogecoin', 'doge'],
  ['doge', 'doge'],
  ['cardano', 'ada'],
  ['ada', 'ada'],
  ['bnb', 'bnb'],
  ['hyperliquid', 'hype'],
  ['hype', 'hype'],
  ['litecoin', 'ltc'],
  ['ltc', 'ltc'],
  ['avalanche', 'avax'],
  ['avax', 'avax'],
  ['sui', 'sui'],
  ['pepe', 'pepe'],
  ['fed', 'fed'],
  ['spx', 'spx'],
  ['ndx', 'ndx'],
  ['dji', 'dji'],
  ['gold', 'gold'],
  ['xau', 'gold'],
  ['silver', 'silver'],
  ['oil', 'oil'],
  ['cpi', 'cpi'],
  ['gdp', 'gdp'],
  ['nvidia', 'nvda'],
  ['nvda', 'nvda'],
  ['tesla', 'tsla'],
  ['tsla', 'tsla'],
  ['apple', 'aapl'],
  ['aapl', 'aapl'],
  ['microsoft', 'msft'],
  ['msft', 'msft'],
]);

/** Canonical tokens that are entities (compared for contradiction, not only similarity). */
const ENTITY_TOKENS: ReadonlySet<string> = new Set(ALIASES.values());

/** Kalshi series prefixes (after `KX`) that name an entity: `KXBTCD` → btc, `KXFEDDECISION` → fed, `KXINXU` → spx. */
const KALSHI_SERIES: ReadonlyArray<readonly [RegExp, string]> = [
  [/^(?:KX)?BTC/, 'btc'],
  [/^(?:KX)?ETH/, 'eth'],
  [/^(?:KX)?SOL/, 'sol'],
  [/^(?:KX)?XRP/, 'xrp'],
  [/^(?:KX)?DOGE/, 'doge'],
  [/^(?:KX)?FED/, 'fed'],
  [/^(?:KX)?INX/, 'spx'],
  [/^(?:KX)?NASDAQ/, 'ndx'],
  [/^(?:KX)?CPI/, 'cpi'],
  [/^(?:KX)?GDP/, 'gdp'],
];

/**
 * Winning a competition's final (or Finals, the NBA's series) is being its champion: `win the 2026 NBA Finals` asks
 * what `2026 NBA Champion` does, so `finals` reads as `champion` after `win the` (a few words between).
 */
const WIN_THE_FINAL = /\b(win|wins|won|winning)\s+the\s+((?:[a-z0-9'._]+\s+){0,4}?)finals?\b/g;

/** Folded text with multi-word spellings and `$TICKER` replaced by canonical tokens. */
export function canonicalPhrases(folded: string): string {
  // Reaching a stage (`reach the … Finals`, `qualify for`, lexicon/stages.json) reads as one `stage<id>` token.
  let out = applyStages(applyLexicon(folded))
    .replace(/\$([a-z]{2,6})\b/g, ' $1 ')
    .replace(WIN_THE_FINAL, '$1 the $2champion');
  for (const [re, token] of PHRASES) out = out.replace(re, token);
  return out;
}

export function canonicalToken(token: string): string {
  return ALIASES.get(token) ?? token;
}

export function isEntity(token: string): boolean {
  return ENTITY_TOKENS.has(token) || isLexiconEntity(token);
}

/** The entity a Kalshi ticker's series names, if any. */
export function kalshiSeriesEntity(ticker: string): string | null {
  const series = ticker.split('-')[0] ?? '';
  for (const [re, token] of KALSHI_SERIES) if (re.test(series)) return token;
  return null;
}
