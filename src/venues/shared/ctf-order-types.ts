// The EIP-712 `Order` struct of the Gnosis CTF exchange that Polymarket published and Limitless, Opinion and
// Predict.fun deploy as their own exchange contracts: one field list, so the three venues' signing cannot drift apart.
// Sources: each venue's official SDK (docs/venues/limitless.md, opinion.md, predictfun.md).
export const CTF_ORDER_TYPES = {
  Order: [
    { name: 'salt', type: 'uint256' },
    { name: 'maker', type: 'address' },
    { name: 'signer', type: 'address' },
    { name: 'taker', type: 'address' },
    { name: 'tokenId', type: 'uint256' },
    { name: 'makerAmount', type: 'uint256' },
    { name: 'takerAmount', type: 'uint256' },
    { name: 'expiration', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'feeRateBps', type: 'uint256' },
    { name: 'side', type: 'uint8' },
    { name: 'signatureType', type: 'uint8' },
  ],
} as const;
