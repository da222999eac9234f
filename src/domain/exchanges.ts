// The five exchange identifiers Omnibook speaks to. Order matters: it is the spec's exchange_a..exchange_e.
export const EXCHANGE_IDS = ['polymarket', 'kalshi', 'limitless', 'opinion', 'predictfun'] as const;

export type ExchangeId = (typeof EXCHANGE_IDS)[number];

const known: ReadonlySet<string> = new Set(EXCHANGE_IDS);

export function isExchangeId(value: unknown): value is ExchangeId {
  return typeof value === 'string' && known.has(value);
}
