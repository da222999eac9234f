// Option labels of two events already aligned across venues (the same competition or question, the same season):
// forms that name one option there but would be unsafe anywhere else. A short label inside a longer one (a city
// inside a full team name, `Boston` / `Boston Celtics`; a surname inside a full name, `Warsh` / `Kevin Warsh`), and a
// Kalshi option code the lexicon knows (`KXMENWORLDCUP-26-BIH` → Bosnia and Herzegovina). Alone, `Boston` could be
// any Boston team and `Warsh` any Warsh; inside one aligned event, where each option is one team or one person, it
// can only be that one (the engine also requires the match to be the only one both ways).
import { kalshiCodeId } from './lexicon.js';

export type OptionForm = 'containment' | 'code';

/** The option code a Kalshi market's ticker ends with (`KXMENWORLDCUP-26-BIH` → `BIH`), or null. */
export function kalshiOptionCode(svcId: string): string | null {
  if (!svcId.startsWith('kalshi:')) return null;
  const at = svcId.lastIndexOf('-');
  const code = at < 0 ? '' : svcId.slice(at + 1);
  return /^[A-Z]{2,4}$/.test(code) ? code : null;
}

/**
 * How option `a` names option `b` inside an aligned event, or null. Options are sorted canonical token lists; a
 * Kalshi side may also be read by its ticker code.
 */
export function optionForm(
  a: readonly string[],
  b: readonly string[],
  aSvcId: string,
  bSvcId: string,
): OptionForm | null {
  if (a.length > 0 && b.length > 0) {
    const [short, long] = a.length <= b.length ? [a, b] : [b, a];
    const set = new Set(long);
    // A label of digits or one letter says nothing about a name (`10–15s`, `A`).
    if (short.every((t) => set.has(t)) && short.some((t) => /[a-z]{3,}/.test(t))) return 'containment';
  }
  const code = (svc: string, other: readonly string[]) => {
    const c = kalshiOptionCode(svc);
    const id = c === null ? null : kalshiCodeId(c);
    return id !== null && other.includes(id);
  };
  if (code(aSvcId, b) || code(bSvcId, a)) return 'code';
  return null;
}
