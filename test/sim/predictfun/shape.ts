// Compares a simulator payload with a recorded one: every key the recording has must be present with the same
// JSON type (null matches any type, since the venue sends null for absent optional values), recursively through
// objects and the first element of arrays.
import assert from 'node:assert/strict';

function kind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

export function assertSameShape(recorded: unknown, actual: unknown, path = '$'): void {
  const want = kind(recorded);
  const got = kind(actual);
  if (want === 'null' || got === 'null') return;
  assert.equal(got, want, `${path}: recorded ${want}, simulator sent ${got}`);
  if (want === 'array') {
    const [r] = recorded as unknown[];
    const [a] = actual as unknown[];
    if (r !== undefined && a !== undefined) assertSameShape(r, a, `${path}[0]`);
    return;
  }
  if (want !== 'object') return;
  const a = actual as Record<string, unknown>;
  for (const [key, value] of Object.entries(recorded as Record<string, unknown>)) {
    assert.ok(key in a, `${path}.${key} is missing`);
    assertSameShape(value, a[key], `${path}.${key}`);
  }
}
