// Facts about the machine and processes a figure was measured on: node version, CPU, cores, resident memory.
import { readFileSync } from 'node:fs';
import { arch, cpus, platform, totalmem } from 'node:os';

export interface MachineFacts {
  node: string;
  cpuModel: string;
  cores: number;
  platform: string;
  totalMemMiB: number;
}

export function machineFacts(): MachineFacts {
  const list = cpus();
  return {
    node: process.version,
    cpuModel: list[0]?.model.trim() || 'unknown',
    cores: list.length,
    platform: `${platform()} ${arch()}`,
    totalMemMiB: Math.round(totalmem() / 1024 / 1024),
  };
}

export interface ProcessMemory {
  /** Current resident set size (VmRSS), KiB. */
  rssKiB: number;
  /** Peak resident set size so far (VmHWM), KiB. */
  peakKiB: number;
}

/** Reads /proc/<pid>/status; undefined where /proc is unavailable (non-Linux) or the process is gone. */
export function processMemory(pid: number): ProcessMemory | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const rss = kibField(status, 'VmRSS');
  const peak = kibField(status, 'VmHWM');
  return rss === undefined ? undefined : { rssKiB: rss, peakKiB: peak ?? rss };
}

function kibField(status: string, name: string): number | undefined {
  const match = new RegExp(`^${name}:\\s+(\\d+)\\s+kB$`, 'm').exec(status);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/**
 * CPU time (user + system) a process has used so far, in ms, from /proc/<pid>/stat; undefined where /proc is
 * unavailable or the process is gone. On a shared machine wall-clock latency measures the neighbours too; CPU per
 * request does not.
 */
export function processCpuMs(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses: fields are counted after its closing one.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
  return Number.isFinite(ticks) ? (ticks * 1000) / CLOCK_TICKS_PER_S : undefined;
}

/** USER_HZ: 100 on every Linux architecture Node supports. */
const CLOCK_TICKS_PER_S = 100;
