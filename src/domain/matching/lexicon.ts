// Venue phrasing as data: the lexicon of named things the venues write differently (competitions and leagues,
// countries and national teams, settlement indices), each entry with the source it was taken from. The files in
// ./lexicon/ are loaded once at start; an operator adds entries with `matching.lexiconPaths` (files of the same
// form), merged over the built-in ones. The engine's rules stay generic: the lexicon only says which spellings name
// one thing, so `Men's World Cup` and `FIFA World Cup`, `Bosnia and Herzegovina` and `Bosnia-Herzegovina` compare
// as one token.
import { readFileSync } from 'node:fs';
import { type Static, Type } from 'typebox';
import { Compile } from 'typebox/compile';
import { ownValue } from '../own-key.js';
import { contentTokens, fold } from './text.js';

export const LexiconEntry = Type.Object({
  /** The canonical token (letters and digits only): what every name is replaced by. */
  id: Type.String({ pattern: '^[a-z0-9_]+$' }),
  names: Type.Array(Type.String({ minLength: 2 }), { minItems: 1 }),
  /** Each venue's name for it, where known (documentation of the source, not read by the rules). */
  venues: Type.Optional(Type.Record(Type.String(), Type.String())),
  /** Ticker codes Kalshi gives the option in a recorded event (`KXMENWORLDCUP-26-BIH`). */
  kalshi_codes: Type.Optional(Type.Array(Type.String())),
  /**
   * `SERIES-CODE`: the code Kalshi names this option by in one series' tickers (`KXNBA-CLE` for KXNBA-26-CLE, whose
   * yes_sub_title is only the city `Cleveland`). Scoped by series, since codes repeat across leagues (BOS).
   */
  kalshi_options: Type.Optional(Type.Array(Type.String({ pattern: '^[A-Z0-9]+-[A-Z0-9]+$' }))),
  /** Where the entry comes from: a recorded payload, a venue's documentation, a public standard. */
  source: Type.String({ minLength: 8 }),
});
export type LexiconEntry = Static<typeof LexiconEntry>;

export const LexiconFile = Type.Object({
  version: Type.String({ minLength: 1 }),
  about: Type.Optional(Type.String()),
  /**
   * competitions (named events: an entity two markets must share), names (spellings only), settlement (price
   * indices and data sources) or stages (reaching a stage short of winning: `reach the … Finals`, `qualify for`).
   */
  kind: Type.Optional(
    Type.Union([
      Type.Literal('competitions'),
      Type.Literal('names'),
      Type.Literal('settlement'),
      Type.Literal('stages'),
    ]),
  ),
  entries: Type.Array(LexiconEntry),
});
export type LexiconFile = Static<typeof LexiconFile>;

type Kind = 'competitions' | 'names' | 'settlement' | 'stages';

interface Compiled {
  version: string;
  /** Every name of competitions and names, folded → id; one regex tries the longest first. */
  phrase: RegExp | null;
  phraseIds: Map<string, string>;
  entities: Set<string>;
  settlement: RegExp | null;
  settlementIds: Map<string, string>;
  /** Kalshi ticker codes of an option (`BIH`) → the entry's id. */
  kalshiCodes: Map<string, string>;
  kalshiOptions: Map<string, string>;
  /** Stage phrases: each replaced by `stage<id>` (one word: tokens split at `_`), the words `…` stood for kept. */
  stages: Array<{ re: RegExp; token: string }>;
  stageTokens: Map<string, string>;
}

const checkFile = Compile(LexiconFile);

function readLexiconFile(url: URL | string): LexiconFile {
  const value: unknown = JSON.parse(readFileSync(url, 'utf8'));
  if (!checkFile.Check(value)) {
    const first = [...checkFile.Errors(value)][0];
    throw new Error(
      `lexicon ${String(url)}: ${first ? `${first.instancePath} ${first.message}` : 'invalid'}`,
    );
  }
  return value;
}

const BUILT_IN: ReadonlyArray<readonly [string, Kind]> = [
  ['competitions.json', 'competitions'],
  ['countries.json', 'names'],
  ['teams.json', 'names'],
  ['settlement-sources.json', 'settlement'],
  ['stages.json', 'stages'],
];

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function alternation(names: Iterable<string>): RegExp | null {
  const list = [...new Set(names)].sort((a, b) => b.length - a.length || a.localeCompare(b));
  if (list.length === 0) return null;
  // A name starts and ends at a word's edge; `_` (an id already written, `manchester_city`) and `-` (a hyphenated
  // word, `inter-bank`) are inside a word, so a short name (`inter`) is never read out of one.
  return new RegExp(`(?<![a-z0-9_-])(?:${list.map(escapeRegex).join('|')})(?![a-z0-9_-])`, 'g');
}

function compile(files: ReadonlyArray<{ file: LexiconFile; kind: Kind }>): Compiled {
  const phraseIds = new Map<string, string>();
  const settlementIds = new Map<string, string>();
  const entities = new Set<string>();
  const kalshiCodes = new Map<string, string>();
  const kalshiOptions = new Map<string, string>();
  const versions: string[] = [];
  const stages: Compiled['stages'] = [];
  const stageTokens = new Map<string, string>();
  for (const { file, kind } of files) {
    versions.push(file.version);
    for (const e of file.entries) {
      if (kind === 'stages') {
        // As the tokenizer leaves it (stemmed: `stageplayoffs` is `stageplayoff`), so a token is found as written.
        const token = contentTokens(`${STAGE_PREFIX}${e.id.replace(/_/g, '')}`)[0] ?? STAGE_PREFIX;
        stageTokens.set(token, e.id);
        for (const name of e.names) stages.push({ re: stagePattern(name), token });
        continue;
      }
      const target = kind === 'settlement' ? settlementIds : phraseIds;
      for (const name of e.names) target.set(fold(name).replace(/\s+/g, ' ').trim(), e.id);
      for (const code of e.kalshi_codes ?? []) kalshiCodes.set(code.toUpperCase(), e.id);
      for (const key of e.kalshi_options ?? []) kalshiOptions.set(key, e.id);
      if (kind === 'competitions') entities.add(e.id);
    }
  }
  return {
    version: versions.join('+'),
    phrase: alternation(phraseIds.keys()),
    phraseIds,
    entities,
    settlement: alternation(settlementIds.keys()),
    settlementIds,
    kalshiCodes,
    kalshiOptions,
    // Longest phrase first, so `reach the … finals` is tried before `reach the … final`.
    stages: stages.sort((a, b) => b.re.source.length - a.re.source.length),
    stageTokens,
  };
}

const STAGE_PREFIX = 'stage';

/** A stage phrase as a regex: `…` is up to four words, kept (group 1) where the phrase is replaced. */
function stagePattern(name: string): RegExp {
  const [head = '', tail] = fold(name)
    .replace(/\s+/g, ' ')
    .trim()
    .split(/\s*(?:…|\.\.\.)\s*/); // fold spells `…` as `...`
  const words = tail === undefined ? '()' : `\\s+((?:[a-z0-9'._]+\\s+){0,4}?)${escapeRegex(tail)}`;
  return new RegExp(`(?<![a-z0-9_-])${escapeRegex(head)}${words}(?![a-z0-9_-])`, 'g');
}

/** Folded text with each stage phrase replaced by its token (`reach the 2026 nba finals` → `stagefinal 2026 nba`). */
export function applyStages(folded: string): string {
  let out = folded;
  for (const { re, token } of active.stages) out = out.replace(re, ` ${token} $1 `);
  return out;
}

/** The stage a token names (`stagefinal` → final), or null. */
export function stageOf(token: string): string | null {
  return active.stageTokens.get(token) ?? null;
}

function builtIn(): Array<{ file: LexiconFile; kind: Kind }> {
  return BUILT_IN.map(([name, kind]) => ({
    file: readLexiconFile(new URL(`./lexicon/${name}`, import.meta.url)),
    kind,
  }));
}

const ONE_WORD = /^[a-z0-9]+$/;

let active: Compiled = compile(builtIn());

/**
 * Adds an operator's lexicon files (same form as ./lexicon/*.json; `kind` says which list an entry joins, names by
 * default) over the built-in ones. Called once at start, before any market is linked: the lexicon's version is part
 * of every market's fingerprint, so a changed lexicon relinks everything on the next pass.
 */
export function loadLexicon(paths: readonly string[]): void {
  const extra = paths.map((p) => {
    const file = readLexiconFile(p);
    return { file, kind: file.kind ?? ('names' as Kind) };
  });
  active = compile([...builtIn(), ...extra]);
}

export function lexiconVersion(): string {
  return active.version;
}

/** Folded text with every lexicon name replaced by its id (padded with spaces so words stay apart). */
export function applyLexicon(folded: string): string {
  const re = active.phrase;
  if (re === null) return folded;
  // One word (names are tokenized a word at a time): a map lookup, not the regex.
  if (ONE_WORD.test(folded)) {
    const id = active.phraseIds.get(folded);
    return id === undefined ? folded : ` ${id} `;
  }
  return folded.replace(re, (m) => ` ${active.phraseIds.get(m.replace(/\s+/g, ' ')) ?? m} `);
}

/** The id a Kalshi option code stands for (`BIH` → bosniaherzegovina), from the entries' `kalshi_codes`. */
export function kalshiCodeId(code: string): string | null {
  return active.kalshiCodes.get(code.toUpperCase()) ?? null;
}

/**
 * The option a Kalshi ticker names by its series and last code (`KXNBA-26-LAL` → `los_angeles_lakers`), as the
 * lexicon's `kalshi_options` list it; null when the series or the code is not listed.
 */
export function kalshiOptionId(ticker: string): string | null {
  const parts = ticker.toUpperCase().split('-');
  if (parts.length < 2) return null;
  return active.kalshiOptions.get(`${parts[0]}-${parts[parts.length - 1]}`) ?? null;
}

/** Competition ids: named events two markets must share to be about the same thing. */
export function isLexiconEntity(token: string): boolean {
  return active.entities.has(token);
}

/** The settlement sources folded text names (ids, sorted, unique). */
export function settlementSources(folded: string): string[] {
  const re = active.settlement;
  if (re === null) return [];
  const out = new Set<string>();
  for (const m of folded.matchAll(re)) {
    const id = active.settlementIds.get(m[0].replace(/\s+/g, ' '));
    if (id) out.add(id);
  }
  return [...out].sort();
}

export const KalshiTickerEntry = Type.Object({
  series: Type.String({ minLength: 1 }),
  pattern: Type.String({ minLength: 1 }),
  title: Type.String({ minLength: 1 }),
  codes: Type.Optional(Type.Record(Type.String(), Type.String())),
  source: Type.String({ minLength: 8 }),
});
const KalshiTickerFile = Type.Object({
  version: Type.String(),
  about: Type.Optional(Type.String()),
  entries: Type.Array(KalshiTickerEntry),
});
const checkTickers = Compile(KalshiTickerFile);

const MONTHS: Readonly<Record<string, string>> = {
  JAN: 'January',
  FEB: 'February',
  MAR: 'March',
  APR: 'April',
  MAY: 'May',
  JUN: 'June',
  JUL: 'July',
  AUG: 'August',
  SEP: 'September',
  OCT: 'October',
  NOV: 'November',
  DEC: 'December',
};

const tickerGrammars = (() => {
  const value: unknown = JSON.parse(
    readFileSync(new URL('./lexicon/kalshi-tickers.json', import.meta.url), 'utf8'),
  );
  if (!checkTickers.Check(value)) throw new Error('lexicon kalshi-tickers.json: invalid');
  return value.entries.map((e) => ({ ...e, re: new RegExp(e.pattern) }));
})();

/**
 * The title Kalshi gives a market, rebuilt from its ticker by the series' recorded grammar, for a market known only
 * by its ticker; null when no grammar fits.
 */
export function kalshiTitleFromTicker(ticker: string): string | null {
  for (const g of tickerGrammars) {
    const m = g.re.exec(ticker);
    if (!m) continue;
    let ok = true;
    const title = g.title.replace(/\{(?:(month|map):)?(\d+)\}/g, (_, kind: string | undefined, n: string) => {
      const v = m[Number(n)] ?? '';
      const out =
        kind === 'month'
          ? ownValue(MONTHS, v)
          : kind === 'map'
            ? g.codes
              ? ownValue(g.codes, v)
              : undefined
            : v;
      if (out === undefined || out === '') ok = false;
      return out ?? '';
    });
    if (ok) return title;
  }
  return null;
}
