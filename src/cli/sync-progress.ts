// Draws `omnibook sync` progress on standard error: one line per exchange redrawn in place on a terminal, plain
// periodic lines otherwise (logs, CI), so a pipe never fills with escape codes.
import type { VenueProgress } from '../ingestion/catalog-sync.js';

export interface ProgressOutput {
  write(text: string): unknown;
  isTTY?: boolean;
}

export class SyncProgress {
  private readonly latest = new Map<string, VenueProgress>();
  private drawnLines = 0;
  private timer: NodeJS.Timeout | null = null;
  private lastPlain = new Map<string, string>();

  constructor(
    private readonly out: ProgressOutput,
    private readonly order: readonly string[],
    private readonly now: () => number = Date.now,
  ) {}

  update(progress: VenueProgress): void {
    this.latest.set(progress.exchange, progress);
  }

  start(): void {
    const tty = this.out.isTTY === true;
    this.timer = setInterval(() => (tty ? this.redraw() : this.plain()), tty ? 200 : 5_000);
    this.timer.unref();
  }

  /** Final draw, so the last state stays on screen above the summary. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.out.isTTY === true) this.redraw();
    else this.plain();
  }

  private lines(): string[] {
    return this.order.flatMap((id) => {
      const p = this.latest.get(id);
      return p ? [formatLine(p, this.now())] : [];
    });
  }

  private redraw(): void {
    const lines = this.lines();
    const up = this.drawnLines > 0 ? `\x1b[${this.drawnLines}A` : '';
    this.out.write(`${up}${lines.map((l) => `\r\x1b[2K${l}\n`).join('')}`);
    this.drawnLines = lines.length;
  }

  /** Prints only the exchanges whose line changed since the last print. */
  private plain(): void {
    for (const id of this.order) {
      const p = this.latest.get(id);
      if (!p) continue;
      const key = `${p.phase}:${p.markets_seen}:${p.events_seen}`;
      if (this.lastPlain.get(id) === key) continue;
      this.lastPlain.set(id, key);
      this.out.write(`${formatLine(p, this.now())}\n`);
    }
  }
}

export function formatLine(p: VenueProgress, now: number): string {
  const parts = [
    p.exchange.padEnd(11),
    (p.phase === 'markets' || p.phase === 'events' ? `${p.phase}…` : p.phase).padEnd(9),
    `markets ${p.markets_seen.toLocaleString('en-US').padStart(9)}`,
    `events ${p.events_seen.toLocaleString('en-US').padStart(8)}`,
    `${Math.round(p.rate).toLocaleString('en-US').padStart(7)}/s`,
  ];
  // The venues publish no totals: an ETA exists only when an earlier pass in this process counted the catalogue.
  if (p.phase === 'markets' && p.expected_markets !== null && p.rate > 0) {
    const remaining = Math.max(0, p.expected_markets - p.markets_seen);
    parts.push(`ETA ${formatSeconds(remaining / p.rate)}`);
  }
  parts.push(formatSeconds(((p.finished_at ?? now) - p.started_at) / 1000));
  if (p.resumed) parts.push('(resumed)');
  if (p.error) parts.push(`error: ${p.error}`);
  return parts.join('  ');
}

function formatSeconds(seconds: number): string {
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  const m = Math.floor(seconds / 60);
  return `${m}m${String(Math.round(seconds - m * 60)).padStart(2, '0')}s`;
}
