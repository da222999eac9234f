// The book's cumulative depth as two stepped areas (bids left, asks right), in SVG: a few dozen points need no
// charting library, and it scales with the page.
import type { Level } from '@omnibook/client';

const W = 600;
const H = 180;

export function DepthChart({ bids, asks }: { bids: Level[]; asks: Level[] }) {
  if (bids.length === 0 && asks.length === 0)
    return <p class="muted">No depth to draw: the book is empty.</p>;
  const cum = (levels: Level[]) => {
    let total = 0;
    return levels.map(([p, s]) => {
      total += s;
      return [p, total] as const;
    });
  };
  const b = cum(bids);
  const a = cum(asks);
  const prices = [...b, ...a].map(([p]) => p);
  const lo = Math.min(...prices);
  const hi = Math.max(...prices);
  const span = hi - lo || 0.01;
  const maxQty = Math.max(b.at(-1)?.[1] ?? 0, a.at(-1)?.[1] ?? 0) || 1;
  const x = (p: number) => ((p - lo) / span) * (W - 20) + 10;
  const y = (q: number) => H - 20 - (q / maxQty) * (H - 30);
  const area = (points: ReadonlyArray<readonly [number, number]>) => {
    if (points.length === 0) return '';
    const first = points[0] as readonly [number, number];
    let d = `M${x(first[0])},${y(0)}`;
    let prev = 0;
    for (const [p, q] of points) {
      d += ` L${x(p)},${y(prev)} L${x(p)},${y(q)}`;
      prev = q;
    }
    const last = points.at(-1) as readonly [number, number];
    return `${d} L${x(last[0])},${y(0)} Z`;
  };
  return (
    <figure class="depth">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby="depth-title">
        <title id="depth-title">
          Cumulative depth: {b.at(-1)?.[1].toFixed(0) ?? 0} bid, {a.at(-1)?.[1].toFixed(0) ?? 0} ask, from{' '}
          {lo.toFixed(3)} to {hi.toFixed(3)}
        </title>
        <path d={area(b)} class="depth-bid" />
        <path d={area(a)} class="depth-ask" />
        <line x1="10" x2={W - 10} y1={H - 20} y2={H - 20} class="axis" />
        <text x="10" y={H - 4} class="axis-label">
          {lo.toFixed(3)}
        </text>
        <text x={W - 10} y={H - 4} text-anchor="end" class="axis-label">
          {hi.toFixed(3)}
        </text>
      </svg>
    </figure>
  );
}
