// Formats the benchmark's printed output: the setup it ran, the per-server table, the ratio against target,
// and memory; pure functions from results to lines.
import { TARGET_RATIO } from './config.js';
import { failuresOf, type LoadSummary } from './load.js';
import type { MachineFacts, ProcessMemory } from './machine.js';

export interface RoundResult {
  round: number;
  baseline: LoadSummary;
  ours: LoadSummary;
}

export interface Setup {
  machine: MachineFacts;
  command: string;
  oursCommand: string;
  keyCommand: string;
  baselineCommand: string;
  load: string;
  body: string;
  notes: readonly string[];
}

export interface Memory {
  oursIdle: ProcessMemory | undefined;
  oursAfter: ProcessMemory | undefined;
  baselineAfter: ProcessMemory | undefined;
}

export function setupLines(setup: Setup): string[] {
  const m = setup.machine;
  return [
    'Omnibook HTTP benchmark: GET /api/v1/exchanges, bare node:http vs our server',
    '',
    `machine   node ${m.node} | ${m.cpuModel} | ${m.cores} cores | ${m.platform} | ${m.totalMemMiB} MiB RAM`,
    `command   ${setup.command}`,
    `ours      ${setup.oursCommand}`,
    `key       ${setup.keyCommand}`,
    `baseline  ${setup.baselineCommand}`,
    `load      ${setup.load}`,
    `body      ${setup.body}`,
    ...setup.notes.map((n) => `note      ${n}`),
  ];
}

export function tableLines(rounds: readonly RoundResult[]): string[] {
  const header = ['round', 'server', 'req/s (mean)', 'p50 ms', 'p99 ms', 'requests', 'non-2xx', 'errors'];
  const rows: string[][] = [];
  for (const r of rounds) {
    for (const [name, s] of [
      ['baseline', r.baseline],
      ['omnibook', r.ours],
    ] as const) {
      rows.push([
        String(r.round),
        name,
        fmt(s.reqPerSec, 1),
        fmt(s.p50Ms, 2),
        fmt(s.p99Ms, 2),
        fmt(s.totalRequests, 0),
        fmt(s.non2xx, 0),
        fmt(s.errors, 0),
      ]);
    }
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i < 2 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('   ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('   '), ...rows.map(line)];
}

export interface Verdict {
  ratio: number;
  lines: string[];
}

export function verdictLines(rounds: readonly RoundResult[]): Verdict {
  const mean = (pick: (r: RoundResult) => number) =>
    rounds.reduce((sum, r) => sum + pick(r), 0) / rounds.length;
  const bare = mean((r) => r.baseline.reqPerSec);
  const ours = mean((r) => r.ours.reqPerSec);
  const ratio = ours / bare;
  const word = ratio >= TARGET_RATIO ? 'PASS' : 'BELOW TARGET';
  const perRound =
    rounds.length > 1
      ? ` (per round: ${rounds.map((r) => fmt(r.ours.reqPerSec / r.baseline.reqPerSec, 3)).join(', ')})`
      : '';
  return {
    ratio,
    lines: [
      `ratio ours/bare req/s: ${fmt(ours, 1)} / ${fmt(bare, 1)} = ${fmt(ratio, 3)}${perRound}`,
      `target   >= ${TARGET_RATIO.toFixed(2)}: ${word}`,
    ],
  };
}

export function memoryLines(memory: Memory): string[] {
  const mib = (m: ProcessMemory | undefined, pick: (p: ProcessMemory) => number) =>
    m === undefined ? 'n/a' : `${fmt(pick(m) / 1024, 1)} MiB`;
  return [
    `RSS omnibook after run: ${mib(memory.oursAfter, (m) => m.rssKiB)} (peak VmHWM ${mib(memory.oursAfter, (m) => m.peakKiB)}, ` +
      `idle before load ${mib(memory.oursIdle, (m) => m.rssKiB)})`,
    `RSS baseline after run: ${mib(memory.baselineAfter, (m) => m.rssKiB)}`,
  ];
}

/** One line per run that was not all clean 2xx, naming each status code. */
export function failureLines(rounds: readonly RoundResult[]): string[] {
  const out: string[] = [];
  for (const r of rounds) {
    for (const s of [r.baseline, r.ours]) {
      if (failuresOf(s) === 0) continue;
      out.push(`${s.title}: ${describeFailures(s)}`);
    }
  }
  return out;
}

export function describeFailures(s: LoadSummary): string {
  const codes = Object.entries(s.statusCodes)
    .filter(([code]) => !code.startsWith('2'))
    .map(([code, n]) => `${n} x HTTP ${code}`);
  if (s.errors > 0) codes.push(`${s.errors} socket errors (of which ${s.timeouts} timeouts)`);
  return codes.length > 0 ? codes.join(', ') : `${s.non2xx} non-2xx`;
}

function fmt(n: number, digits: number): string {
  if (!Number.isFinite(n)) return 'n/a';
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}
