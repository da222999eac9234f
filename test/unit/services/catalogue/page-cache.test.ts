// The page cache: a page is served while the store's write generation is the one it was computed at, however old;
// a write drops it; least recently used pages go first when the bytes run out.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PageCache } from '../../../../src/services/catalogue/page-cache.js';

const page = (text: string) => Buffer.from(text.padEnd(10, '.'));

test('served at the generation it was computed at, dropped after a write', () => {
  const cache = new PageCache(1_000);
  cache.set('q', 3, page('a'));
  assert.equal(cache.get('q', 3)?.toString(), 'a.........');
  assert.equal(cache.get('q', 4), undefined, 'the store wrote since');
  assert.equal(cache.get('q', 3), undefined, 'and it is gone');
  assert.deepEqual(cache.size, { entries: 0, bytes: 0 });
});

test('the least recently used page goes first when the bytes run out; an oversized page is not kept', () => {
  const cache = new PageCache(40);
  cache.set('a', 0, page('a'));
  cache.set('b', 0, page('b'));
  cache.set('c', 0, page('c'));
  cache.set('d', 0, page('d'));
  assert.ok(cache.get('a', 0), 'a used again: b is now the oldest');
  cache.set('e', 0, page('e'));
  assert.equal(cache.get('b', 0), undefined);
  assert.ok(cache.get('a', 0));
  assert.ok(cache.get('e', 0));
  assert.deepEqual(cache.size, { entries: 4, bytes: 40 });
  cache.set('big', 0, Buffer.alloc(11));
  assert.equal(cache.get('big', 0), undefined, 'more than a quarter of the budget');
  cache.set('a', 0, page('A'));
  assert.equal(cache.get('a', 0)?.toString(), 'A.........', 'replaced, not counted twice');
  assert.deepEqual(cache.size, { entries: 4, bytes: 40 });
});
