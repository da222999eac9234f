// The relayer's Safe and proxy-wallet transaction types, as `@polymarket/builder-relayer-client@0.0.10` sends them
// (`dist/builder/create.js`, `safe.js`, `proxy.js`, `dist/client.js`); the rules and their sources are in
// docs/venues/polymarket.md ("Relayer: Safe and proxy wallets"). The signatures are checked here with ethers, the
// adapter signs with viem, and the official client's own signing is run against this in
// test/sim/polymarket/relayer-safe-proxy-client.test.ts; a Safe then checks the same signature again on chain.
// - `SAFE-CREATE` `{from, to: SafeProxyFactory, proxyWallet, data: "0x", signature, signatureParams: {paymentToken,
//   payment, paymentReceiver}}`: the owner's EIP-712 `CreateProxy(address paymentToken,uint256 payment,address
//   paymentReceiver)` in the domain `{name: "Polymarket Contract Proxy Factory", chainId, verifyingContract: factory}`
//   (what the factory's `createProxy` recovers the owner from); the Safe appears at the derived address.
// - `SAFE` `{from, to, proxyWallet: <safe>, data, nonce, signature, signatureParams: {gasPrice, operation, safeTxnGas,
//   baseGas, gasToken, refundReceiver}}`: the owner's eth_sign (v + 4) of the Safe v1.3.0 `SafeTx` hash; nonce = the
//   Safe's `nonce()`; executed by the Safe's `execTransaction`.
// - `PROXY` `{from, to: ProxyWalletFactory, proxyWallet, data: proxy(calls), nonce, signature, signatureParams:
//   {gasPrice, gasLimit, relayerFee, relayHub, relay}}`: the owner's personal_sign of the GSN v1 relay hash
//   `keccak256("rlx:" ‖ from ‖ to ‖ data ‖ fee ‖ gasPrice ‖ gasLimit ‖ nonce ‖ relayHub ‖ relay)`; nonce and relay
//   from `GET /relay-payload?type=PROXY`. The wallet is created on first use, as the factory's `proxy` does.
import {
  concat,
  keccak256 as ethersKeccak,
  getAddress,
  getBytes,
  hashMessage,
  recoverAddress,
  Signature,
  solidityPacked,
  TypedDataEncoder,
  toUtf8Bytes,
  verifyTypedData,
  ZeroAddress,
} from 'ethers';
import type { Hex } from 'viem';
import type { PmContext } from './context.js';
import { RELAYER_ERRORS } from './errors.js';
import { SAFE_MULTISEND } from './safe-proxy-chain.js';
import { WALLET_FACTORIES } from './wallet-registry.js';

/** The GSN v1 RelayHub the proxy factory trusts (`@polymarket/builder-relayer-client` `dist/config`, Polygon). */
export const RELAY_HUB = '0xD216153c06E857cD7f72665E0aF1d7D82172F494';
const SAFE_FACTORY_NAME = 'Polymarket Contract Proxy Factory';
/** `proxy((uint8,address,uint256,bytes)[])`, the ProxyWalletFactory's (and our ProxyWallet's) entry point. */
const PROXY_SELECTOR = '0x34ee9791';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const HEX_DATA = /^0x(?:[0-9a-fA-F]{2})*$/;
const UINT = /^\d{1,78}$/;
const SIGNATURE = /^0x[0-9a-fA-F]{130}$/;

const SAFE_TX_TYPES = {
  SafeTx: [
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'data', type: 'bytes' },
    { name: 'operation', type: 'uint8' },
    { name: 'safeTxGas', type: 'uint256' },
    { name: 'baseGas', type: 'uint256' },
    { name: 'gasPrice', type: 'uint256' },
    { name: 'gasToken', type: 'address' },
    { name: 'refundReceiver', type: 'address' },
    { name: 'nonce', type: 'uint256' },
  ],
};
const CREATE_PROXY_TYPES = {
  CreateProxy: [
    { name: 'paymentToken', type: 'address' },
    { name: 'payment', type: 'uint256' },
    { name: 'paymentReceiver', type: 'address' },
  ],
};

export type SafeProxyType = 'SAFE' | 'SAFE-CREATE' | 'PROXY';

/** What a submission did: a relayer error to answer, or a transaction to record. */
export type Submitted =
  | { error: string }
  | {
      hash: string | null;
      success: boolean;
      from: string;
      to: string;
      proxyAddress: string;
      type: SafeProxyType;
    };

function params(b: Record<string, unknown>): Record<string, unknown> {
  const p = b.signatureParams;
  return (typeof p === 'object' && p !== null ? p : {}) as Record<string, unknown>;
}

const isZeroAddress = (v: unknown) => typeof v === 'string' && ADDRESS.test(v) && BigInt(v) === 0n;
const isZero = (v: unknown) => typeof v === 'string' && UINT.test(v) && BigInt(v) === 0n;

/** Recovers the signer of a personal_sign over 32 raw bytes; Safe's eth_sign form carries v + 4 (31/32). */
function personalSigner(digest: string, signature: string, safeForm: boolean): string | null {
  try {
    // Split by hand: ethers' Signature.from refuses Safe's v of 31/32.
    const raw = Number.parseInt(signature.slice(130, 132), 16);
    const v = safeForm ? raw - 4 : raw;
    if (v !== 27 && v !== 28) return null;
    const sig = Signature.from({ r: `0x${signature.slice(2, 66)}`, s: `0x${signature.slice(66, 130)}`, v });
    return recoverAddress(hashMessage(getBytes(digest)), sig).toLowerCase();
  } catch {
    return null;
  }
}

export function safeProxyRelayer(pm: PmContext) {
  /** GSN RelayHub nonces, per sender: spent once a relayed call is sent, whatever the call did (GSN v1). */
  const proxyNonces = new Map<string, bigint>();
  const proxyNonce = (owner: string) => proxyNonces.get(owner.toLowerCase()) ?? 0n;

  async function nonce(type: 'SAFE' | 'PROXY', owner: string): Promise<bigint> {
    if (type === 'PROXY') return proxyNonce(owner);
    const safe = pm.wallets.find(owner)?.wallets.get('safe');
    return safe && pm.chain ? pm.chain.safeNonce(safe) : 0n;
  }

  /** `GET /relay-payload` for SAFE (the owner's Safe) and PROXY (the relay to sign for, and the hub nonce). */
  async function relayPayload(
    type: 'SAFE' | 'PROXY',
    owner: string,
  ): Promise<{ address: string; nonce: string }> {
    if (type === 'PROXY') {
      return {
        address: (pm.chain?.relayer ?? ZeroAddress).toLowerCase(),
        nonce: proxyNonce(owner).toString(),
      };
    }
    return { address: pm.wallets.predict(owner, 'safe'), nonce: (await nonce('SAFE', owner)).toString() };
  }

  async function createSafe(b: Record<string, unknown>): Promise<Submitted> {
    const p = params(b);
    if (
      typeof b.from !== 'string' ||
      !ADDRESS.test(b.from) ||
      typeof b.to !== 'string' ||
      b.to.toLowerCase() !== WALLET_FACTORIES.safe.toLowerCase() ||
      typeof b.signature !== 'string' ||
      !SIGNATURE.test(b.signature)
    ) {
      return { error: RELAYER_ERRORS.invalidRequest };
    }
    // The sandbox relayer pays every deployment: a request that would pay someone from the new Safe is not taken.
    if (!isZeroAddress(p.paymentToken) || !isZero(p.payment) || !isZeroAddress(p.paymentReceiver))
      return { error: RELAYER_ERRORS.invalidRequest };
    const owner = b.from.toLowerCase();
    let signer: string;
    try {
      signer = verifyTypedData(
        { name: SAFE_FACTORY_NAME, chainId: 137, verifyingContract: WALLET_FACTORIES.safe },
        CREATE_PROXY_TYPES,
        { paymentToken: ZeroAddress, payment: 0n, paymentReceiver: ZeroAddress },
        b.signature,
      ).toLowerCase();
    } catch {
      return { error: RELAYER_ERRORS.invalidSignature };
    }
    if (signer !== owner) return { error: RELAYER_ERRORS.invalidSignature };
    if (pm.wallets.find(owner)?.wallets.get('safe')) return { error: RELAYER_ERRORS.safeDeployed };
    const address = pm.wallets.predict(owner, 'safe');
    // On chain first: a Safe the registry knows must have its contract when there is a chain.
    const hash = pm.chain ? await pm.chain.placeSafe(owner, address) : null;
    pm.wallets.deploy(owner, 'safe');
    // The sandbox's paper money for a new account lands where it can trade: its new wallet.
    pm.accounts.wallet(address).collateral += pm.newWalletBalance;
    if (pm.chain && pm.newWalletBalance > 0)
      await pm.chain.fundCollateral(address, BigInt(pm.newWalletBalance));
    return {
      hash,
      success: true,
      from: owner,
      to: WALLET_FACTORIES.safe,
      proxyAddress: address,
      type: 'SAFE-CREATE',
    };
  }

  async function safeTransaction(b: Record<string, unknown>): Promise<Submitted> {
    const p = params(b);
    if (
      typeof b.from !== 'string' ||
      !ADDRESS.test(b.from) ||
      typeof b.to !== 'string' ||
      !ADDRESS.test(b.to) ||
      typeof b.proxyWallet !== 'string' ||
      !ADDRESS.test(b.proxyWallet) ||
      typeof b.data !== 'string' ||
      !HEX_DATA.test(b.data) ||
      typeof b.nonce !== 'string' ||
      !UINT.test(b.nonce) ||
      typeof b.signature !== 'string' ||
      !SIGNATURE.test(b.signature) ||
      (p.operation !== '0' && p.operation !== '1')
    ) {
      return { error: RELAYER_ERRORS.invalidRequest };
    }
    // No refunds: the relayer pays gas and asks nothing back from the Safe.
    for (const field of ['gasPrice', 'safeTxnGas', 'baseGas'] as const)
      if (!isZero(p[field])) return { error: RELAYER_ERRORS.invalidRequest };
    if (!isZeroAddress(p.gasToken) || !isZeroAddress(p.refundReceiver))
      return { error: RELAYER_ERRORS.invalidRequest };
    const operation = p.operation === '1' ? 1 : 0;
    // A delegatecall runs foreign code as the Safe: only the MultiSend batching the client itself uses.
    if (operation === 1 && b.to.toLowerCase() !== SAFE_MULTISEND.toLowerCase())
      return { error: RELAYER_ERRORS.invalidRequest };
    const owner = b.from.toLowerCase();
    const safe = b.proxyWallet.toLowerCase();
    const wallet = pm.wallets.ownerOf(safe);
    if (wallet?.kind !== 'safe' || wallet.owner !== owner) return { error: RELAYER_ERRORS.safeNotDeployed };
    if (BigInt(b.nonce) !== (await nonce('SAFE', owner))) return { error: RELAYER_ERRORS.invalidNonce };
    const digest = TypedDataEncoder.hash(
      { chainId: 137, verifyingContract: getAddress(safe) },
      SAFE_TX_TYPES,
      {
        to: b.to,
        value: 0n,
        data: b.data,
        operation,
        safeTxGas: 0n,
        baseGas: 0n,
        gasPrice: 0n,
        gasToken: ZeroAddress,
        refundReceiver: ZeroAddress,
        nonce: BigInt(b.nonce),
      },
    );
    if (personalSigner(digest, b.signature, true) !== owner)
      return { error: RELAYER_ERRORS.invalidSignature };
    if (!pm.chain) return { error: RELAYER_ERRORS.noChain };
    const result = await pm.chain.execSafe(
      safe,
      { to: b.to as Hex, data: b.data as Hex, operation },
      b.signature as Hex,
    );
    return {
      hash: result.hash,
      success: result.success,
      from: owner,
      to: b.to.toLowerCase(),
      proxyAddress: safe,
      type: 'SAFE',
    };
  }

  async function proxyTransaction(b: Record<string, unknown>): Promise<Submitted> {
    const p = params(b);
    if (
      typeof b.from !== 'string' ||
      !ADDRESS.test(b.from) ||
      typeof b.to !== 'string' ||
      b.to.toLowerCase() !== WALLET_FACTORIES.proxy.toLowerCase() ||
      typeof b.data !== 'string' ||
      !HEX_DATA.test(b.data) ||
      !b.data.toLowerCase().startsWith(PROXY_SELECTOR) ||
      typeof b.nonce !== 'string' ||
      !UINT.test(b.nonce) ||
      typeof b.signature !== 'string' ||
      !SIGNATURE.test(b.signature) ||
      typeof p.gasLimit !== 'string' ||
      !UINT.test(p.gasLimit) ||
      !isZero(p.gasPrice) ||
      !isZero(p.relayerFee) ||
      typeof p.relayHub !== 'string' ||
      p.relayHub.toLowerCase() !== RELAY_HUB.toLowerCase() ||
      typeof p.relay !== 'string' ||
      !ADDRESS.test(p.relay)
    ) {
      return { error: RELAYER_ERRORS.invalidRequest };
    }
    if (!pm.chain) return { error: RELAYER_ERRORS.noChain };
    const owner = b.from.toLowerCase();
    const wallet = pm.wallets.predict(owner, 'proxy');
    if (typeof b.proxyWallet === 'string' && b.proxyWallet.toLowerCase() !== wallet)
      return { error: RELAYER_ERRORS.invalidRequest };
    if (p.relay.toLowerCase() !== pm.chain.relayer.toLowerCase())
      return { error: RELAYER_ERRORS.invalidRequest };
    if (BigInt(b.nonce) !== proxyNonce(owner)) return { error: RELAYER_ERRORS.invalidNonce };
    const digest = ethersKeccak(
      concat([
        toUtf8Bytes('rlx:'),
        solidityPacked(
          ['address', 'address', 'bytes', 'uint256', 'uint256', 'uint256', 'uint256', 'address', 'address'],
          [b.from, b.to, b.data, 0n, 0n, BigInt(p.gasLimit), BigInt(b.nonce), p.relayHub, p.relay],
        ),
      ]),
    );
    if (personalSigner(digest, b.signature, false) !== owner)
      return { error: RELAYER_ERRORS.invalidSignature };
    // The factory's `proxy` makes the caller's wallet on first use; the simulator places it there.
    await pm.chain.placeProxyWallet(wallet);
    pm.wallets.deploy(owner, 'proxy');
    proxyNonces.set(owner, BigInt(b.nonce) + 1n);
    const result = await pm.chain.execProxy(wallet, b.data as Hex);
    return {
      hash: result.hash,
      success: result.success,
      from: owner,
      to: WALLET_FACTORIES.proxy,
      proxyAddress: wallet,
      type: 'PROXY',
    };
  }

  return {
    nonce,
    relayPayload,
    submit(type: SafeProxyType, b: Record<string, unknown>): Promise<Submitted> {
      if (type === 'SAFE-CREATE') return createSafe(b);
      if (type === 'SAFE') return safeTransaction(b);
      return proxyTransaction(b);
    },
  };
}
