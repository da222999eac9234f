// Gasless calls from a Gnosis Safe (signature type 2) through Polymarket's relayer, as
// `@polymarket/builder-relayer-client@0.0.10`'s `executeSafeTransactions` makes them (`dist/client.js`,
// `dist/builder/safe.js`, `dist/encode/safe.js`, `dist/utils`): `GET /nonce?address=<owner>&type=SAFE`; one call is
// sent as it is, several as one DELEGATECALL to the Safe MultiSend (`multiSend(bytes)`, each call packed as
// `uint8 operation ‖ address to ‖ uint256 value ‖ uint256 length ‖ bytes data`); the owner signs the Safe v1.3.0
// `SafeTx` hash (domain `{chainId, verifyingContract: safe}`, no gas refund) with eth_sign (personal_sign over the 32
// bytes) and sends v + 4, the form the Safe's `checkSignatures` reads as eth_sign; `POST /submit` carries `{type:
// "SAFE", from, to, proxyWallet: safe, data, nonce, signature, signatureParams: {gasPrice, operation, safeTxnGas,
// baseGas, gasToken, refundReceiver}, metadata}`. The Safe must be the one the client derives for the owner; one
// not deployed yet is created first with `SAFE-CREATE`, as the client's `deploy()` does. Sources: docs/venues/polymarket.md ("Relayer: Safe and proxy wallets").
import { Type } from 'typebox';
import {
  concatHex,
  encodeAbiParameters,
  encodeFunctionData,
  encodePacked,
  getContractAddress,
  type Hex,
  hashTypedData,
  keccak256,
  parseAbi,
  size,
  zeroAddress,
} from 'viem';
import { AppError } from '../../errors/app-error.js';
import type { RelayedCall, RelayedTransaction } from '../port.js';
import { payloadDecoder } from '../shared/payload.js';
import { decodeNonce, type Relay, submitRelayed } from './relayer-submit.js';

/** Polymarket's SafeProxyFactory, the Safe MultiSend and the Safe init-code hash (builder-relayer-client config). */
export const SAFE_FACTORY: Hex = '0xaacFeEa03eb1561C4e67d661e40682Bd20E3541b';
const SAFE_MULTISEND: Hex = '0xA238CBeb142c10Ef7Ad8442C6D1f9E89e07e7761';
const SAFE_INIT_CODE_HASH: Hex = '0x2bce2127ff07fb632d16c8347c4ebf501f4841168bed00d9e6ef715ddb6fcecf';

const multiSendAbi = parseAbi(['function multiSend(bytes transactions) payable']);
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
} as const;

const SAFE_FACTORY_NAME = 'Polymarket Contract Proxy Factory';
const CREATE_PROXY_TYPES = {
  CreateProxy: [
    { name: 'paymentToken', type: 'address' },
    { name: 'payment', type: 'uint256' },
    { name: 'paymentReceiver', type: 'address' },
  ],
} as const;
const MINED = new Set(['STATE_MINED', 'STATE_CONFIRMED']);

const decodeDeployed = payloadDecoder(Type.Object({ deployed: Type.Boolean() }));

/** The Safe the official client derives for an owner: CREATE2 from the SafeProxyFactory, salt keccak(abi.encode(owner)). */
export function derivedSafe(owner: Hex): Hex {
  return getContractAddress({
    opcode: 'CREATE2',
    from: SAFE_FACTORY,
    salt: keccak256(encodeAbiParameters([{ type: 'address' }], [owner])),
    bytecodeHash: SAFE_INIT_CODE_HASH,
  });
}

/** One call as it is; several as one DELEGATECALL to the MultiSend. */
function safeTransaction(calls: readonly RelayedCall[]): { to: Hex; data: Hex; operation: 0 | 1 } {
  if (calls.length === 1) {
    const [call] = calls as [RelayedCall];
    return { to: call.to, data: call.data, operation: 0 };
  }
  const packed = concatHex(
    calls.map((c) =>
      encodePacked(
        ['uint8', 'address', 'uint256', 'uint256', 'bytes'],
        [0, c.to, 0n, BigInt(size(c.data)), c.data],
      ),
    ),
  );
  return {
    to: SAFE_MULTISEND,
    data: encodeFunctionData({ abi: multiSendAbi, functionName: 'multiSend', args: [packed] }),
    operation: 1,
  };
}

/**
 * The client's `deploy()` (`dist/builder/create.js`): the owner's EIP-712 `CreateProxy` with no payment, in the
 * factory's domain `{name: "Polymarket Contract Proxy Factory", chainId, verifyingContract: factory}` — what the
 * factory's `createProxy` recovers the owner from — sent as `SAFE-CREATE`.
 */
async function createSafe(relay: Relay): Promise<RelayedTransaction> {
  const { signer, wallet: safe } = relay;
  const signature = await signer.account.signTypedData({
    domain: { name: SAFE_FACTORY_NAME, chainId: 137, verifyingContract: SAFE_FACTORY },
    types: CREATE_PROXY_TYPES,
    primaryType: 'CreateProxy',
    message: { paymentToken: zeroAddress, payment: 0n, paymentReceiver: zeroAddress },
  });
  const body = JSON.stringify({
    from: signer.address,
    to: SAFE_FACTORY,
    proxyWallet: safe,
    data: '0x',
    signature,
    signatureParams: { paymentToken: zeroAddress, payment: '0', paymentReceiver: zeroAddress },
    type: 'SAFE-CREATE',
  });
  return submitRelayed(relay, body);
}

export async function relaySafeCalls(
  relay: Relay,
  calls: readonly RelayedCall[],
): Promise<RelayedTransaction> {
  const { client, ctx, relayer, signer, wallet: safe } = relay;
  if (safe.toLowerCase() !== derivedSafe(signer.address).toLowerCase()) {
    throw new AppError(
      'validation_error',
      "credentials.funder_address is not the signer's Polymarket Safe; the relayer acts only on that one",
      { validationErrors: ['credentials.funder_address: not the Safe derived for the private key'] },
    );
  }
  const { deployed } = await client.get(relayer, ctx, decodeDeployed, {
    path: '/deployed',
    query: { address: safe },
    operation: 'relayer_deployed',
  });
  if (!deployed) {
    // The client's `execute` refuses an undeployed Safe; its `deploy()` (SAFE-CREATE, gasless) comes first. We make
    // that step ourselves, so a key's first gasless call also creates its Safe.
    const created = await createSafe(relay);
    if (!MINED.has(created.state)) return created;
  }
  const { nonce } = await client.get(relayer, ctx, decodeNonce, {
    path: '/nonce',
    query: { address: signer.address, type: 'SAFE' },
    operation: 'relayer_nonce',
  });
  const tx = safeTransaction(calls);
  const hash = hashTypedData({
    domain: { chainId: 137, verifyingContract: safe },
    types: SAFE_TX_TYPES,
    primaryType: 'SafeTx',
    message: {
      ...tx,
      value: 0n,
      safeTxGas: 0n,
      baseGas: 0n,
      gasPrice: 0n,
      gasToken: zeroAddress,
      refundReceiver: zeroAddress,
      nonce: BigInt(nonce),
    },
  });
  const signed = await signer.account.signMessage({ message: { raw: hash } });
  // eth_sign form for the Safe: v (27/28) + 4.
  const v = Number.parseInt(signed.slice(130, 132), 16) + 4;
  const signature = `${signed.slice(0, 130)}${v.toString(16)}` as Hex;
  const body = JSON.stringify({
    from: signer.address,
    to: tx.to,
    proxyWallet: safe,
    data: tx.data,
    nonce,
    signature,
    signatureParams: {
      gasPrice: '0',
      operation: String(tx.operation),
      safeTxnGas: '0',
      baseGas: '0',
      gasToken: zeroAddress,
      refundReceiver: zeroAddress,
    },
    type: 'SAFE',
    metadata: '',
  });
  return submitRelayed(relay, body);
}
