// The one way test/ runs a fast-check property. On a failure fast-check prints the seed, the path and the shrunk
// counterexample; that counterexample goes into `examples`, which fast-check tries before any random run, so it is
// checked on every run from then on. `examples` is required (an empty list: none was ever found), so every property
// has an obvious home for the next one; test/architecture/property-examples.test.ts enforces that for direct calls.
import fc from 'fast-check';

export type PropertyOptions<Ts> = fc.Parameters<Ts> & { examples: Ts[] };

export function assertProperty<Ts>(property: fc.IProperty<Ts>, options: PropertyOptions<Ts>): void;
export function assertProperty<Ts>(
  property: fc.IAsyncProperty<Ts>,
  options: PropertyOptions<Ts>,
): Promise<void>;
export function assertProperty<Ts>(
  property: fc.IRawProperty<Ts>,
  options: PropertyOptions<Ts>,
): Promise<void> | void {
  return fc.assert(property, { ...options, examples: options.examples });
}
