import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createWorld, VENUES } from '../../../sim/shared/world.js';

test('the same seed builds the same world; another seed a different one', () => {
  assert.deepEqual(
    createWorld({ seed: 7, size: 50 }).propositions,
    createWorld({ seed: 7, size: 50 }).propositions,
  );
  assert.notDeepEqual(
    createWorld({ seed: 7, size: 50 }).propositions,
    createWorld({ seed: 8, size: 50 }).propositions,
  );
});

test('every proposition is listed somewhere, and venues overlap so matching has ground truth', () => {
  const world = createWorld({ size: 400 });
  assert.ok(world.propositions.every((p) => p.venues.length > 0));
  for (const a of VENUES) {
    for (const b of VENUES) {
      if (a >= b) continue;
      const shared = world.listedOn(a).filter((p) => p.venues.includes(b));
      assert.ok(shared.length > 20, `${a} and ${b} share only ${shared.length} propositions`);
    }
  }
});

test('invariants: probabilities in (0,1), multi-option fair values sum to 1, resolved ones name a winner', () => {
  for (const p of createWorld({ size: 500 }).propositions) {
    assert.ok(p.openTime < p.closeTime);
    if (p.shape.kind === 'binary') assert.ok(p.shape.fairYes > 0 && p.shape.fairYes < 1);
    else assert.ok(Math.abs(p.shape.options.reduce((s, o) => s + o.fair, 0) - 1) < 1e-9);
    assert.equal(p.winner !== null, p.status === 'resolved', p.id);
  }
});
