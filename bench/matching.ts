// npm run bench:matching — links N synthetic markets (default 1,000,000; MATCHING_BENCH_MARKETS) from scratch in
// the simulators' phrasing and prints the time and peak RSS, against a baseline measured in the same run: one
// pass that only generates and touches every market (JSON-encodes it), so the ratio says what linking costs per
// market read. Markets are generated into the engine and links counted as they stream out, as `omnibook links`
// and a sync pass consume them: neither the input (its worlds are made one at a time, catalogueOf) nor the
// output is held, only the engine's own state. Then three incremental batches of 1,000 changed markets (spread
// over the catalogue, each closing a day later, as a venue moving its strikes does): upsert and relink their
// neighbourhood (linkAround), as a sync pass does, timed each. The npm script runs it under a 1,152 MiB heap limit,
// the size docs/operations.md gives a matcher's process at a million markets (about 1,000 bytes a market): with V8's
// default limit the peak says how much garbage V8 lets pile up, not what the engine needs. A larger
// MATCHING_BENCH_MARKETS needs its own `node --max-old-space-size=…`.
import { MatchEngine } from '../src/services/matching/match-engine.js';
import { catalogueOf, type SyntheticMarket } from './matching/synthetic.js';

const n = Number(process.env.MATCHING_BENCH_MARKETS ?? 1_000_000);
const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
const t0 = performance.now();
let bytes = 0;
let count = 0;
for (const m of catalogueOf(n)) {
  bytes += JSON.stringify(m).length;
  count++;
}
const baseline = performance.now() - t0;
const t1 = performance.now();
const cpu1 = process.cpuUsage();
const engine = new MatchEngine();
engine.upsert(catalogueOf(n));
const extracted = performance.now() - t1;
const heapIndexed = process.memoryUsage().heapUsed;
let links = 0;
for (const _ of engine.streamAll()) links++;
const total = performance.now() - t1;
// CPU beside wall (the machine is shared): the main thread's and the GC threads' seconds of features, index and links.
const linkCpu = process.cpuUsage(cpu1);
const BATCH = 1_000;
const stride = Math.max(1, Math.floor(count / (3 * BATCH)));
// The three batches are gathered in one pass over the catalogue: each pass makes every world again, garbage that
// would count in the peak beside the engine.
const batches: SyntheticMarket[][] = [[], [], []];
let i = 0;
for (const m of catalogueOf(n)) {
  const at = i++ % stride;
  batches.forEach((batch, b) => {
    if (at !== b % stride || batch.length >= BATCH) return;
    const end = new Date(Date.parse(m.end_date ?? '2026-12-31T00:00:00Z') + 86_400_000).toISOString();
    batch.push({ ...m, end_date: end });
  });
}
const batchMs: string[] = [];
let relinked = 0;
for (const batch of batches) {
  const t = performance.now();
  const cpu = process.cpuUsage();
  const changed = engine.upsert(batch);
  relinked += engine.linkAround(changed).links.length;
  const used = process.cpuUsage(cpu);
  // CPU beside wall: on a loaded machine the wall time says more about the neighbours than about the batch.
  batchMs.push(
    `${((performance.now() - t) / 1000).toFixed(2)} s (CPU ${((used.user + used.system) / 1e6).toFixed(2)} s)`,
  );
}
const peak = process.resourceUsage().maxRSS * 1024;
const seconds = (u: NodeJS.CpuUsage) => ((u.user + u.system) / 1e6).toFixed(1);
console.log(`markets ${count} (${mib(bytes)} MiB as JSON), links ${links}, blocks skipped ${engine.skipped}`);
console.log(`baseline (generate and encode each market once): ${(baseline / 1000).toFixed(1)} s`);
console.log(
  `features + index: ${(extracted / 1000).toFixed(1)} s; linking: ${((total - extracted) / 1000).toFixed(1)} s; total ${(total / 1000).toFixed(1)} s = ${(total / baseline).toFixed(0)}× baseline (CPU ${seconds(linkCpu)} s; whole run ${seconds(process.cpuUsage())} s)`,
);
console.log(
  `incremental batches of ${BATCH} changed markets (upsert + linkAround): ${batchMs.join(', ')} (${relinked} links in their neighbourhoods; target ≤ 0.5 s)`,
);
console.log(`heap after indexing ${mib(heapIndexed)} MiB; peak RSS ${mib(peak)} MiB`);
