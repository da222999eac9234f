import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventChannel, StreamOverflowError } from '../../../../src/venues/shared/event-channel.js';

test('delivers pushed events in order to a waiting or a late consumer, then ends', async () => {
  const channel = new EventChannel<number>();
  channel.push(1);
  const seen: number[] = [];
  const reading = (async () => {
    for await (const n of channel) seen.push(n);
  })();
  channel.push(2);
  await new Promise((r) => setImmediate(r));
  channel.push(3);
  channel.end();
  assert.equal(channel.push(4), false, 'pushing after end is refused');
  await reading;
  assert.deepEqual(seen, [1, 2, 3]);
});

test('a consumer too far behind gets StreamOverflowError after the buffered events', async () => {
  const channel = new EventChannel<number>(3);
  for (let i = 0; i < 3; i++) assert.equal(channel.push(i), true);
  assert.equal(channel.push(3), false);
  const seen: number[] = [];
  await assert.rejects(async () => {
    for await (const n of channel) seen.push(n);
  }, StreamOverflowError);
  assert.deepEqual(seen, [0, 1, 2]);
});

test('breaking out of for-await ends the channel, and one channel has one consumer', async () => {
  const channel = new EventChannel<number>();
  channel.push(1);
  channel.push(2);
  for await (const n of channel) {
    assert.equal(n, 1);
    break;
  }
  assert.equal(channel.closed, true);
  assert.throws(() => channel[Symbol.asyncIterator]());
});
