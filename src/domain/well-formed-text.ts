// Strings from outside must be well-formed UTF-16. A lone surrogate (half of a pair, as JSON's "\ud800" escape
// makes) is a string no UTF-8 encoder can write: encodeURIComponent throws URIError (a 500 on a Kalshi market id),
// databases and venues disagree about it. One walk finds it anywhere in a parsed value, names included.

/** With the u flag a paired surrogate is one code point (not Cs): only a lone half matches. */
const LONE_SURROGATE = /\p{Cs}/u;

export function isWellFormedText(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/**
 * Whether any string inside `root` (value or property name) holds a lone surrogate. Iterative: a body may nest arrays
 * thousands deep, which a recursive walk would answer with a stack overflow.
 */
export function holdsMalformedText(root: unknown): boolean {
  const pending: unknown[] = [root];
  for (let value = pending.pop(); value !== undefined; value = pending.pop()) {
    if (typeof value === 'string') {
      if (!isWellFormedText(value)) return true;
    } else if (Array.isArray(value)) {
      for (const item of value) pending.push(item);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (!isWellFormedText(key)) return true;
        pending.push(item);
      }
    }
  }
  return false;
}

/**
 * The client-facing line for such a string in `where` (query, path, body, a header's name). The string's path is
 * not given: it would repeat field names, and a name may be a secret pasted in the wrong place.
 */
export function malformedTextMessage(where: string): string {
  return `${where}: holds text that is not well-formed UTF-16 (a lone surrogate)`;
}
