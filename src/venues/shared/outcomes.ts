// Resolves a client's outcome name against a market's outcomes, case-insensitively (clients send `yes` for
// `Yes`); an outcome the market does not have is the client's mistake: 400 naming the valid ones.
import type { Market, Outcome } from '../../domain/market.js';
import { AppError } from '../../errors/app-error.js';

export function findOutcome(market: Market, outcome: string): Outcome & { token_id: string } {
  const wanted = outcome.trim().toLowerCase();
  const found = market.outcomes.find((o) => o.name.toLowerCase() === wanted);
  if (!found) {
    const valid = market.outcomes.map((o) => o.name).join(', ');
    throw new AppError(
      'validation_error',
      `${market.svc_id} has no outcome '${outcome}' (outcomes: ${valid})`,
      {
        validationErrors: [`outcome must be one of: ${valid}`],
      },
    );
  }
  if (!found.token_id) {
    throw new AppError('service_unavailable', `${market.svc_id} outcome ${found.name} has no token id yet`);
  }
  return found as Outcome & { token_id: string };
}
