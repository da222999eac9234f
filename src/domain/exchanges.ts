// The five exchange identifiers Omnibook speaks to. Order matters: it is the spec's exchange_a..exchange_e.
import { type Static, Type } from 'typebox';

export const EXCHANGE_IDS = ['polymarket', 'kalshi', 'limitless', 'opinion', 'predictfun'] as const;

export const ExchangeId = Type.Enum(EXCHANGE_IDS);
export type ExchangeId = Static<typeof ExchangeId>;

const known: ReadonlySet<string> = new Set(EXCHANGE_IDS);

export function isExchangeId(value: unknown): value is ExchangeId {
  return typeof value === 'string' && known.has(value);
}
