// Numbers as a trader reads them: prices as cents-style probabilities, sizes and money grouped, missing as a dash.

const DASH = '—';

export function price(value: number | null | undefined): string {
  return value === null || value === undefined || !Number.isFinite(value) ? DASH : value.toFixed(3);
}

export function percent(value: number | null | undefined): string {
  return value === null || value === undefined ? DASH : `${(value * 100).toFixed(1)}%`;
}

const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });
const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

export function money(value: number | string | null | undefined): string {
  if (value === null || value === undefined || value === '') return DASH;
  const n = typeof value === 'string' ? Number(value) : value;
  if (!Number.isFinite(n)) return String(value);
  return Math.abs(n) >= 100_000 ? `$${compact.format(n)}` : `$${grouped.format(n)}`;
}

export function size(value: number | string | null | undefined): string {
  if (value === null || value === undefined || value === '') return DASH;
  const n = typeof value === 'string' ? Number(value) : value;
  return Number.isFinite(n) ? grouped.format(n) : String(value);
}

export function time(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return DASH;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? DASH : d.toLocaleTimeString('en-GB', { hour12: false });
}

export function dateTime(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return DASH;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? DASH : d.toISOString().replace('T', ' ').slice(0, 19);
}
