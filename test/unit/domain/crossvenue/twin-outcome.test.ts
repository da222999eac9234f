// Mapping an outcome through a same_market link: same names either case; an inverted yes/no twin swaps them; and
// anything that cannot be mapped says why instead of guessing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { twinOutcome } from '../../../../src/domain/crossvenue/twin-outcome.js';

test('a twin asked the same way round keeps the outcome, in its own spelling', () => {
  assert.deepEqual(twinOutcome(['Yes', 'No'], 'yes', ['YES', 'NO'], false), { ok: true, name: 'YES' });
  assert.deepEqual(twinOutcome(['Yes', 'No'], 'No', ['Yes', 'No'], false), { ok: true, name: 'No' });
  assert.deepEqual(twinOutcome(['Alice', 'Ben', 'Chen'], 'ben', ['Chen', 'Ben', 'Alice'], false), {
    ok: true,
    name: 'Ben',
  });
});

test('a twin asked the other way round maps yes to no and no to yes', () => {
  assert.deepEqual(twinOutcome(['Yes', 'No'], 'Yes', ['No', 'Yes'], true), { ok: true, name: 'No' });
  assert.deepEqual(twinOutcome(['Yes', 'No'], 'no', ['YES', 'NO'], true), { ok: true, name: 'YES' });
});

test('what cannot be mapped is refused with a reason', () => {
  const refused = (r: ReturnType<typeof twinOutcome>) => assert.equal(r.ok, false);
  refused(twinOutcome(['Yes', 'No'], 'maybe', ['Yes', 'No'], false));
  refused(twinOutcome(['Yes', 'No'], 'Yes', ['Up', 'Down'], false));
  refused(twinOutcome(['Alice', 'Ben'], 'Alice', ['Alice', 'Ben'], true));
  refused(twinOutcome(['Yes', 'No'], 'Yes', ['Yes', 'No', 'Void'], true));
});
