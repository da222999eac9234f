// Catalogue sync against the five real simulators over loopback, on SQLite and PostgreSQL: full passes, refreshes
// that write only what changed, resuming from a saved cursor, a failing venue, and one lease holder at a time.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ExchangeId } from '../../../src/domain/exchanges.js';
import { CatalogSync, type CatalogSyncDeps } from '../../../src/ingestion/catalog-sync.js';
import { CATALOGUE_LEASE, CatalogSyncJob } from '../../../src/ingestion/catalog-sync-job.js';
import type { Store } from '../../../src/store/database.js';
import { EventsRepo } from '../../../src/store/events-repo.js';
import { MarketsRepo } from '../../../src/store/markets-repo.js';
import { SyncStateRepo } from '../../../src/store/sync-state-repo.js';
import type { VenueAdapter } from '../../../src/venues/port.js';
import { waitFor } from '../../support/server.js';
import { onBothDialects } from '../store/dialects.js';
import { launchSimVenues, quietLogger, recording, type SimVenues, walkVenue } from './sim-venues.js';

let sims: SimVenues;
before(async () => {
  sims = await launchSimVenues(150);
});
after(() => sims?.close());

function syncOf(store: Store, venues: readonly VenueAdapter[], extra: Partial<CatalogSyncDeps> = {}) {
  return new CatalogSync({
    venues: () => venues,
    markets: new MarketsRepo(store.db, store.dialect),
    events: new EventsRepo(store.db),
    state: new SyncStateRepo(store.db),
    logger: quietLogger,
    retryBaseMs: 10,
    ...extra,
  });
}

async function storedDocs(store: Store, exchange: ExchangeId): Promise<Map<string, string>> {
  const rows = await store.db
    .selectFrom('markets')
    .select(['svc_id', 'doc'])
    .where('exchange', '=', exchange)
    .execute();
  return new Map(rows.map((r) => [r.svc_id, r.doc.toString()]));
}

async function storedEventCount(store: Store, exchange: ExchangeId): Promise<number> {
  const row = await store.db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('exchange', '=', exchange)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The store holds exactly what the venue lists now, document for document. */
async function assertMirrors(store: Store, id: ExchangeId, adapter: VenueAdapter): Promise<void> {
  const truth = await walkVenue(adapter);
  const docs = await storedDocs(store, id);
  assert.equal(docs.size, truth.markets.length, `${id}: stored markets`);
  for (const market of truth.markets) {
    assert.equal(docs.get(market.svc_id), JSON.stringify(market), `${id}: ${market.svc_id} is current`);
  }
  assert.equal(await storedEventCount(store, id), truth.events.length, `${id}: stored events`);
}

onBothDialects('catalogue sync', (store) => {
  test('a full pass stores every market and event each venue lists', async () => {
    const results = await syncOf(store(), sims.adapters).runAll();
    assert.deepEqual(
      results.map((r) => r.exchange),
      sims.ids,
    );
    for (const result of results) {
      assert.equal(result.error, null, `${result.exchange}: ${result.error}`);
      assert.ok(result.markets > 0, result.exchange);
      assert.equal(
        result.written,
        result.markets + result.events,
        `${result.exchange}: all new rows written`,
      );
      await assertMirrors(store(), result.exchange, sims.get(result.exchange).adapter);
      const state = await new SyncStateRepo(store().db).get(result.exchange, 'markets');
      assert.equal(state?.cursor, null);
      assert.ok(state?.last_full_at);
    }
  });

  test('a second pass writes nothing; after the venues move, a refresh writes the changed rows only', async () => {
    const sync = syncOf(store(), sims.adapters);
    const again = await sync.runAll();
    for (const result of again) {
      assert.equal(result.error, null);
      assert.equal(result.written, 0, `${result.exchange} rewrote unchanged rows`);
    }
    for (const id of sims.ids) await sims.control(id, 'POST', 'advance', { steps: 5 });
    const refresh = await sync.runAll();
    const written = refresh.reduce((n, r) => n + r.written, 0);
    assert.ok(written > 0, 'prices moved but nothing was written');
    for (const result of refresh) {
      assert.ok(result.written <= result.markets + result.events);
      await assertMirrors(store(), result.exchange, sims.get(result.exchange).adapter);
    }
    const settled = await sync.runAll();
    assert.equal(
      settled.reduce((n, r) => n + r.written, 0),
      0,
    );
  });

  test('a pass stopped part-way resumes from its saved cursor without fetching earlier pages again', async () => {
    // The venue with the most market pages gives the abort room to land mid-walk.
    const walks = await Promise.all(sims.adapters.map(async (a) => ({ a, w: await walkVenue(a) })));
    const { a: target, w: truth } = walks.reduce((x, y) => (y.w.marketPages > x.w.marketPages ? y : x));
    const id = target.descriptor.id;
    assert.ok(truth.marketPages >= 3, `${id} has ${truth.marketPages} market pages`);
    await store().db.deleteFrom('markets').where('exchange', '=', id).execute();

    const first = recording(target);
    const stopper = new AbortController();
    const stopped = await syncOf(store(), [first.adapter]).runVenue(id, {
      signal: stopper.signal,
      onProgress: (p) => {
        if (p.pages === 2) stopper.abort();
      },
    });
    assert.equal(stopped.aborted, true);
    assert.equal(stopped.error, null);
    const saved = await new SyncStateRepo(store().db).get(id, 'markets');
    assert.ok(saved?.cursor, 'no cursor saved');
    assert.equal(saved.pass_seen, stopped.markets);
    assert.equal((await storedDocs(store(), id)).size, stopped.markets);

    const second = recording(target);
    const resumed = await syncOf(store(), [second.adapter]).runVenue(id);
    assert.equal(resumed.error, null);
    assert.equal(resumed.resumed, true);
    assert.equal(second.requested.markets?.[0], saved.cursor, 'did not start at the saved cursor');
    assert.ok(!second.requested.markets?.includes(null), 'fetched the first page again');
    for (const cursor of first.requested.markets?.slice(0, 2) ?? []) {
      assert.ok(!second.requested.markets?.includes(cursor), `fetched page ${cursor} again`);
    }
    assert.equal(resumed.markets, truth.markets.length, 'the resumed pass counts the whole catalogue');
    await assertMirrors(store(), id, target);
    assert.equal((await new SyncStateRepo(store().db).get(id, 'markets'))?.cursor, null);
  });

  test('a cursor the venue rejects (stale after a restart) restarts the pass from the top', async () => {
    const target = sims.adapters.find((a) => a.descriptor.id === 'opinion') ?? sims.adapters[0];
    assert.ok(target);
    const id = target.descriptor.id;
    const state = new SyncStateRepo(store().db);
    await state.saveCursor(id, 'markets', 'zz-no-such-cursor', 40, new Date().toISOString());
    const watched = recording(target);
    const result = await syncOf(store(), [watched.adapter]).runVenue(id);
    assert.equal(result.error, null, String(result.error));
    assert.deepEqual(watched.requested.markets?.slice(0, 2), ['zz-no-such-cursor', null]);
    assert.equal((await state.get(id, 'markets'))?.cursor, null);
    await assertMirrors(store(), id, target);
  });

  test('a failing venue records its error and gives up its pass; the others complete', async () => {
    const failing: ExchangeId = 'kalshi';
    await sims.control(failing, 'POST', 'faults', { error_rate: 1, error_status: 503 });
    try {
      const results = await syncOf(store(), sims.adapters, { pageRetries: 1 }).runAll();
      for (const result of results) {
        if (result.exchange === failing) assert.ok(result.error, 'the failing venue reported no error');
        else assert.equal(result.error, null, `${result.exchange}: ${result.error}`);
      }
      const state = new SyncStateRepo(store().db);
      assert.ok((await state.get(failing, 'markets'))?.last_error);
      for (const id of sims.ids.filter((x) => x !== failing)) {
        assert.equal((await state.get(id, 'markets'))?.last_error, null, id);
      }
    } finally {
      await sims.control(failing, 'DELETE', 'faults');
    }
    const recovered = await syncOf(store(), sims.adapters).runVenue(failing);
    assert.equal(recovered.error, null);
    assert.equal((await new SyncStateRepo(store().db).get(failing, 'markets'))?.last_error, null);
  });

  test('two sync jobs sharing the database: one leads, the other stands by and takes over when it stops', async () => {
    const jobOf = (node: string) =>
      new CatalogSyncJob({
        sync: syncOf(store(), sims.adapters),
        state: new SyncStateRepo(store().db),
        logger: quietLogger,
        refreshIntervalMs: 60_000,
        // Renewed every 2 s: the leader keeps its lease through any pause of the event loop shorter than 4 s.
        leaseTtlMs: 6_000,
        nodeId: node,
      });
    const a = jobOf('node-a');
    const b = jobOf('node-b');
    a.start();
    b.start();
    try {
      const leader = await waitFor(
        async () => (a.passCount > 0 ? a : b.passCount > 0 ? b : undefined),
        30_000,
        'a completed pass',
      );
      const standby = leader === a ? b : a;
      assert.equal(leader.isLeader, true);
      assert.equal(standby.isLeader, false);
      assert.equal(standby.passCount, 0);
      assert.equal(leader.state().health, 'running');
      const health = await leader.catalogue();
      assert.equal(health.leader, true);
      for (const id of sims.ids) {
        const entry = health.exchanges[id];
        assert.ok(entry?.last_full_at, id);
        assert.equal(entry.cursor_pending, false, id);
        assert.ok(entry.markets_seen > 0, id);
      }
      assert.equal((await standby.catalogue()).leader, false);

      await leader.stop();
      assert.equal(leader.state().health, 'stopped');
      await standby.whenPasses(1);
      assert.equal(standby.isLeader, true);
      assert.ok(standby.passCount >= 1);
      await standby.stop();
      // A stopped job released the lease: anyone can take it at once.
      assert.equal(
        await new SyncStateRepo(store().db).acquireLease(CATALOGUE_LEASE, 'node-c', Date.now(), 1_000),
        true,
      );
      await new SyncStateRepo(store().db).releaseLease(CATALOGUE_LEASE, 'node-c');
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  test('a job whose pass had a venue error is degraded', async () => {
    const failing: ExchangeId = 'predictfun';
    await sims.control(failing, 'POST', 'faults', { error_rate: 1, error_status: 503 });
    const job = new CatalogSyncJob({
      sync: syncOf(store(), sims.adapters, { pageRetries: 0 }),
      state: new SyncStateRepo(store().db),
      logger: quietLogger,
      refreshIntervalMs: 60_000,
      leaseTtlMs: 600,
    });
    try {
      assert.equal(job.state().health, 'starting');
      job.start();
      await job.whenPasses(1);
      assert.equal(job.state().health, 'degraded');
      assert.match(job.state().last_error ?? '', /predictfun/);
      assert.ok((await job.catalogue()).exchanges[failing]?.last_error);
    } finally {
      await job.stop();
      await sims.control(failing, 'DELETE', 'faults');
    }
  });

  test('stop() ends a pass in flight and leaves its cursors saved for the next leader', async () => {
    const walks = await Promise.all(sims.adapters.map(async (a) => ({ a, w: await walkVenue(a) })));
    const { a: target, w: truth } = walks.reduce((x, y) => (y.w.marketPages > x.w.marketPages ? y : x));
    const id = target.descriptor.id;
    assert.ok(truth.marketPages >= 2, `${id} has ${truth.marketPages} market pages`);
    // Every simulator holds each request until its faults are set again, so the pass moves only as the test lets
    // it: the target's first page goes through, its second request waits, and the others wait on their first.
    const hold = { latency_ms: 120_000 };
    const held = async () => ((await sims.control(id, 'GET', 'held')) as { held: number }).held;
    for (const venue of sims.ids) await sims.control(venue, 'POST', 'faults', hold);
    const sync = syncOf(store(), sims.adapters);
    const job = new CatalogSyncJob({
      sync,
      state: new SyncStateRepo(store().db),
      logger: quietLogger,
      refreshIntervalMs: 60_000,
      leaseTtlMs: 600,
    });
    try {
      job.start();
      await waitFor(async () => (await held()) > 0 || undefined, 30_000, 'the first page request');
      await sims.control(id, 'POST', 'faults', hold);
      await waitFor(
        async () =>
          (sync.snapshot().some((p) => p.exchange === id && p.pages >= 1) && (await held()) > 0) || undefined,
        30_000,
        'the first page stored and the next request held',
      );
      await job.stop();
      assert.equal(job.passCount, 0, 'the pass was not stopped');
      assert.equal(job.state().health, 'stopped');
      const pending = Object.values((await job.catalogue()).exchanges).filter((e) => e.cursor_pending);
      assert.ok(pending.length > 0, 'no venue left a cursor to resume from');
    } finally {
      await job.stop();
      for (const venue of sims.ids) await sims.control(venue, 'DELETE', 'faults');
    }
    const resumed = await sync.runAll();
    assert.ok(resumed.some((r) => r.resumed));
    assert.ok(resumed.every((r) => r.error === null));
  });
});
