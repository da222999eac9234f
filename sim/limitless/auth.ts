// Limitless request authentication: `X-API-Key`, or scoped HMAC api-tokens (lmts-api-key, lmts-timestamp,
// lmts-signature = base64 HMAC-SHA256(base64decode(secret), ts\nMETHOD\npathWithQuery\nbody)). Holds paper accounts.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export interface LimitlessAccount {
  apiKey: string;
  tokenId: string;
  secret: string;
  address: string;
}

export class LimitlessAccounts {
  private readonly byKey = new Map<string, LimitlessAccount>();
  private readonly byToken = new Map<string, LimitlessAccount>();

  register(): LimitlessAccount {
    const account: LimitlessAccount = {
      apiKey: `lmts_${randomBytes(16).toString('hex')}`,
      tokenId: randomBytes(8).toString('hex'),
      secret: randomBytes(32).toString('base64'),
      address: `0x${randomBytes(20).toString('hex')}`,
    };
    this.byKey.set(account.apiKey, account);
    this.byToken.set(account.tokenId, account);
    return account;
  }

  /** Returns the caller's account, or null when no scheme authenticates the request. */
  verify(
    headers: Record<string, string | string[] | undefined>,
    method: string,
    pathWithQuery: string,
    body: string,
  ): LimitlessAccount | null {
    const apiKey = headers['x-api-key'];
    if (typeof apiKey === 'string') return this.byKey.get(apiKey) ?? null;
    const tokenId = headers['lmts-api-key'];
    const ts = headers['lmts-timestamp'];
    const sig = headers['lmts-signature'];
    if (typeof tokenId !== 'string' || typeof ts !== 'string' || typeof sig !== 'string') return null;
    const account = this.byToken.get(tokenId);
    if (!account) return null;
    const expected = createHmac('sha256', Buffer.from(account.secret, 'base64'))
      .update(`${ts}\n${method}\n${pathWithQuery}\n${body}`)
      .digest();
    const given = Buffer.from(sig, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected) ? account : null;
  }
}
