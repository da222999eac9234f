// The order hash and signature checks the exchange contract performs, written with ethers so that they are an
// implementation independent of the adapter's (the official SDK over viem): a shared bug cannot make both sides
// agree on a wrong digest. EOA, proxy and Safe orders carry a plain EIP-712 signature by the signer (ecrecover);
// POLY_1271 orders are validated by the deposit wallet's isValidSignature, which for Polymarket's Solady-based
// wallet is the ERC-7739 nested typed-data scheme: the owner signs `TypedDataSign{contents: Order, name, version,
// chainId, verifyingContract, salt}` (the wallet's own domain fields, "DepositWallet" v"1") under the exchange's
// domain, and the signature carries `inner(65) ‖ appDomainSeparator ‖ contentsHash ‖ contentsType ‖ uint16 len`.
import {
  concat,
  getBytes,
  hexlify,
  keccak256,
  recoverAddress,
  TypedDataEncoder,
  toUtf8Bytes,
  ZeroHash,
} from 'ethers';
import { CHAIN_ID, ORDER_DOMAIN_NAME, ORDER_TYPES } from './contracts.js';

export interface OrderStruct {
  salt: bigint;
  maker: string;
  signer: string;
  tokenId: string;
  makerAmount: number;
  takerAmount: number;
  side: 'BUY' | 'SELL';
  signatureType: number;
  timestamp: bigint;
  metadata: string;
  builder: string;
}

/** The Order struct as contracts.ts declares it (one field list: the order of the fields is the type hash). */
const ORDER_FIELDS = ORDER_TYPES.Order.map((f) => ({ ...f }));

const ORDER_TYPE_STRING =
  'Order(uint256 salt,address maker,address signer,uint256 tokenId,uint256 makerAmount,uint256 takerAmount,uint8 side,uint8 signatureType,uint256 timestamp,bytes32 metadata,bytes32 builder)';

const TYPED_DATA_SIGN_FIELDS = [
  { name: 'contents', type: 'Order' },
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
  { name: 'salt', type: 'bytes32' },
];

export interface ExchangeDomain {
  version: string;
  verifyingContract: string;
}

function domainOf(d: ExchangeDomain) {
  return {
    name: ORDER_DOMAIN_NAME,
    version: d.version,
    chainId: CHAIN_ID,
    verifyingContract: d.verifyingContract,
  };
}

function message(o: OrderStruct) {
  return {
    salt: o.salt,
    maker: o.maker,
    signer: o.signer,
    tokenId: BigInt(o.tokenId),
    makerAmount: BigInt(o.makerAmount),
    takerAmount: BigInt(o.takerAmount),
    side: o.side === 'BUY' ? 0 : 1,
    signatureType: o.signatureType,
    timestamp: o.timestamp,
    metadata: o.metadata,
    builder: o.builder,
  };
}

/** The EIP-712 order hash: the order id the CLOB assigns and the digest the exchange checks. */
export function orderDigest(o: OrderStruct, domain: ExchangeDomain): string {
  return TypedDataEncoder.hash(domainOf(domain), { Order: ORDER_FIELDS }, message(o));
}

/** ecrecover of a plain 65-byte EIP-712 signature; null when it does not parse. */
export function recoverOrderSigner(digest: string, signature: string): string | null {
  try {
    return recoverAddress(digest, signature).toLowerCase();
  } catch {
    return null;
  }
}

/**
 * In-simulator stand-in for `DepositWallet.isValidSignature(digest, signature)`: true when the wrapped signature
 * is the wallet owner's over this exact order and exchange domain.
 */
export function depositWalletAccepts(
  o: OrderStruct,
  domain: ExchangeDomain,
  wallet: string,
  owner: string,
  signature: string,
): boolean {
  const bytes = getBytes(signature);
  const typeBytes = toUtf8Bytes(ORDER_TYPE_STRING);
  const expectedLength = 65 + 32 + 32 + typeBytes.length + 2;
  if (bytes.length !== expectedLength) return false;
  const declared = ((bytes[bytes.length - 2] ?? 0) << 8) | (bytes[bytes.length - 1] ?? 0);
  if (declared !== typeBytes.length) return false;
  const inner = hexlify(bytes.slice(0, 65));
  const appSeparator = hexlify(bytes.slice(65, 97));
  const contents = hexlify(bytes.slice(97, 129));
  const contentsType = bytes.slice(129, 129 + typeBytes.length);
  if (hexlify(contentsType) !== hexlify(typeBytes)) return false;
  // The envelope must describe the order being validated: hash(0x1901 ‖ appSeparator ‖ contents) is the digest.
  const digest = orderDigest(o, domain);
  if (keccak256(concat(['0x1901', appSeparator, contents])) !== digest) return false;
  const wrapped = TypedDataEncoder.hash(
    domainOf(domain),
    { TypedDataSign: TYPED_DATA_SIGN_FIELDS, Order: ORDER_FIELDS },
    {
      contents: message(o),
      name: 'DepositWallet',
      version: '1',
      chainId: CHAIN_ID,
      verifyingContract: wallet,
      salt: ZeroHash,
    },
  );
  try {
    return recoverAddress(wrapped, inner).toLowerCase() === owner.toLowerCase();
  } catch {
    return false;
  }
}
