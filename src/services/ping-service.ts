// GET /ping: reachability and authentication per exchange. An unreachable or failing venue is reported in its
// result, never thrown, and one slow venue cannot hold the others past the deadline.
import { type Static, Type } from 'typebox';
import { ExchangeId } from '../domain/exchanges.js';
import { AppError } from '../errors/app-error.js';
import type { SessionResolver } from '../vault/session-resolver.js';
import type { LoggerLike, VenueAdapter, VenueContext, VenueSession } from '../venues/port.js';
import type { VenueRegistry } from '../venues/registry.js';
import type { ExchangesService } from './exchanges-service.js';

export const PingResult = Type.Object({
  exchange: ExchangeId,
  has_credentials: Type.Boolean(),
  authenticated: Type.Boolean({ description: 'The credentials sent were accepted by the exchange' }),
  message: Type.String(),
  clock: Type.Optional(
    Type.String({ description: 'In a replay: the replay clock the answers are dated by (ISO 8601)' }),
  ),
});
export type PingResult = Static<typeof PingResult>;

export interface PingRequest {
  exchange: string | undefined;
  /** Raw X-Exchange-Credentials header, if sent. */
  credentialsHeader: string | undefined;
  requestId: string;
  logger: LoggerLike;
  tenant: string;
}

export class PingService {
  constructor(
    private readonly registry: VenueRegistry,
    private readonly exchanges: ExchangesService,
    private readonly timeoutMs: number,
    private readonly sessions: SessionResolver,
    /** A replay's clock, reported in every result; absent outside a replay. */
    private readonly replayClock?: () => number,
  ) {}

  async ping(request: PingRequest): Promise<PingResult[]> {
    const venues =
      request.exchange !== undefined ? [this.exchanges.venue(request.exchange)] : this.registry.list();
    let perRequest: VenueSession | null = null;
    if (request.credentialsHeader !== undefined) {
      const venue = venues[0];
      if (request.exchange === undefined || !venue) {
        throw new AppError('validation_error', 'X-Exchange-Credentials needs the exchange parameter', {
          validationErrors: ['query: exchange is required with X-Exchange-Credentials'],
        });
      }
      perRequest = this.sessions.perRequest({
        customerId: request.tenant,
        exchange: venue.descriptor.id,
        fields: venue.descriptor.credentials,
        header: request.credentialsHeader,
      });
    }
    const ctx = { requestId: request.requestId, logger: request.logger, tenant: request.tenant };
    return Promise.all(
      venues.map(async (venue) =>
        this.pingOne(venue, ctx, perRequest ?? (await this.stored(request.tenant, venue))),
      ),
    );
  }

  /** The customer's stored or managed session for the venue, or null when there is none. */
  private async stored(customerId: string, venue: VenueAdapter): Promise<VenueSession | null> {
    try {
      return await this.sessions.resolve({
        customerId,
        exchange: venue.descriptor.id,
        fields: venue.descriptor.credentials,
      });
    } catch (error) {
      if (error instanceof AppError && error.code === 'credentials_required') return null;
      throw error;
    }
  }

  private async pingOne(
    venue: VenueAdapter,
    ctx: Omit<VenueContext, 'signal'>,
    session: VenueSession | null,
  ): Promise<PingResult> {
    const exchange = venue.descriptor.id;
    const signal = AbortSignal.timeout(this.timeoutMs);
    const base = {
      exchange,
      has_credentials: session !== null,
      ...(this.replayClock ? { clock: new Date(this.replayClock()).toISOString() } : {}),
    };
    try {
      const outcome = await Promise.race([
        venue.ping({ ...ctx, signal }, session),
        new Promise<never>((_, reject) =>
          signal.addEventListener('abort', () => reject(new Error(`no answer within ${this.timeoutMs} ms`)), {
            once: true,
          }),
        ),
      ]);
      return { ...base, authenticated: session !== null && outcome.authenticated, message: outcome.message };
    } catch (error) {
      ctx.logger.warn({ exchange, err: error }, 'venue ping failed');
      return { ...base, authenticated: false, message: `unreachable: ${(error as Error).message}` };
    }
  }
}
