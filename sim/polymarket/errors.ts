// The exact error texts the simulated Polymarket services answer with, in one reviewable table. Sources for each
// are recorded in docs/venues/polymarket-sim.md; texts with placeholders are built by the functions below.

export const CLOB_ERRORS = {
  unauthorized: 'Unauthorized/Invalid api key',
  invalidL1: 'Invalid L1 Request headers',
  couldNotCreateKey: 'Could not create api key',
  couldNotDeriveKey: 'Could not derive api key!',
  invalidTokenId: 'Invalid token id',
  noOrderbook: 'No orderbook exists for the requested token id',
  marketNotFound: 'market not found',
  invalidMarket: 'Invalid market',
  invalidSide: 'Invalid side',
  invalidPayload: 'Invalid payload',
  payloadLimit: 'Payload exceeds the limit',
  invalidOrderPayload: 'Invalid order payload',
  invalidOrderId: 'Invalid orderID',
  ownerMismatch: 'the order owner has to be the owner of the API KEY',
  signerMismatch: 'the order signer address has to be the address of the API KEY',
  depositWalletOnly: 'maker address not allowed, please use the deposit wallet flow',
  invalidSignature: 'invalid signature',
  invalidExpiration: 'invalid expiration',
  invalidPriceRange: 'invalid price, price must be greater than 0 and less than 1',
  marketNotReady: 'the market is not yet ready to process new orders',
  postOnlyCrosses: 'invalid post-only order: order crosses book',
  fokNotFilled: "order couldn't be fully filled. FOK orders are fully filled or killed.",
  fakNotFilled:
    'no orders found to match with FAK order. FAK orders are partially filled or killed if no match is found.',
  cannotCancel: "order can't be found - already canceled or matched",
  invalidOrderParams: 'invalid order params payload',
  invalidTradeParams: 'Invalid trade params payload',
  invalidAssetType: 'Invalid asset type',
  invalidSignatureType: 'Invalid signature_type',
  internal: 'Internal server error',
  tradingDisabled: 'Trading is currently disabled. Check polymarket.com for updates',
  tooManyRequests: 'Too Many Requests',
} as const;

export function tickError(orderId: string, price: string, tick: string): string {
  return `order ${orderId} is invalid. Price (${price}) breaks minimum tick size rule: ${tick}`;
}

export function minSizeError(orderId: string, size: string, min: string): string {
  return `order ${orderId} is invalid. Size (${size}) lower than the minimum: ${min}`;
}

export function marketableBuyMinError(notional: string): string {
  return `invalid amount for a marketable BUY order ($${notional}), min size: 1`;
}

export function duplicatedError(orderId: string): string {
  return `order ${orderId} is invalid. Duplicated.`;
}

export function tooManyOrdersError(count: number, max: number): string {
  return `Too many orders in payload: ${count}, max allowed: ${max}`;
}

/** Precision refusal; which amount is maker/taker and which cap applies follow the SDK's rounding config. */
export function amountsError(kind: 'buy' | 'market buy' | 'sell', makerDp: number, takerDp: number): string {
  return `invalid amounts, the ${kind} orders maker amount supports a max accuracy of ${makerDp} decimals, taker amount a max of ${takerDp} decimals`;
}

export function balanceError(balance: number, reserved: number, amount: number): string {
  const active = reserved > 0 ? `, sum of active orders: ${reserved}` : '';
  return `not enough balance / allowance: the balance is not enough -> balance: ${balance}${active}, order amount: ${amount}`;
}

export function allowanceError(amount: number, allowance = 0): string {
  return `not enough balance / allowance: the allowance is not enough -> allowance: ${allowance}, order amount: ${amount}`;
}

/** Relayer refusals. The real relayer's texts for these cases are not in our sources; these are the simulator's. */
export const RELAYER_ERRORS = {
  unauthorized: 'invalid authorization',
  invalidRequest: 'invalid request',
  unsupportedType: 'unsupported transaction type',
  alreadyDeployed: 'deposit wallet already deployed',
  invalidSignature: 'invalid signature',
  invalidNonce: 'invalid nonce',
  expired: 'deadline passed',
  notDeployed: 'deposit wallet not deployed',
  noChain: 'no chain to execute on',
  safeDeployed: 'safe already deployed',
  safeNotDeployed: 'safe not deployed',
} as const;

export const GAMMA_ERRORS = {
  idNotFound: { type: 'not found error', error: 'id not found' },
  slugNotFound: { type: 'not found error', error: 'slug not found' },
  idInvalid: { type: 'validation error', error: 'id is invalid' },
  internal: { type: 'internal error', error: 'cannot get the information' },
} as const;

export function gammaValidation(error: string): { type: string; error: string } {
  return { type: 'validation error', error };
}
