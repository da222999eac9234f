// POST /onboard: links the calling customer to an exchange. `self` takes the customer's own credentials, proves them
// with one authenticated call and only then seals them into the vault; `managed` (Polymarket) creates the wallet
// here, keeps its key sealed, creates its deposit wallet on the venue and proves the result the same way. Repeating
// a call is safe: it answers the same addresses. Messages name fields, never their values.
import { generatePrivateKey } from 'viem/accounts';
import type { ExchangeId } from '../../domain/exchanges.js';
import { ownValue } from '../../domain/own-key.js';
import { AppError, validationError } from '../../errors/app-error.js';
import type { CredentialsStore } from '../../vault/credentials-store.js';
import type { LoggerLike, VenueAdapter, VenueContext, VenueSession } from '../../venues/port.js';
import type { ExchangesService } from '../exchanges-service.js';
import type { OnboardBody, OnboardResult, OnboardStep, WalletType } from './accounts-schema.js';
import { ONBOARD_STEPS } from './accounts-schema.js';
import { checkAddress, eoaOf, POLYGON_CHAIN_ID, SIGNATURE_TYPE, sameAddress } from './polymarket-wallet.js';
import { verifyCredentials } from './verify-credentials.js';

export interface AccountCaller {
  customerId: string;
  requestId: string;
  logger: LoggerLike;
}

/** Body fields of the onboarding itself; every other field is one of the exchange's credential fields. */
const ONBOARD_FIELDS = new Set([
  'exchange',
  'mode',
  'wallet_type',
  'eoa_address',
  'funder_address',
  'chain_id',
]);
/** Polymarket credential fields onboarding derives from wallet_type and funder_address rather than takes. */
const DERIVED_FIELDS = new Set(['signature_type', 'funder_address']);

interface Outcome {
  eoa?: string;
  walletType?: WalletType;
  funder?: string;
  steps: Set<OnboardStep>;
}

export class OnboardingService {
  constructor(
    private readonly exchanges: ExchangesService,
    private readonly store: CredentialsStore,
    private readonly timeoutMs: number,
  ) {}

  async onboard(caller: AccountCaller, body: OnboardBody): Promise<OnboardResult> {
    const venue = this.exchanges.venue(body.exchange);
    const { id, onboarding } = venue.descriptor;
    if (!onboarding.includes(body.mode)) {
      const offered = onboarding.length > 0 ? `; it offers ${onboarding.join(', ')}` : '';
      throw new AppError('not_supported', `${id} does not offer ${body.mode} onboarding${offered}`);
    }
    const ctx: VenueContext = {
      signal: AbortSignal.timeout(this.timeoutMs),
      requestId: caller.requestId,
      logger: caller.logger,
      tenant: caller.customerId,
    };
    // Polymarket's wallet onboarding applies where its credentials are a wallet's (a replay's polymarket venue
    // takes a paper account name, as any keyed venue).
    const wallet = id === 'polymarket' && venue.descriptor.credentials.some((c) => c.name === 'private_key');
    const outcome =
      body.mode === 'managed'
        ? await this.managed(caller, venue, ctx, body)
        : wallet
          ? await this.selfPolymarket(caller, venue, ctx, body)
          : await this.selfKeyed(caller, venue, ctx, body);
    const linked = [...new Set((await this.store.list(caller.customerId)).map((r) => r.exchange))].sort();
    const result: OnboardResult = {
      exchange: id,
      mode: body.mode,
      status: 'complete',
      linked_exchanges: linked as ExchangeId[],
      steps_completed: ONBOARD_STEPS.filter((s) => outcome.steps.has(s)),
    };
    if (outcome.eoa) result.eoa_address = outcome.eoa;
    if (outcome.walletType) result.wallet_type = outcome.walletType;
    if (outcome.funder) {
      result.funder_address = outcome.funder;
      if (outcome.walletType === 'safe') result.safe_address = outcome.funder;
      if (outcome.walletType === 'deposit') result.deposit_wallet_address = outcome.funder;
    }
    return result;
  }

  /** An exchange whose credentials are an API key (kalshi): the fields its descriptor names, nothing else. */
  private async selfKeyed(
    caller: AccountCaller,
    venue: VenueAdapter,
    ctx: VenueContext,
    body: OnboardBody,
  ): Promise<Outcome> {
    const problems: string[] = [];
    for (const field of ['wallet_type', 'eoa_address', 'funder_address', 'chain_id'] as const) {
      if (body[field] !== undefined) problems.push(`body.${field} applies to polymarket only`);
    }
    const credentials = credentialFields(body, venue, new Set(), problems);
    if (problems.length > 0) throw validationError(problems);
    await this.refuseOtherMode(caller, venue.descriptor.id, 'managed_wallet');
    const session = sessionOf(venue, credentials, 'stored');
    await verifyCredentials(venue, ctx, session);
    await this.store.save(caller.customerId, venue.descriptor.id, 'exchange_credentials', credentials, {
      walletType: null,
      signatureType: null,
      eoaAddress: null,
      funderAddress: null,
      chainId: null,
    });
    return { steps: new Set(['exchange_linked', 'credentials_validated', 'credentials_stored']) };
  }

  private async selfPolymarket(
    caller: AccountCaller,
    venue: VenueAdapter,
    ctx: VenueContext,
    body: OnboardBody,
  ): Promise<Outcome> {
    const problems: string[] = [];
    const credentials = credentialFields(body, venue, DERIVED_FIELDS, problems);
    const walletType: WalletType = body.wallet_type ?? 'eoa';
    const signatureType = SIGNATURE_TYPE.get(walletType) ?? 0;
    checkChain(body, problems);
    checkAddress(body.eoa_address, 'eoa_address', problems);
    checkAddress(body.funder_address, 'funder_address', problems);
    if (walletType === 'eoa' && body.funder_address !== undefined) {
      problems.push('body.funder_address applies to wallet_type safe, proxy or deposit');
    }
    if (walletType === 'safe' && body.eoa_address === undefined) {
      problems.push('body.eoa_address is required for wallet_type safe (the Safe owner that signs)');
    }
    if ((walletType === 'safe' || walletType === 'proxy') && body.funder_address === undefined) {
      problems.push(
        `body.funder_address is required for wallet_type ${walletType} (the wallet holding the funds)`,
      );
    }
    const givenType = ownValue(body as Record<string, unknown>, 'signature_type');
    if (givenType !== undefined && String(givenType) !== String(signatureType)) {
      problems.push(
        `body.signature_type disagrees with wallet_type ${walletType} (signature type ${signatureType})`,
      );
    }
    if (problems.length > 0) throw validationError(problems);
    const eoa = eoaOf(credentials.private_key ?? '');
    if (body.eoa_address !== undefined && !sameAddress(body.eoa_address, eoa)) {
      throw validationError(['body.eoa_address is not the address of body.private_key']);
    }
    if (walletType !== 'eoa') requireFunderSigning(venue);
    await this.refuseOtherMode(caller, 'polymarket', 'managed_wallet');

    const steps = new Set<OnboardStep>(['external_eoa_provided']);
    let funder = body.funder_address;
    if (walletType === 'deposit' && funder === undefined) {
      funder = await ensureDepositWallet(
        venue,
        ctx,
        { private_key: credentials.private_key ?? '' },
        'stored',
      );
      steps.add('wallet_deposit_created');
    }
    const sessionCredentials: Record<string, string> = { ...credentials };
    if (walletType !== 'eoa') {
      sessionCredentials.signature_type = String(signatureType);
      if (funder !== undefined) sessionCredentials.funder_address = funder;
    }
    await verifyCredentials(venue, ctx, sessionOf(venue, sessionCredentials, 'stored'));
    steps.add('credentials_validated');
    await this.store.save(caller.customerId, 'polymarket', 'exchange_credentials', sessionCredentials, {
      walletType,
      signatureType,
      eoaAddress: eoa,
      funderAddress: funder ?? null,
      chainId: POLYGON_CHAIN_ID,
    });
    steps.add('credentials_stored').add('exchange_linked');
    return { eoa, walletType, ...(funder !== undefined ? { funder } : {}), steps };
  }

  /**
   * Polymarket managed: the EOA is generated here and sealed before anything else, so a retry after a failure
   * (venue down) continues with the same wallet instead of creating another. Its deposit wallet is created on the
   * venue when the adapter can (the default then), and the result is proven with an authenticated call.
   */
  private async managed(
    caller: AccountCaller,
    venue: VenueAdapter,
    ctx: VenueContext,
    body: OnboardBody,
  ): Promise<Outcome> {
    const id = venue.descriptor.id;
    const problems: string[] = [];
    for (const name of Object.keys(body)) {
      if (!ONBOARD_FIELDS.has(name)) {
        problems.push(
          `body.${name}: managed onboarding takes no credentials (the service creates the wallet)`,
        );
      }
    }
    for (const field of ['eoa_address', 'funder_address'] as const) {
      if (body[field] !== undefined)
        problems.push(`body.${field}: a managed wallet is created by the service`);
    }
    if (body.wallet_type === 'safe' || body.wallet_type === 'proxy') {
      problems.push('body.wallet_type: a managed wallet is eoa or deposit');
    }
    checkChain(body, problems);
    if (problems.length > 0) throw validationError(problems);
    await this.refuseOtherMode(caller, id, 'exchange_credentials');

    const canCreateDeposit = venue.trading.ensureDepositWallet !== undefined;
    const existing = await this.store.info(caller.customerId, id, 'managed_wallet');
    const walletType: WalletType =
      (existing?.wallet_type as WalletType | undefined) ??
      body.wallet_type ??
      (canCreateDeposit ? 'deposit' : 'eoa');
    let target = walletType;
    if (body.wallet_type !== undefined && body.wallet_type !== walletType) {
      // An EOA-only managed wallet may gain its deposit wallet; a deposit wallet is never given up.
      if (walletType === 'eoa' && body.wallet_type === 'deposit') target = 'deposit';
      else throw new AppError('conflict', `this managed ${id} wallet is a ${walletType} wallet`);
    }
    if (target === 'deposit') {
      if (!canCreateDeposit) {
        throw new AppError('not_supported', `this server's ${id} adapter cannot create deposit wallets`);
      }
      requireFunderSigning(venue);
    }
    if (!existing) {
      const privateKey = generatePrivateKey();
      await this.store.saveIfAbsent(
        caller.customerId,
        id,
        'managed_wallet',
        { private_key: privateKey },
        {
          walletType: target,
          signatureType: SIGNATURE_TYPE.get(target) ?? 0,
          eoaAddress: eoaOf(privateKey),
          funderAddress: null,
          chainId: POLYGON_CHAIN_ID,
        },
      );
    }
    // Whoever won a concurrent creation, this is the wallet.
    const sealed = await this.store.credentials(caller.customerId, id, 'managed_wallet');
    const privateKey = sealed?.private_key;
    if (!privateKey) throw new AppError('internal_error', 'the managed wallet record holds no key');
    const eoa = eoaOf(privateKey);
    const steps = new Set<OnboardStep>(['wallet_eoa_created']);
    const credentials: Record<string, string> = { private_key: privateKey };
    let funder: string | undefined;
    if (target === 'deposit') {
      funder =
        sealed.funder_address ??
        (await ensureDepositWallet(venue, ctx, { private_key: privateKey }, 'managed'));
      steps.add('wallet_deposit_created');
      credentials.signature_type = String(SIGNATURE_TYPE.get('deposit'));
      credentials.funder_address = funder;
    }
    await verifyCredentials(venue, ctx, sessionOf(venue, credentials, 'managed'));
    steps.add('credentials_validated');
    await this.store.save(caller.customerId, id, 'managed_wallet', credentials, {
      walletType: target,
      signatureType: SIGNATURE_TYPE.get(target) ?? 0,
      eoaAddress: eoa,
      funderAddress: funder ?? null,
      chainId: POLYGON_CHAIN_ID,
    });
    steps.add('credentials_stored').add('exchange_linked');
    return { eoa, walletType: target, ...(funder !== undefined ? { funder } : {}), steps };
  }

  /** Self and managed credentials for one exchange do not mix: a managed wallet's key is never dropped silently. */
  private async refuseOtherMode(
    caller: AccountCaller,
    exchange: ExchangeId,
    other: 'managed_wallet' | 'exchange_credentials',
  ): Promise<void> {
    if (await this.store.info(caller.customerId, exchange, other)) {
      throw new AppError(
        'conflict',
        other === 'managed_wallet'
          ? `this account already has a managed ${exchange} wallet; its key can be exported with POST /wallet/export-key`
          : `this account already has its own ${exchange} credentials (mode self)`,
      );
    }
  }
}

/**
 * The exchange's credential fields from the body: each a non-empty string, the required ones present, and no
 * field the exchange does not know (`skip` are fields onboarding fills in itself).
 */
function credentialFields(
  body: OnboardBody,
  venue: VenueAdapter,
  skip: ReadonlySet<string>,
  problems: string[],
): Record<string, string> {
  const { id, credentials: fields } = venue.descriptor;
  const record = body as Record<string, unknown>;
  const known = new Set(fields.map((f) => f.name));
  const out: Array<[string, string]> = [];
  for (const field of fields) {
    if (skip.has(field.name)) continue;
    const value = ownValue(record, field.name);
    if (value === undefined || value === null || value === '') {
      if (field.required) problems.push(`body.${field.name} is required for ${id}`);
    } else if (typeof value !== 'string') problems.push(`body.${field.name} must be a string`);
    else out.push([field.name, value]);
  }
  // An unknown name is not repeated: it may be a secret pasted as a name. The accepted ones are listed instead.
  const unknown = Object.keys(record).filter(
    (name) => !ONBOARD_FIELDS.has(name) && !known.has(name) && !skip.has(name),
  ).length;
  if (unknown > 0) {
    const accepted = [...ONBOARD_FIELDS, ...[...known].filter((name) => !skip.has(name))];
    problems.push(
      `body has ${unknown} field(s) ${id} onboarding does not take (names not repeated; it takes ${accepted.join(', ')})`,
    );
  }
  return Object.fromEntries(out);
}

function checkChain(body: OnboardBody, problems: string[]): void {
  if (body.chain_id !== undefined && body.chain_id !== POLYGON_CHAIN_ID) {
    problems.push(`body.chain_id must be ${POLYGON_CHAIN_ID} (Polygon), where Polymarket trades`);
  }
}

/** Non-EOA wallets need an adapter that signs for a funder (its descriptor takes `funder_address`). */
function requireFunderSigning(venue: VenueAdapter): void {
  if (!venue.descriptor.credentials.some((f) => f.name === 'funder_address')) {
    throw new AppError(
      'not_supported',
      `this server's ${venue.descriptor.id} adapter signs as a plain EOA only (wallet_type eoa)`,
    );
  }
}

async function ensureDepositWallet(
  venue: VenueAdapter,
  ctx: VenueContext,
  credentials: Record<string, string>,
  source: VenueSession['source'],
): Promise<string> {
  const ensure = venue.trading.ensureDepositWallet;
  if (!ensure) {
    throw new AppError(
      'not_supported',
      `this server's ${venue.descriptor.id} adapter cannot create deposit wallets; send funder_address`,
    );
  }
  const { address } = await ensure.call(venue.trading, ctx, sessionOf(venue, credentials, source));
  return address;
}

function sessionOf(
  venue: VenueAdapter,
  credentials: Record<string, string>,
  source: VenueSession['source'],
): VenueSession {
  return Object.freeze({
    exchange: venue.descriptor.id,
    credentials: Object.freeze({ ...credentials }),
    source,
  });
}
