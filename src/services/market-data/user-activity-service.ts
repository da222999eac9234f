// GET /user-activity: a wallet's public activity on several exchanges at once, each exchange's own document. The
// address is checked against every asked exchange's rule before any venue is called; then the venues are asked in
// parallel, each under its own deadline, and one that fails or is slow is reported in `status`, never as a failed call.
import { type Static, type TSchema, Type } from 'typebox';
import type { ExchangeId } from '../../domain/exchanges.js';
import { ADDRESS_RULES } from '../../domain/wallet-address.js';
import { AppError, isAppError } from '../../errors/app-error.js';
import type { VenueAdapter } from '../../venues/port.js';
import type { VenueRegistry } from '../../venues/registry.js';
import type { CallerContext } from '../caller-context.js';
import type { ExchangesService } from '../exchanges-service.js';

export const USER_ACTIVITY_LIMIT_DEFAULT = 100;
/** Polymarket's Data API pages at most 500 positions; no venue is asked for more rows than that per list. */
export const USER_ACTIVITY_LIMIT_MAX = 500;

/** The spec's default: the exchanges with public wallet activity, in the spec's order. */
export const USER_ACTIVITY_DEFAULT_EXCHANGES: readonly ExchangeId[] = [
  'polymarket',
  'opinion',
  'limitless',
  'predictfun',
];

export const UserActivityQuery = Type.Object(
  {
    address: Type.String({
      minLength: 1,
      maxLength: 100,
      description:
        'Public wallet address. Every exchange served here wants an EVM address: 0x and 40 hex digits, ' +
        'lower-case, upper-case or EIP-55 checksummed (a mixed-case address must carry a valid checksum)',
    }),
    exchanges: Type.Optional(
      Type.String({
        maxLength: 200,
        description: `Comma-separated exchange ids; default ${USER_ACTIVITY_DEFAULT_EXCHANGES.join(',')}`,
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: USER_ACTIVITY_LIMIT_MAX,
        description: `Rows per list of each exchange's document, 1 to ${USER_ACTIVITY_LIMIT_MAX} (default ${USER_ACTIVITY_LIMIT_DEFAULT})`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type UserActivityQuery = Static<typeof UserActivityQuery>;

/** A venue's own JSON object, passed through as sent. */
const VenueObject = Type.Record(Type.String(), Type.Unknown());
const VenueRows = (description: string) => Type.Array(VenueObject, { description });
const Nullable = <T extends TSchema>(schema: T, description: string) =>
  Type.Union([schema, Type.Null()], { description });

const OpinionList = (what: string) =>
  Type.Object(
    {
      total: Nullable(Type.Integer(), `Opinion's own count of ${what} (null when it sends none)`),
      list: VenueRows(`Opinion's ${what} rows as sent, pages joined, at most \`limit\``),
    },
    { additionalProperties: false },
  );

/** Each exchange's document: the top-level keys are ours to fix, everything under them is the venue's. */
export const UserActivityDocuments = Type.Object(
  {
    polymarket: Type.Optional(
      Type.Object(
        {
          positions: VenueRows('Data API `GET /positions?user=` rows as sent, at most `limit`'),
          value: VenueRows('Data API `GET /value?user=` as sent: `[{ user, value }]`, value in USD'),
        },
        { additionalProperties: false, description: 'Polymarket: positions plus portfolio value' },
      ),
    ),
    opinion: Type.Optional(
      Type.Object(
        {
          positions: OpinionList('positions (`GET /positions/user/{address}`)'),
          trades: OpinionList('filled trades (`GET /trade/user/{address}`)'),
        },
        { additionalProperties: false, description: 'Opinion: positions plus filled trades' },
      ),
    ),
    limitless: Type.Optional(
      Type.Object(
        {
          positions: Nullable(
            VenueObject,
            '`GET /portfolio/{address}/positions` as sent (its `clob`, `amm` and `group` lists cut to `limit` ' +
              'each); null when Limitless does not know the address',
          ),
          'traded-volume': Nullable(
            VenueObject,
            '`GET /portfolio/{address}/traded-volume` as sent; null when Limitless does not know the address',
          ),
        },
        { additionalProperties: false, description: 'Limitless: positions plus traded volume' },
      ),
    ),
    predictfun: Type.Optional(
      Type.Object(
        {
          positions: VenueRows('`GET /v1/positions/{address}` rows as sent, pages joined, at most `limit`'),
          matches: VenueRows(
            '`GET /v1/orders/matches?signerAddress=` rows (the address on either side) as sent, at most `limit`',
          ),
        },
        { additionalProperties: false, description: 'Predict.fun: positions plus matched trades' },
      ),
    ),
  },
  {
    additionalProperties: false,
    description:
      'The document of each exchange that answered, under its id; a failed exchange is absent here',
  },
);

export const UserActivityStatus = Type.Object(
  {
    success: Type.Boolean(),
    error: Type.Optional(Type.String({ description: 'Why the exchange has no document (failures only)' })),
  },
  { additionalProperties: false },
);
export type UserActivityStatus = Static<typeof UserActivityStatus>;

export const UserActivity = Type.Object(
  {
    exchanges: UserActivityDocuments,
    status: Type.Object(
      Object.fromEntries(
        USER_ACTIVITY_DEFAULT_EXCHANGES.map((id) => [id, Type.Optional(UserActivityStatus)]),
      ),
      {
        additionalProperties: false,
        description: 'One entry per exchange asked, whether it answered or not',
      },
    ),
  },
  { additionalProperties: false },
);
export type UserActivity = Static<typeof UserActivity>;

type Outcome = { id: ExchangeId; document: Record<string, unknown> } | { id: ExchangeId; error: string };

export class UserActivityService {
  constructor(
    private readonly registry: VenueRegistry,
    private readonly exchanges: ExchangesService,
    /** Deadline of each exchange's answer (venues.timeoutMs). */
    private readonly venueTimeoutMs: number,
  ) {
    for (const venue of registry.list()) {
      const { id, has } = venue.descriptor;
      if (has.fetch_user_activity !== 'unsupported' && !ADDRESS_RULES[id]) {
        throw new Error(
          `${id} declares fetch_user_activity but GET /user-activity has no address rule for it`,
        );
      }
    }
  }

  async activity(q: UserActivityQuery, caller: CallerContext): Promise<UserActivity> {
    const venues = this.selected(q.exchanges);
    this.checkAddress(q.address, venues);
    const limit = q.limit ?? USER_ACTIVITY_LIMIT_DEFAULT;
    const outcomes = await Promise.all(venues.map((venue) => this.askOne(venue, q.address, limit, caller)));
    const exchanges: Record<string, Record<string, unknown>> = {};
    const status: Record<string, UserActivityStatus> = {};
    for (const outcome of outcomes) {
      if ('document' in outcome) {
        exchanges[outcome.id] = outcome.document;
        status[outcome.id] = { success: true };
      } else {
        status[outcome.id] = { success: false, error: outcome.error };
      }
    }
    // Each document is the adapter's, decoded against the venue's payload schema; the route's response schema
    // documents the top-level shape per exchange and the tests hold every answer to it.
    return { exchanges, status } as UserActivity;
  }

  /**
   * The venues to ask, in the order asked (duplicates dropped): 404 for an unknown exchange, 501 for one without
   * public wallet activity. An absent or empty list means the spec's default, restricted to what this server runs.
   */
  private selected(raw: string | undefined): VenueAdapter[] {
    const named = (raw ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0);
    if (named.length === 0) {
      return USER_ACTIVITY_DEFAULT_EXCHANGES.map((id) => this.registry.get(id)).filter(
        (venue): venue is VenueAdapter =>
          venue !== undefined && venue.descriptor.has.fetch_user_activity !== 'unsupported',
      );
    }
    const venues = new Map<ExchangeId, VenueAdapter>();
    for (const id of named) {
      const venue = this.exchanges.venueFor(id, 'fetch_user_activity');
      venues.set(venue.descriptor.id, venue);
    }
    return [...venues.values()];
  }

  /** Every asked exchange's rule, before any of them is called: one malformed address fails the whole call. */
  private checkAddress(address: string, venues: readonly VenueAdapter[]): void {
    const problems: string[] = [];
    for (const venue of venues) {
      const id = venue.descriptor.id;
      const rule = ADDRESS_RULES[id];
      const problem = rule?.problem(address);
      // The value is not repeated: a string pasted by mistake into `address` may be a private key.
      if (rule && problem) problems.push(`address ${problem}: ${id} needs ${rule.describe}`);
    }
    if (problems.length > 0) {
      throw new AppError('validation_error', problems[0] as string, { validationErrors: problems });
    }
  }

  /** One exchange's document, or why there is none; never throws. */
  private async askOne(
    venue: VenueAdapter,
    address: string,
    limit: number,
    caller: CallerContext,
  ): Promise<Outcome> {
    const id = venue.descriptor.id;
    const fetchUserActivity = venue.marketData.fetchUserActivity;
    if (!fetchUserActivity) return { id, error: `${id} has no public wallet activity` };
    const signal = AbortSignal.timeout(this.venueTimeoutMs);
    const late = `${id} did not answer within ${this.venueTimeoutMs} ms`;
    try {
      const document = await beforeDeadline(
        fetchUserActivity.call(
          venue.marketData,
          { requestId: caller.requestId, logger: caller.logger, tenant: caller.tenant, signal },
          address,
          limit,
        ),
        signal,
      );
      return { id, document };
    } catch (error) {
      if (signal.aborted) {
        caller.logger.warn({ exchange: id }, late);
        return { id, error: late };
      }
      if (isAppError(error)) {
        caller.logger.warn({ exchange: id, code: error.code, err: error.cause ?? error }, error.message);
        return { id, error: error.message };
      }
      // Not a venue failure but ours: logged as a bug, still reported as this exchange's failure only.
      caller.logger.error({ exchange: id, err: error }, 'wallet activity failed unexpectedly');
      return { id, error: `${id}: internal error; the request id identifies it in the server logs` };
    }
  }
}

/** The venue's answer, or a rejection the moment the deadline passes (an adapter may be slow to notice its signal). */
function beforeDeadline<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
