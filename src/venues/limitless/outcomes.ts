// Resolves a client's outcome name against a Limitless market (every one is Yes/No), case-insensitively: an
// outcome the market does not have is the client's mistake, 400 naming the valid ones.
import type { Market } from '../../domain/market.js';
import { AppError } from '../../errors/app-error.js';
import { type LimitlessOutcome, resolveOutcome } from './parse.js';

export function limitlessOutcome(market: Market, outcome: string): LimitlessOutcome {
  const found = resolveOutcome(outcome);
  if (!found) {
    throw new AppError(
      'validation_error',
      `${market.svc_id} has no outcome '${outcome}' (outcomes: Yes, No)`,
      {
        validationErrors: ['outcome must be one of: Yes, No'],
      },
    );
  }
  return found;
}

/** The token id of an outcome; a market without one cannot be read (it is not a CLOB market). */
export function outcomeToken(market: Market, outcome: LimitlessOutcome): string {
  const token = market.outcomes.find((o) => o.name === outcome)?.token_id;
  if (!token)
    throw new AppError('validation_error', `${market.svc_id} has no order book (no ${outcome} token)`);
  return token;
}
