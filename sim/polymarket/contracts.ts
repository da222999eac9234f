// Polygon (chain 137) contracts of Polymarket's CLOB V2: the EIP-712 domains orders are signed against and the
// spenders/operators a V2 balance-allowance answer lists.

export const CHAIN_ID = 137;

export const CONTRACTS = {
  collateral: '0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB',
  conditionalTokens: '0x4D97DCd97eC945f40cF65F87097ACe5EA0476045',
  exchangeV2: '0xE111180000d2663C0091e4f400237545B87B996B',
  negRiskExchangeV2: '0xe2222d279d744050d28e00520010520000310F59',
  negRiskAdapter: '0xd91E80cF2E7be2e162c6513ceD06f1dD0dA35296',
} as const;

export const MAX_UINT256 = ((1n << 256n) - 1n).toString();

/** Spenders (collateral) or operators (outcome tokens) a trader approves for V2 trading. */
export const V2_SPENDERS = [
  CONTRACTS.exchangeV2,
  CONTRACTS.negRiskExchangeV2,
  CONTRACTS.negRiskAdapter,
] as const;

export const ORDER_DOMAIN_NAME = 'Polymarket CTF Exchange';
export const ORDER_DOMAIN_VERSION = '2';

/** The V2 signed Order struct; field order is part of the type hash. */
export const ORDER_TYPES = {
  Order: [
    { name: 'salt', type: 'uint256' },
    { name: 'maker', type: 'address' },
    { name: 'signer', type: 'address' },
    { name: 'tokenId', type: 'uint256' },
    { name: 'makerAmount', type: 'uint256' },
    { name: 'takerAmount', type: 'uint256' },
    { name: 'side', type: 'uint8' },
    { name: 'signatureType', type: 'uint8' },
    { name: 'timestamp', type: 'uint256' },
    { name: 'metadata', type: 'bytes32' },
    { name: 'builder', type: 'bytes32' },
  ],
} as const;

export const CLOB_AUTH_TYPES = {
  ClobAuth: [
    { name: 'address', type: 'address' },
    { name: 'timestamp', type: 'string' },
    { name: 'nonce', type: 'uint256' },
    { name: 'message', type: 'string' },
  ],
} as const;

export const CLOB_AUTH_MESSAGE = 'This message attests that I control the given wallet';
