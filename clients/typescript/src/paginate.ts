// Async iteration over a cursor-paged list: one page is fetched at a time, when the consumer has read the previous
// one, so a loop that stops early fetches nothing more and memory holds one page.

export interface Page<T> {
  items: readonly T[];
  /** The cursor of the next page; null or undefined on the last one. */
  next: string | null | undefined;
}

export async function* paginate<T>(
  fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
): AsyncGenerator<T> {
  let cursor: string | undefined;
  const seen = new Set<string>();
  for (;;) {
    const page = await fetchPage(cursor);
    yield* page.items;
    if (!page.next) return;
    // A server that hands back a cursor it gave before would loop forever; stop instead.
    if (seen.has(page.next)) throw new Error(`the server repeated cursor ${page.next}`);
    seen.add(page.next);
    cursor = page.next;
  }
}
