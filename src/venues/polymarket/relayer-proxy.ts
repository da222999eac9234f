// Gasless calls from a Polymarket proxy wallet (signature type 1) through Polymarket's relayer, as
// `@polymarket/builder-relayer-client@0.0.10`'s `executeProxyTransactions` makes them (`dist/client.js`,
// `dist/builder/proxy.js`, `dist/encode/proxy.js`): `GET /relay-payload?address=<owner>&type=PROXY` → `{address:
// relay, nonce}`; the calls become the ProxyWalletFactory's `proxy((uint8 typeCode, address to, uint256 value, bytes
// data)[])` (typeCode 1 = CALL); the owner personal_signs the GSN v1 relay hash `keccak256("rlx:" ‖ from ‖ factory ‖
// data ‖ relayerFee ‖ gasPrice ‖ gasLimit ‖ nonce ‖ RelayHub ‖ relay)` (numbers as 32-byte words, fee and price 0);
// `POST /submit` carries `{type: "PROXY", from, to: factory, proxyWallet, data, nonce, signature, signatureParams:
// {gasPrice, gasLimit, relayerFee, relayHub, relay}, metadata}`. The factory acts on the wallet it derives for the
// sender (and creates it on first use), so the session's funder must be that wallet. Sources: docs/venues/
// polymarket.md ("Relayer: Safe and proxy wallets").
import { Type } from 'typebox';
import {
  concat,
  encodeFunctionData,
  encodePacked,
  getContractAddress,
  type Hex,
  keccak256,
  parseAbi,
  toHex,
} from 'viem';
import { AppError } from '../../errors/app-error.js';
import type { RelayedCall, RelayedTransaction } from '../port.js';
import { payloadDecoder } from '../shared/payload.js';
import { type Relay, submitRelayed } from './relayer-submit.js';

/** Polymarket's ProxyWalletFactory, the GSN RelayHub it trusts and the proxy init-code hash (client config). */
const PROXY_FACTORY: Hex = '0xaB45c5A4B0c941a2F231C04C3f49182e1A254052';
const RELAY_HUB: Hex = '0xD216153c06E857cD7f72665E0aF1d7D82172F494';
const PROXY_INIT_CODE_HASH: Hex = '0xd21df8dc65880a8606f09fe0ce3df9b8869287ab0b058be05aa9e8af6330a00b';
/** The gas limit the signature covers: the client's default when it cannot estimate (we hold no RPC here). */
const GAS_LIMIT = 10_000_000n;

const proxyAbi = parseAbi([
  'function proxy((uint8 typeCode, address to, uint256 value, bytes data)[] calls) payable returns (bytes[] returnValues)',
]);
const decodeRelayPayload = payloadDecoder(
  Type.Object({
    address: Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' }),
    nonce: Type.String({ pattern: '^\\d{1,78}$' }),
  }),
);

/** The proxy wallet the factory makes for an owner: CREATE2, salt keccak(abi.encodePacked(owner)). */
export function derivedProxyWallet(owner: Hex): Hex {
  return getContractAddress({
    opcode: 'CREATE2',
    from: PROXY_FACTORY,
    salt: keccak256(encodePacked(['address'], [owner])),
    bytecodeHash: PROXY_INIT_CODE_HASH,
  });
}

const word = (n: bigint) => toHex(n, { size: 32 });

export async function relayProxyCalls(
  relay: Relay,
  calls: readonly RelayedCall[],
): Promise<RelayedTransaction> {
  const { client, ctx, relayer, signer, wallet } = relay;
  if (wallet.toLowerCase() !== derivedProxyWallet(signer.address).toLowerCase()) {
    throw new AppError(
      'validation_error',
      "credentials.funder_address is not the signer's Polymarket proxy wallet; the relayer acts only on that one",
      { validationErrors: ['credentials.funder_address: not the proxy wallet derived for the private key'] },
    );
  }
  const payload = await client.get(relayer, ctx, decodeRelayPayload, {
    path: '/relay-payload',
    query: { address: signer.address, type: 'PROXY' },
    operation: 'relayer_relay_payload',
  });
  const data = encodeFunctionData({
    abi: proxyAbi,
    functionName: 'proxy',
    args: [calls.map((c) => ({ typeCode: 1, to: c.to, value: 0n, data: c.data }))],
  });
  const hash = keccak256(
    concat([
      toHex('rlx:'),
      signer.address,
      PROXY_FACTORY,
      data,
      word(0n),
      word(0n),
      word(GAS_LIMIT),
      word(BigInt(payload.nonce)),
      RELAY_HUB,
      payload.address as Hex,
    ]),
  );
  const signature = await signer.account.signMessage({ message: { raw: hash } });
  const body = JSON.stringify({
    from: signer.address,
    to: PROXY_FACTORY,
    proxyWallet: wallet,
    data,
    nonce: payload.nonce,
    signature,
    signatureParams: {
      gasPrice: '0',
      gasLimit: GAS_LIMIT.toString(),
      relayerFee: '0',
      relayHub: RELAY_HUB,
      relay: payload.address,
    },
    type: 'PROXY',
    metadata: '',
  });
  return submitRelayed(relay, body);
}
