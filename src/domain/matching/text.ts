// Text folding and tokens for matching: one way to turn any venue's wording into comparable words. Folding removes
// case, accents and punctuation; `contentTokens` drops the words every market question uses (will, the, price, …)
// and reduces inflections so `mayoral`/`mayor`, `cuts`/`cut`, `temp`/`temperature` compare equal.

/** Lower case, accents removed, curly quotes and dashes made plain; keeps `$ % ° . , : - + < > =` for parsers. */
export function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[\u2018\u2019\u201b\u2032]/g, "'")
    .replace(/[\u201c\u201d\u201f\u2033]/g, '"')
    .replace(/[\u2010-\u2015\u2212]/g, '-')
    .replace(/\u2265/g, '>=')
    .replace(/\u2264/g, '<=')
    .toLowerCase();
}

/** Words every market question uses, or words whose meaning the structured fields carry (comparators, verbs). */
const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a an the of in on at by to for from with and or nor but is are was were be been being will would shall should ' +
    'can could may might do does did has have had this that these those it its their his her they them there here ' +
    'what which who whom whose when where why how yes no not than then as if into about after before until till ' +
    'during per via vs versus v market markets resolve resolves resolved resolution question outcome price ' +
    'above below over under more less greater higher lower least most exceed exceeds exceeding between ' +
    'close closes closing end ends ending reach reaches hit hits touch touches official officially ' +
    'win wins winner winners won winning beat beats defeat defeats any other another next ' +
    'utc et est edt pt pst gmt am pm st nd rd th day days week weeks month months year years today tomorrow'
  ).split(' '),
);

/** Equivalent spellings folded onto one token (a deliberately short list; entities.ts holds the named things). */
const SYNONYMS: ReadonlyMap<string, string> = new Map([
  ['temp', 'temperature'],
  ['temps', 'temperature'],
  ['highest', 'high'],
  ['lowest', 'low'],
  ['mayoral', 'mayor'],
  ['mayorship', 'mayor'],
  ['presidential', 'president'],
  ['presidency', 'president'],
  ['gubernatorial', 'governor'],
  ['senatorial', 'senate'],
  ['elected', 'election'],
  ['elect', 'election'],
  ['elections', 'election'],
  ['nominee', 'nomination'],
  ['nominated', 'nomination'],
  ['nominate', 'nomination'],
  ['republican', 'gop'],
  ['republicans', 'gop'],
  ['democrat', 'democratic'],
  ['democrats', 'democratic'],
  ['dem', 'democratic'],
  ['dems', 'democratic'],
  ['usa', 'us'],
  ['america', 'us'],
  ['american', 'us'],
  ['u.s', 'us'],
  ['unitedstates', 'us'],
  ['rates', 'rate'],
  ['cuts', 'cut'],
  ['holds', 'hold'],
  ['hikes', 'hike'],
  ['degrees', 'degree'],
]);

/** A light stem: plural and third-person `s` off longer words, so `games`/`game` and `cuts`/`cut` meet. */
function stem(word: string): string {
  const known = SYNONYMS.get(word);
  if (known !== undefined) return known;
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us'))
    return word.slice(0, -1);
  return word;
}

/** Words of folded text: letters and digits only. */
export function words(folded: string): string[] {
  return folded.split(/[^a-z0-9]+/).filter((w) => w.length > 0);
}

/** Content tokens: no stopwords, no bare numbers (numbers are parsed, never compared as words), stemmed. */
export function contentTokens(folded: string): string[] {
  const out: string[] = [];
  for (const w of words(folded)) {
    if (STOPWORDS.has(w) || /^\d/.test(w) || w.length < 2) continue;
    const s = stem(w);
    if (!STOPWORDS.has(s)) out.push(s);
  }
  return out;
}

export function isStopword(word: string): boolean {
  return STOPWORDS.has(word);
}
