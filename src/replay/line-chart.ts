// Draws a line chart (several series over one x axis, with a labelled grid) into a PNG (report-png.ts): the
// backtest's equity curve, and the benchmarks' charts (bench/ imports it from here). Labels use
// a built-in 3×5 pixel font of the few characters a chart needs, drawn at scale 2.
import { Raster } from './report-png.js';

type Rgb = readonly [number, number, number];

export interface Series {
  label: string;
  color: Rgb;
  points: ReadonlyArray<readonly [number, number]>;
}

export interface ChartOptions {
  title: string;
  xLabel: string;
  yLabel: string;
  width?: number;
  height?: number;
}

// Each glyph: five rows of three pixels, '#' on.
const GLYPHS: Record<string, string> = {
  '0': '###,#.#,#.#,#.#,###',
  '1': '.#.,##.,.#.,.#.,###',
  '2': '###,..#,###,#..,###',
  '3': '###,..#,.##,..#,###',
  '4': '#.#,#.#,###,..#,..#',
  '5': '###,#..,###,..#,###',
  '6': '###,#..,###,#.#,###',
  '7': '###,..#,.#.,.#.,.#.',
  '8': '###,#.#,###,#.#,###',
  '9': '###,#.#,###,..#,###',
  '.': '...,...,...,...,.#.',
  '-': '...,...,###,...,...',
  '/': '..#,..#,.#.,#..,#..',
  '(': '.#.,#..,#..,#..,.#.',
  ')': '.#.,..#,..#,..#,.#.',
  ' ': '...,...,...,...,...',
  A: '.#.,#.#,###,#.#,#.#',
  B: '##.,#.#,##.,#.#,##.',
  C: '.##,#..,#..,#..,.##',
  D: '##.,#.#,#.#,#.#,##.',
  E: '###,#..,##.,#..,###',
  F: '###,#..,##.,#..,#..',
  G: '.##,#..,#.#,#.#,.##',
  H: '#.#,#.#,###,#.#,#.#',
  I: '###,.#.,.#.,.#.,###',
  K: '#.#,#.#,##.,#.#,#.#',
  L: '#..,#..,#..,#..,###',
  M: '#.#,###,###,#.#,#.#',
  N: '##.,#.#,#.#,#.#,#.#',
  O: '.#.,#.#,#.#,#.#,.#.',
  P: '##.,#.#,##.,#..,#..',
  R: '##.,#.#,##.,#.#,#.#',
  S: '.##,#..,.#.,..#,##.',
  T: '###,.#.,.#.,.#.,.#.',
  U: '#.#,#.#,#.#,#.#,###',
  V: '#.#,#.#,#.#,#.#,.#.',
  W: '#.#,#.#,###,###,#.#',
  X: '#.#,#.#,.#.,#.#,#.#',
  Y: '#.#,#.#,.#.,.#.,.#.',
  Z: '###,..#,.#.,#..,###',
};

/** A Map, since glyphs are looked up by any character of a label (architecture.md, "Lookups by an outside string"). */
const FONT = new Map<string, string>(Object.entries(GLYPHS));

const SCALE = 2;
const GLYPH_W = 4 * SCALE;

function text(r: Raster, x: number, y: number, s: string, color: Rgb): void {
  let cx = x;
  for (const ch of s.toUpperCase()) {
    const rows = (FONT.get(ch) ?? FONT.get(' ') ?? '').split(',');
    rows.forEach((row, ry) => {
      for (let rx = 0; rx < row.length; rx++) {
        if (row[rx] !== '#') continue;
        for (let dx = 0; dx < SCALE; dx++)
          for (let dy = 0; dy < SCALE; dy++) r.set(cx + rx * SCALE + dx, y + ry * SCALE + dy, color);
      }
    });
    cx += GLYPH_W;
  }
}

/** A round step for about `count` grid lines over `span`. */
function niceStep(span: number, count: number): number {
  const raw = span / Math.max(1, count);
  const magnitude = 10 ** Math.floor(Math.log10(raw || 1));
  for (const m of [1, 2, 5, 10]) if (m * magnitude >= raw) return m * magnitude;
  return 10 * magnitude;
}

const fmt = (n: number) => (Math.abs(n) >= 100 || Number.isInteger(n) ? n.toFixed(0) : n.toFixed(1));

export function lineChart(series: Series[], options: ChartOptions): Buffer {
  const width = options.width ?? 900;
  const height = options.height ?? 420;
  const r = new Raster(width, height);
  const left = 70;
  const right = 20;
  const top = 40;
  const bottom = 50;
  const all = series.flatMap((s) => s.points);
  const xMax = Math.max(1e-9, ...all.map(([x]) => x));
  const yMax = Math.max(1e-9, ...all.map(([, y]) => y)) * 1.1;
  const px = (x: number) => left + (x / xMax) * (width - left - right);
  const py = (y: number) => height - bottom - (y / yMax) * (height - top - bottom);
  const grid: Rgb = [225, 225, 225];
  const ink: Rgb = [40, 40, 40];
  const yStep = niceStep(yMax, 6);
  for (let y = 0; y <= yMax; y += yStep) {
    r.line(left, py(y), width - right, py(y), grid);
    const label = fmt(y);
    text(r, left - 6 - label.length * GLYPH_W, py(y) - 5, label, ink);
  }
  const xStep = niceStep(xMax, 10);
  for (let x = 0; x <= xMax + 1e-9; x += xStep) {
    r.line(px(x), top, px(x), height - bottom, grid);
    const label = fmt(x);
    text(r, px(x) - (label.length * GLYPH_W) / 2, height - bottom + 8, label, ink);
  }
  r.line(left, top, left, height - bottom, ink);
  r.line(left, height - bottom, width - right, height - bottom, ink);
  for (const s of series) {
    for (let i = 1; i < s.points.length; i++) {
      const [x0, y0] = s.points[i - 1] ?? [0, 0];
      const [x1, y1] = s.points[i] ?? [0, 0];
      r.line(px(x0), py(y0), px(x1), py(y1), s.color, 2);
    }
  }
  text(r, left, 10, options.title, ink);
  text(r, (width - options.xLabel.length * GLYPH_W) / 2, height - 20, options.xLabel, ink);
  text(r, 6, top - 20, options.yLabel, ink);
  // Legend, top right: a swatch and the label of each series.
  let lx = width - right - series.reduce((n, s) => n + (s.label.length + 4) * GLYPH_W, 0);
  for (const s of series) {
    for (let dy = 0; dy < 10; dy++) r.line(lx, 10 + dy, lx + 14, 10 + dy, s.color);
    text(r, lx + 20, 10, s.label, ink);
    lx += (s.label.length + 4) * GLYPH_W;
  }
  return r.toPng();
}
