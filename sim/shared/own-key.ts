// Access to a plain object by a key that is not a compile-time literal (a body field, a query parameter, a header
// name): only own properties count, so `__proto__`, `constructor` or `toString` never answer from Object.prototype.
// The simulators' copy of src/domain/own-key.ts (sim/ imports nothing from src/).

/** The own property `key` of `record`, or undefined; never an inherited one such as `constructor`. */
export function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Sets `key` as an own enumerable data property; with key `__proto__` that is an entry like any other. */
export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(record, key, { value, writable: true, enumerable: true, configurable: true });
}
