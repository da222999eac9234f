// Contract: shutting a venue down. The server closes every adapter at stop and the sandbox then closes the
// simulator (which may close the adapter again): closing twice must be harmless and must free the simulator.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { registeredVenues, startVenue } from './harness.js';

for (const id of registeredVenues()) {
  test(`${id}: the adapter closes twice without error and the simulator stops listening`, async () => {
    const venue = await startVenue(id, { size: 20 });
    assert.ok((await venue.sim.manifest()) !== undefined);
    await venue.adapter.close?.();
    await venue.adapter.close?.();
    await venue.close();
    const refused = await fetch(`${venue.controlUrl}/__sim/manifest`).then(
      () => false,
      () => true,
    );
    assert.ok(refused, 'the simulator still answers after close');
  });
}
