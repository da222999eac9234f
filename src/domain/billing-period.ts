// Monthly quota periods are calendar months in UTC.
export interface BillingPeriod {
  /** `YYYY-MM`, the key under which counters are stored. */
  id: string;
  start: Date;
  end: Date;
}

export function billingPeriodOf(now: Date): BillingPeriod {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  const id = `${start.getUTCFullYear()}-${String(start.getUTCMonth() + 1).padStart(2, '0')}`;
  return { id, start, end };
}
