// The shapes of the builder routes (spec §2 BuilderUser and Builder pool, §4 builder endpoints; wire contract §5).
import { type Static, Type } from 'typebox';
import { BUILDER_TIER_NAMES } from '../../domain/builder-tiers.js';
import { ExchangeId } from '../../domain/exchanges.js';
import { OnboardBody, OnboardResult, WALLET_TYPES } from '../accounts/accounts-schema.js';

export const USERS_LIMIT_DEFAULT = 50;
export const USERS_LIMIT_MAX = 100;

const Address = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' });
const QpsLimit = Type.Number({ minimum: 1, maximum: 1e9, description: 'Requests per second, at least 1' });

export const BuilderUser = Type.Object({
  customer_id: Type.String(),
  external_id: Type.String(),
  email: Type.Union([Type.String(), Type.Null()]),
  api_key: Type.String({ description: "The end-user's own API key" }),
  tier: Type.Enum(BUILDER_TIER_NAMES, { description: "The builder's revenue tier" }),
  qps_limit: Type.Number(),
  linked_exchanges: Type.Array(ExchangeId),
  wallet: Type.Union([
    Type.Object({
      eoa_address: Type.String(),
      custodian_wallet_id: Type.Union([Type.String(), Type.Null()], {
        description: "The vault's id of a managed wallet; null for an address the builder gave (eoa_address)",
      }),
      wallet_type: Type.Enum(WALLET_TYPES),
    }),
    Type.Null(),
  ]),
  fee_escrow_enabled: Type.Boolean(),
  status: Type.Union([Type.Literal('active'), Type.Literal('deactivated')]),
  created_at: Type.String({ format: 'date-time' }),
  fee_bps: Type.Integer(),
  affiliate_address: Type.Union([Type.String(), Type.Null()]),
});
export type BuilderUser = Static<typeof BuilderUser>;

export const CreateBuilderUserBody = Type.Object(
  {
    external_id: Type.String({
      minLength: 1,
      maxLength: 200,
      description: "The builder's own id of this user",
    }),
    email: Type.Optional(Type.String({ minLength: 3, maxLength: 320, format: 'email' })),
    qps_limit: Type.Optional(QpsLimit),
    eoa_address: Type.Optional(Address),
  },
  { additionalProperties: false },
);
export type CreateBuilderUserBody = Static<typeof CreateBuilderUserBody>;

export const ListBuilderUsersQuery = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: USERS_LIMIT_MAX,
        description: `1 to ${USERS_LIMIT_MAX}, default ${USERS_LIMIT_DEFAULT}`,
      }),
    ),
    cursor: Type.Optional(
      Type.String({ minLength: 1, maxLength: 1000, description: 'next_cursor of a page' }),
    ),
  },
  { additionalProperties: false },
);
export type ListBuilderUsersQuery = Static<typeof ListBuilderUsersQuery>;

export const BuilderUsersPage = Type.Object({
  users: Type.Array(BuilderUser),
  next_cursor: Type.Optional(Type.String({ description: 'Omitted on the last page' })),
  count: Type.Integer({ description: 'Users on this page' }),
});
export type BuilderUsersPage = Static<typeof BuilderUsersPage>;

export const PatchBuilderUserBody = Type.Object({ qps_limit: QpsLimit }, { additionalProperties: false });
export type PatchBuilderUserBody = Static<typeof PatchBuilderUserBody>;

export const CustomerIdParams = Type.Object({ customer_id: Type.String({ minLength: 1, maxLength: 200 }) });

/** POST /onboard's body for one of the builder's end-users. */
export const BuilderOnboardBody = Type.Object(
  { ...OnboardBody.properties, customer_id: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: Type.Unknown() },
);
export type BuilderOnboardBody = Static<typeof BuilderOnboardBody>;

export const BuilderOnboardResult = Type.Object({
  customer_id: Type.String(),
  ...OnboardResult.properties,
});
export type BuilderOnboardResult = Static<typeof BuilderOnboardResult>;

export const BuilderPool = Type.Object({
  qps_pool: Type.Number(),
  end_user_count: Type.Integer({ description: 'Active end-users' }),
  total_allocated_qps: Type.Number({ description: 'Sum of the active end-users’ qps_limit' }),
});
export type BuilderPool = Static<typeof BuilderPool>;

export const EscrowConfig = Type.Object({
  fee_escrow_enabled: Type.Boolean(),
  fee_bps: Type.Integer({
    description: "The fee on an order's notional at the builder's tier, basis points",
  }),
  affiliate_address: Type.Union([Type.String(), Type.Null()]),
  escrow_contract_address: Type.Union([Type.String(), Type.Null()], {
    description: 'Null while no FeeEscrow contract is deployed for this server',
  }),
  chain_id: Type.Union([Type.Integer(), Type.Null()]),
  min_fee_usdc: Type.String({ description: 'USDC base units (6 decimals)' }),
  min_fee_bps: Type.Integer(),
  treasury_address: Type.Union([Type.String(), Type.Null()]),
  affiliate_fee_bps: Type.Integer({ description: "The affiliate's share of a collected fee, basis points" }),
  tier: Type.Enum(BUILDER_TIER_NAMES),
  eip712_domain: Type.Union(
    [
      Type.Object({
        name: Type.String(),
        version: Type.String(),
        chainId: Type.Integer(),
        verifyingContract: Type.String(),
      }),
      Type.Null(),
    ],
    {
      description: 'The EIP-712 domain fee_auth is signed in (PullFee); null while no FeeEscrow is deployed',
    },
  ),
  note: Type.Optional(Type.String({ description: 'Why fee escrow is not available, when it is not' })),
});
export type EscrowConfig = Static<typeof EscrowConfig>;
