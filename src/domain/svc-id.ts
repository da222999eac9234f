// svc_id codec: `{exchange}:{native_id}`. Only the first ':' separates; the native id may contain ':' itself
// (Kalshi tickers do not, but Polymarket condition ids with suffixes and future venues might).
import { type ExchangeId, isExchangeId } from './exchanges.js';

export interface SvcId {
  exchange: ExchangeId;
  nativeId: string;
}

export type SvcIdParseResult = { ok: true; value: SvcId } | { ok: false; reason: string };

export function encodeSvcId(exchange: ExchangeId, nativeId: string): string {
  if (nativeId.length === 0) throw new RangeError('native id must not be empty');
  return `${exchange}:${nativeId}`;
}

export function parseSvcId(raw: string): SvcIdParseResult {
  const colon = raw.indexOf(':');
  if (colon <= 0) return { ok: false, reason: `'${raw}' is not of the form {exchange}:{native_id}` };
  const exchange = raw.slice(0, colon);
  const nativeId = raw.slice(colon + 1);
  if (!isExchangeId(exchange)) return { ok: false, reason: `unknown exchange '${exchange}' in '${raw}'` };
  if (nativeId.length === 0) return { ok: false, reason: `'${raw}' has an empty native id` };
  return { ok: true, value: { exchange, nativeId } };
}
