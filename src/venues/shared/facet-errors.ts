// Every adapter's facets are wrapped once here so a venue failure leaves them only as an AppError (through the
// venue's own error table). Stream openers (`open*`) are returned as they are: streams report feed state instead.
import { isAppError } from '../../errors/app-error.js';

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

/**
 * A venue error as one line for ping messages: the mapped AppError's message, which we wrote and which names fields,
 * never values. Anything else is some library's own text, which may quote what it was given (a signing library
 * printed a rejected private key as a decimal): it is replaced by a fixed line.
 */
export function describeVenueError(error: unknown, map: (error: unknown) => unknown): string {
  const mapped = map(error);
  return isAppError(mapped)
    ? mapped.message
    : 'the exchange adapter failed (its own message is withheld: it may quote what was sent)';
}
