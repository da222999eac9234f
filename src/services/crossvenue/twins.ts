// The venues one bet is listed on: a market's outcome and the same outcome on each twin the matching engine
// published (same_market links at or above a confidence tier, HIGH by default), mapped through the link (an
// inverted twin's Yes is this market's No). The selected market itself must resolve (its errors are the
// request's); a twin that cannot be resolved is kept with its error, for the answer to list.
import { type Static, Type } from 'typebox';
import type { Capability } from '../../domain/capabilities.js';
import { twinOutcome } from '../../domain/crossvenue/twin-outcome.js';
import type { ExchangeId } from '../../domain/exchanges.js';
import { AppError, isAppError } from '../../errors/app-error.js';
import type { LinksRepo, TwinLink } from '../../store/links-repo.js';
import type { CallerContext } from '../caller-context.js';
import type { MarketSelector, MarketTarget, MarketTargets } from '../market-data/market-target.js';

export const CONFIDENCE_TIERS = ['HIGH', 'MEDIUM', 'LOW'] as const;
export const MinTier = Type.Enum(CONFIDENCE_TIERS, {
  description: 'The weakest link confidence tier used (default HIGH); MEDIUM also uses HIGH links, LOW all',
});
export type MinTier = Static<typeof MinTier>;

/** What a venue's failure looks like in an answer that still answers for the others. */
export const VenueError = Type.Object({
  error: Type.String(),
  code: Type.String(),
  retryable: Type.Boolean(),
});
export type VenueError = Static<typeof VenueError>;

export function venueError(error: unknown): VenueError {
  if (isAppError(error)) return { error: error.message, code: error.code, retryable: error.retryable };
  // A bug in one venue's path must not hide the others' books; it is still not blamed on the client.
  return { error: 'internal error while reading this venue', code: 'internal_error', retryable: false };
}

export interface ResolvedVenue {
  ok: true;
  target: MarketTarget;
  /** Null for the selected market itself. */
  link: TwinLink | null;
}

export interface FailedVenue {
  ok: false;
  svc_id: string;
  exchange: ExchangeId;
  /** The venue's outcome when the link maps it, else null. */
  outcome: string | null;
  token_id: string | null;
  /** Null for the selected market itself. */
  link: TwinLink | null;
  error: VenueError;
}

export type VenueOfBet = ResolvedVenue | FailedVenue;

/** A resolved venue that then failed (its book or its fee could not be read). */
export function failed(v: ResolvedVenue, error: unknown): FailedVenue {
  return {
    ok: false,
    svc_id: v.target.market.svc_id,
    exchange: v.target.venue.descriptor.id,
    outcome: v.target.outcome.name,
    token_id: v.target.outcome.token_id,
    link: v.link,
    error: venueError(error),
  };
}

const RANK: Record<MinTier, number> = { HIGH: 3, MEDIUM: 2, LOW: 1 };

export class Twins {
  constructor(
    private readonly targets: MarketTargets,
    private readonly links: Pick<LinksRepo, 'twins'>,
  ) {}

  /** The selected outcome first, then its twins' (strongest link first); only active twins. */
  async of(
    q: MarketSelector & { min_tier?: MinTier | undefined },
    capability: Capability,
    caller: CallerContext,
  ): Promise<VenueOfBet[]> {
    const origin = await this.targets.resolve(q, capability, caller);
    const floor = RANK[q.min_tier ?? 'HIGH'];
    const links = (await this.links.twins(origin.market.svc_id)).filter(
      (l) => l.status === 'active' && RANK[l.confidence_tier] >= floor,
    );
    const ownNames = origin.market.outcomes.map((o) => o.name);
    const twins = await Promise.all(
      links.map(async (link): Promise<VenueOfBet> => {
        let outcome: string | null = null;
        try {
          const twin = await this.targets.resolve({ svc_id: link.svc_id }, capability, caller);
          const mapped = twinOutcome(
            ownNames,
            origin.outcome.name,
            twin.market.outcomes.map((o) => o.name),
            link.inverted,
          );
          if (!mapped.ok) throw new AppError('not_supported', `${link.svc_id}: ${mapped.reason}`);
          outcome = mapped.name;
          const target = await this.targets.resolve({ svc_id: link.svc_id, outcome }, capability, caller);
          return { ok: true, target, link };
        } catch (error) {
          const error_ = venueError(error);
          return {
            ok: false,
            svc_id: link.svc_id,
            exchange: link.exchange,
            outcome,
            token_id: null,
            link,
            error: error_,
          };
        }
      }),
    );
    return [{ ok: true, target: origin, link: null }, ...twins];
  }
}
