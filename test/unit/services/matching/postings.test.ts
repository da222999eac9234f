import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Postings } from '../../../../src/services/matching/postings.js';

// A Map of arrays is the reference: the postings must hold the same lists in the same order through adds, removals
// (which move the last id into the removed one's place) and the table's growth past its tombstones.
test('postings hold what a map of lists holds, in the same order, through removals and growth', () => {
  const p = new Postings();
  const ref = new Map<string, number[]>();
  let seed = 7;
  const rand = (n: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  const key = (k: number) => `tok${k}|d:2026-07-${String(k % 28).padStart(2, '0')}|gt:${k * 3}`;
  for (let step = 0; step < 60_000; step++) {
    const k = key(rand(3_000));
    const id = rand(200);
    const list = ref.get(k) ?? [];
    if (rand(3) === 0) {
      p.remove(k, id);
      const at = list.indexOf(id);
      if (at >= 0) {
        list[at] = list[list.length - 1] as number;
        list.pop();
      }
    } else {
      p.add(k, id);
      list.push(id);
    }
    if (list.length === 0) ref.delete(k);
    else ref.set(k, list);
  }
  assert.equal(p.size, ref.size);
  for (let k = 0; k < 3_000; k++) assert.deepEqual([...p.get(key(k))], ref.get(key(k)) ?? [], key(k));
  assert.deepEqual(p.get('absent'), []);
});

test('a key emptied and added again starts a new list', () => {
  const p = new Postings();
  p.add('a', 1);
  p.add('a', 2);
  p.remove('a', 1);
  p.remove('a', 2);
  assert.equal(p.size, 0);
  assert.deepEqual(p.get('a'), []);
  p.add('a', 3);
  assert.deepEqual(p.get('a'), [3]);
  p.remove('a', 4);
  assert.deepEqual(p.get('a'), [3]);
});

test('a list past the largest pooled block, and lists past one pool chunk, keep their ids', () => {
  const p = new Postings();
  for (let id = 0; id < 10_000; id++) p.add('wide', id);
  for (let id = 0; id < 10_000; id += 2) p.remove('wide', id);
  const wide = [...p.get('wide')].sort((a, b) => a - b);
  assert.deepEqual(
    wide,
    Array.from({ length: 5_000 }, (_, i) => 2 * i + 1),
  );
  assert.equal(p.count('wide'), 5_000);
  // 5 million ids in lists of 5 (blocks of 8): past the first 4 Mi-int chunk.
  for (let k = 0; k < 1_000_000; k++) for (let id = 0; id < 5; id++) p.add(`k${k}`, k + id);
  for (const k of [0, 524_287, 524_288, 999_999])
    assert.deepEqual([...p.get(`k${k}`)], [k, k + 1, k + 2, k + 3, k + 4]);
  const seen: number[] = [];
  assert.equal(
    p.each('k7', 4, (id) => seen.push(id)),
    false,
  );
  assert.equal(
    p.each('k7', 5, (id) => seen.push(id)),
    true,
  );
  assert.deepEqual(seen, [7, 8, 9, 10, 11]);
});
