// npm run bench:matching — links N synthetic markets (default 1,000,000; MATCHING_BENCH_MARKETS) from scratch in
// the simulators' phrasing and prints the time and peak RSS, against a baseline measured in the same run: one
// pass that only touches every market (JSON-encodes it), so the ratio says what linking costs per market read.
import { MatchEngine } from '../src/services/matching/match-engine.js';
import { syntheticMarkets, worldsFor } from './matching/synthetic.js';

const n = Number(process.env.MATCHING_BENCH_MARKETS ?? 1_000_000);
const markets = [...syntheticMarkets(worldsFor(n))];
const t0 = performance.now();
let bytes = 0;
for (const m of markets) bytes += JSON.stringify(m).length;
const baseline = performance.now() - t0;
const t1 = performance.now();
const engine = new MatchEngine();
engine.upsert(markets);
const extracted = performance.now() - t1;
const links = engine.linkAll();
const total = performance.now() - t1;
const peak = process.resourceUsage().maxRSS / 1024;
console.log(
  `markets ${markets.length} (${(bytes / 2 ** 20).toFixed(0)} MiB as JSON), links ${links.length}, blocks skipped ${engine.skipped}`,
);
console.log(`baseline (encode each market once): ${(baseline / 1000).toFixed(1)} s`);
console.log(
  `features + index: ${(extracted / 1000).toFixed(1)} s; linking: ${((total - extracted) / 1000).toFixed(1)} s; total ${(total / 1000).toFixed(1)} s = ${(total / baseline).toFixed(0)}× baseline`,
);
console.log(`peak RSS ${peak.toFixed(0)} MiB`);
