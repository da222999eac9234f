// Token-bucket math (continuous refill at `rate` tokens/s up to `burst`), shared by API-key admission and venue
// transports that pace themselves to an exchange's published limits.
export interface Bucket {
  tokens: number;
  updatedAt: number;
}

export interface TakeResult {
  allowed: boolean;
  tokensLeft: number;
  retryAfterMs: number;
}

export function takeToken(bucket: Bucket, rate: number, burst: number, nowMs: number): TakeResult {
  const elapsed = Math.max(0, nowMs - bucket.updatedAt);
  bucket.tokens = Math.min(burst, bucket.tokens + (elapsed * rate) / 1000);
  bucket.updatedAt = nowMs;
  if (bucket.tokens >= 1) {
    bucket.tokens -= 1;
    return { allowed: true, tokensLeft: bucket.tokens, retryAfterMs: 0 };
  }
  return {
    allowed: false,
    tokensLeft: bucket.tokens,
    retryAfterMs: Math.ceil(((1 - bucket.tokens) * 1000) / rate),
  };
}
