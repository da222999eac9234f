// The order hash and signature check Opinion's CTF exchange performs, written with ethers so it is independent of
// the adapter's (viem) and the official SDK's (viem): the 12-field `Order` struct in the domain "OPINION CTF
// Exchange" v1, chain 56, at the quote token's exchange contract (SDK config.ts EIP712_DOMAIN,
// order_builder.ts ORDER_TYPES). A Safe order (signatureType 2) carries a plain EIP-712 signature by its owner.
import { getAddress, recoverAddress, TypedDataEncoder } from 'ethers';
import { ownValue, setOwn } from '../shared/own-key.js';

export const CHAIN_ID = 56;
export const ORDER_DOMAIN = { name: 'OPINION CTF Exchange', version: '1' } as const;

const ORDER_TYPES = {
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
};

const FIELDS = ORDER_TYPES.Order.map((f) => f.name);

/** The struct of a POST /order body (decimal strings), or the name of the first field that is not one. */
function structOf(body: Record<string, unknown>): Record<string, string> | string {
  const out: Record<string, string> = {};
  for (const name of FIELDS) {
    const value = ownValue(body, name);
    if (typeof value !== 'string' || value === '') return name;
    setOwn(out, name, value);
  }
  return out;
}

/** The order's EIP-712 digest, or null when a struct field is missing or unreadable. */
export function orderDigest(body: Record<string, unknown>, exchange: string): string | null {
  const struct = structOf(body);
  if (typeof struct === 'string') return null;
  try {
    return TypedDataEncoder.hash(
      { ...ORDER_DOMAIN, chainId: CHAIN_ID, verifyingContract: getAddress(exchange) },
      ORDER_TYPES,
      struct,
    );
  } catch {
    return null;
  }
}

/** The address that signed the order (checksummed), or null when the order or its signature cannot be read. */
export function recoverOrderSigner(body: Record<string, unknown>, exchange: string): string | null {
  const digest = orderDigest(body, exchange);
  const signature = body.signature;
  if (digest === null || typeof signature !== 'string' || !/^0x[0-9a-fA-F]{130}$/.test(signature))
    return null;
  try {
    return getAddress(recoverAddress(digest, signature));
  } catch {
    return null;
  }
}
