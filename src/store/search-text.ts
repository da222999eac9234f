// How keyword text is folded and split, shared by what is indexed and what is asked, so both dialects agree:
// SQLite's FTS5 (unicode61, diacritics removed) and PostgreSQL's 'simple' tsvector over the same folded words.

/** A query word: whole-word by default, a prefix when the client ended it with `*`. */
export interface SearchWord {
  text: string;
  prefix: boolean;
}

const WORD = /[\p{L}\p{N}]+\*?/gu;
const TOKEN = /[\p{L}\p{N}]+/gu;
const MARKS = /\p{M}+/gu;

export function foldText(text: string): string {
  return text.normalize('NFKD').replace(MARKS, '').toLowerCase();
}

/** Folded words separated by single spaces: what PostgreSQL indexes, so its parser sees plain words only. */
export function indexWords(text: string): string {
  return (foldText(text).match(TOKEN) ?? []).join(' ');
}

/** At most `max` distinct words; duplicates add nothing to an all-words match. */
export function parseSearchWords(search: string, max = 16): SearchWord[] {
  const seen = new Set<string>();
  const words: SearchWord[] = [];
  for (const raw of foldText(search).match(WORD) ?? []) {
    const prefix = raw.endsWith('*');
    const text = prefix ? raw.slice(0, -1) : raw;
    const key = `${text}${prefix ? '*' : ''}`;
    if (seen.has(key)) continue;
    seen.add(key);
    words.push({ text, prefix });
    if (words.length === max) break;
  }
  return words;
}

/** FTS5 expression requiring every word; words are quoted, so nothing a client types is FTS syntax. */
export function ftsAllWords(words: readonly SearchWord[]): string {
  return words.map((w) => `"${w.text}"${w.prefix ? '*' : ''}`).join(' AND ');
}

/** tsquery text requiring every word; words are letters and digits only, so the text is always valid. */
export function tsAllWords(words: readonly SearchWord[]): string {
  return words.map((w) => `'${w.text}'${w.prefix ? ':*' : ''}`).join(' & ');
}

/** tsquery text requiring any one of the words. */
export function tsAnyWord(words: readonly SearchWord[]): string {
  return words.map((w) => `'${w.text}'${w.prefix ? ':*' : ''}`).join(' | ');
}
