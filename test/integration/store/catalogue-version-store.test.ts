// The catalogue version (migration 0027) on both dialects: what tells one node that another wrote the catalogue.
// Two repositories over one store stand for two nodes: a write through one bumps the version in its transaction,
// and the other's check sees it and bumps its write generation (dropping its cached pages); a write that changed
// nothing, and a check with nothing new, bump nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Market } from '../../../src/domain/market.js';
import { MarketsRepo } from '../../../src/store/markets-repo.js';
import { onBothDialects } from './dialects.js';

function market(native: string, question: string): Market {
  return {
    svc_id: `kalshi:${native}`,
    svc_group_id: 'kalshi:g',
    exchange: 'kalshi',
    exchange_market_id: native,
    exchange_group_id: 'g',
    question,
    group_title: 'Group',
    status: 'active',
    market_type: 'binary',
    outcomes: [{ name: 'Yes' }, { name: 'No' }],
    volume_total: 1,
    liquidity: 1,
  };
}

onBothDialects('catalogue version', (store) => {
  test("one node's write is seen by the other's check, and only a write that changed rows counts", async () => {
    const repo = () => new MarketsRepo(store().db, store().dialect, store().sqliteReader, store().pgReader);
    const writer = repo();
    const reader = repo();
    const version = async () =>
      Number(
        (await store().db.selectFrom('catalogue_version').select('version').executeTakeFirstOrThrow())
          .version,
      );

    await reader.checkForeignWrites();
    const start = reader.writeGeneration;
    await reader.checkForeignWrites();
    assert.equal(reader.writeGeneration, start, 'nothing written: nothing to drop');

    const before = await version();
    // 450 rows: three upsert chunks, each its own transaction and bump.
    const markets = Array.from({ length: 450 }, (_, i) => market(`KX-${i}`, `Question ${i}?`));
    assert.equal(await writer.upsertMany(markets, '2026-12-02T00:00:00.000Z'), 450);
    assert.equal(await version(), before + 3);
    assert.equal(writer.writeGeneration, 1, 'the writer dropped its own pages once');
    await writer.checkForeignWrites();
    assert.equal(writer.writeGeneration, 1, 'its own bumps are not foreign writes');

    await reader.checkForeignWrites();
    assert.equal(reader.writeGeneration, start + 1, "the other node's write drops the reader's pages");

    assert.equal(await writer.upsertMany(markets, '2026-12-02T00:01:00.000Z'), 0);
    assert.equal(await version(), before + 3, 'unchanged documents write nothing and bump nothing');
    await reader.checkForeignWrites();
    assert.equal(reader.writeGeneration, start + 1);

    await writer.upsertMany([market('KX-0', 'Question 0, reworded?')], '2026-12-02T00:02:00.000Z');
    await reader.checkForeignWrites();
    assert.equal(reader.writeGeneration, start + 2);
  });
});
