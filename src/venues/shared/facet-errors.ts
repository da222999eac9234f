// Every adapter's facets are wrapped once here so a venue failure leaves them only as an AppError (through the
// venue's own error table). Stream openers (`open*`) are returned as they are: streams report feed state instead.

/** Maps any error a facet method threw; `method` lets a venue pick a context (e.g. market vs account errors). */
export type FacetErrorMapper = (error: unknown, method: string) => unknown;

export function withMappedErrors<T extends object>(facet: T, map: FacetErrorMapper): T {
  const wrapped = Object.entries(facet).map(([name, fn]): [string, unknown] => {
    if (typeof fn !== 'function' || name.startsWith('open')) return [name, fn];
    const call = async (...args: unknown[]) => {
      try {
        return await (fn as (...a: unknown[]) => Promise<unknown>).apply(facet, args);
      } catch (error) {
        throw map(error, name);
      }
    };
    return [name, call];
  });
  return Object.fromEntries(wrapped) as T;
}

/** A venue error as one line for ping messages: the mapped AppError's message. */
export function describeVenueError(error: unknown, map: (error: unknown) => unknown): string {
  const mapped = map(error);
  return mapped instanceof Error ? mapped.message : String(mapped);
}
