// Small helpers the Limitless simulator tests share: JSON reads, HMAC-signed requests as the SDK signs them, and
// the control surface.
import { createHmac } from 'node:crypto';
import type { LimitlessSim } from '../../../sim/limitless/index.js';

export async function getJson(
  sim: LimitlessSim,
  pathWithQuery: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown; headers: Headers }> {
  const res = await fetch(`${sim.url}${pathWithQuery}`, { headers });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

/** The documented signature: base64 HMAC-SHA256 of `ts\nMETHOD\npathWithQuery\nbody` under the decoded secret. */
export function signed(
  credentials: Record<string, string>,
  method: string,
  pathWithQuery: string,
  at: Date = new Date(),
  body = '',
): Record<string, string> {
  const ts = at.toISOString();
  const signature = createHmac('sha256', Buffer.from(credentials.secret ?? '', 'base64'))
    .update(`${ts}\n${method}\n${pathWithQuery}\n${body}`)
    .digest('base64');
  return { 'lmts-api-key': credentials.token_id ?? '', 'lmts-timestamp': ts, 'lmts-signature': signature };
}

export async function control(
  sim: LimitlessSim,
  method: string,
  path: string,
  body?: unknown,
): Promise<unknown> {
  const res = await fetch(`${sim.control}/__sim/${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  if (!res.ok) throw new Error(`control ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** Every active listing row, walking /markets/active to the end. */
export async function activeRows(sim: LimitlessSim, limit = 25): Promise<Array<Record<string, unknown>>> {
  const rows: Array<Record<string, unknown>> = [];
  for (let page = 1; page < 10_000; page++) {
    const { body } = await getJson(sim, `/markets/active?page=${page}&limit=${limit}`);
    const data = (body as { data: Array<Record<string, unknown>> }).data;
    rows.push(...data);
    if (data.length < limit) return rows;
  }
  throw new Error('active markets did not end');
}

/** A stand-alone active market's slug and a group's, from the listing. */
export async function sampleSlugs(
  sim: LimitlessSim,
): Promise<{ market: string; group: string; child: string }> {
  const rows = await activeRows(sim);
  const market = rows.find((r) => r.marketType === 'single')?.slug as string;
  const group = rows.find((r) => r.marketType === 'group') as {
    slug: string;
    markets: Array<{ slug: string }>;
  };
  return { market, group: group.slug, child: group.markets[0]?.slug as string };
}
