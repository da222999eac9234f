// The shapes of POST /onboard, GET /wallet and POST /wallet/export-key (wire contract §4, spec §2 wallet state).
import { type Static, Type } from 'typebox';
import { ExchangeId } from '../../domain/exchanges.js';

export const WALLET_TYPES = ['eoa', 'safe', 'proxy', 'deposit'] as const;
export type WalletType = (typeof WALLET_TYPES)[number];

export const ONBOARD_STEPS = [
  'wallet_eoa_created',
  'external_eoa_provided',
  'wallet_safe_created',
  'wallet_deposit_created',
  'exchange_linked',
  'credentials_validated',
  'credentials_stored',
] as const;
export type OnboardStep = (typeof ONBOARD_STEPS)[number];

/**
 * The onboarding fields; the exchange's credential fields (its descriptor's `credentials`, e.g. kalshi
 * `api_key_id` + `private_key`) sit beside them and are checked per exchange by the service.
 */
export const OnboardBody = Type.Object(
  {
    exchange: Type.String({ minLength: 1, maxLength: 64 }),
    mode: Type.Union([Type.Literal('self'), Type.Literal('managed')]),
    wallet_type: Type.Optional(
      Type.Enum(WALLET_TYPES, {
        description:
          'Polymarket: eoa (signature type 0), proxy (1), safe (2), deposit (3, required for accounts created since May 2026). ' +
          'Default eoa for self; managed creates a deposit wallet when the adapter can.',
      }),
    ),
    eoa_address: Type.Optional(
      Type.String({ description: 'The signing EOA; required for safe, checked against private_key' }),
    ),
    funder_address: Type.Optional(
      Type.String({
        description: 'The safe, proxy or deposit wallet holding the funds, when it already exists',
      }),
    ),
    chain_id: Type.Optional(
      Type.Integer({ description: 'Polygon mainnet, 137 (the only chain Polymarket trades on)' }),
    ),
  },
  { additionalProperties: Type.Unknown() },
);
export type OnboardBody = Static<typeof OnboardBody>;

export const OnboardResult = Type.Object({
  exchange: ExchangeId,
  mode: Type.Union([Type.Literal('self'), Type.Literal('managed')]),
  status: Type.Literal('complete'),
  eoa_address: Type.Optional(Type.String()),
  safe_address: Type.Optional(Type.String()),
  deposit_wallet_address: Type.Optional(Type.String()),
  /** Extension: the wallet holding the funds for every non-EOA wallet type (also proxy, which has no named field). */
  funder_address: Type.Optional(Type.String()),
  wallet_type: Type.Optional(Type.Enum(WALLET_TYPES)),
  linked_exchanges: Type.Array(ExchangeId),
  steps_completed: Type.Array(Type.Enum(ONBOARD_STEPS)),
});
export type OnboardResult = Static<typeof OnboardResult>;

export const WalletInfo = Type.Object({
  /** The EOA that owns (signs for) this wallet. */
  eoa_address: Type.String(),
  /** Extension: this wallet's own address (the EOA itself, or its deposit wallet). */
  address: Type.String(),
  custodian_wallet_id: Type.String(),
  wallet_type: Type.Enum(WALLET_TYPES),
  chain_id: Type.Integer(),
  created_at: Type.String({ format: 'date-time' }),
});
export type WalletInfo = Static<typeof WalletInfo>;

export const WalletState = Type.Object({
  wallet: Type.Union([WalletInfo, Type.Null()]),
  wallets: Type.Array(WalletInfo),
  session_signer: Type.Union([
    Type.Object({ active: Type.Boolean(), expires_at: Type.String(), signer_id: Type.String() }),
    Type.Null(),
  ]),
  linked_exchanges: Type.Array(Type.Object({ exchange: ExchangeId, has_credentials: Type.Boolean() })),
});
export type WalletState = Static<typeof WalletState>;

export const ExportKeyBody = Type.Object(
  { wallet_type: Type.Union([Type.Literal('eoa'), Type.Literal('safe')]) },
  { additionalProperties: false },
);
export type ExportKeyBody = Static<typeof ExportKeyBody>;

export const ExportedKey = Type.Object({ private_key: Type.String() });
export type ExportedKey = Static<typeof ExportedKey>;
