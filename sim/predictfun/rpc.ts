// A minimal BNB Chain JSON-RPC endpoint for the paper wallets: Predict.fun keeps balances on chain (USDT, 18
// decimals), so clients read `balanceOf` with eth_call, and the official SDK checks a Predict account's owner with
// the ECDSA validator's `ecdsaValidatorStorage`; Multicall3 (deployed on BSC at its canonical address) batches
// those reads for clients such as the SDK's multicall provider. Answers single and batched JSON-RPC 2.0 requests.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  type Address,
  decodeFunctionData,
  encodeFunctionResult,
  erc20Abi,
  getAddress,
  type Hex,
  isAddress,
  isHex,
  parseAbi,
} from 'viem';
import { readBody, sendJson } from '../shared/http.js';
import type { PfAccounts } from './accounts.js';
import { ECDSA_VALIDATOR } from './auth.js';

export const BSC_USDT = '0x55d398326f99059fF775485246999027B3197955';
/** USDT as Predict.fun's testnet uses it on BNB testnet (97), per the official SDK's AddressesByChainId. */
export const BSC_TESTNET_USDT = '0xB32171ecD878607FFc4F8FC0bCcE6852BB3149E0';

/** The chain the endpoint pretends to be and the collateral token whose balances it answers. */
export interface RpcChain {
  chainId: number;
  usdt: string;
}
export const MULTICALL3 = '0xcA11bde05977b3631167028862bE2a173976CA11';
const validatorAbi = parseAbi(['function ecdsaValidatorStorage(address) view returns (address owner)']);
const multicallAbi = parseAbi([
  'struct Call { address target; bytes callData; }',
  'struct Call3 { address target; bool allowFailure; bytes callData; }',
  'struct Result { bool success; bytes returnData; }',
  'function tryAggregate(bool requireSuccess, Call[] calls) returns (Result[] returnData)',
  'function aggregate3(Call3[] calls) returns (Result[] returnData)',
]);

interface RpcRequest {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

type RpcReply =
  | { jsonrpc: '2.0'; id: unknown; result: unknown }
  | { jsonrpc: '2.0'; id: unknown; error: { code: number; message: string } };

export function createRpcServer(accounts: PfAccounts, blockNumber: () => number, chain: RpcChain): Server {
  const usdt = getAddress(chain.usdt);
  function answer(req: RpcRequest): RpcReply {
    const id = req.id ?? null;
    const error = (code: number, message: string): RpcReply => ({
      jsonrpc: '2.0',
      id,
      error: { code, message },
    });
    const result = (value: unknown): RpcReply => ({ jsonrpc: '2.0', id, result: value });
    if (req.jsonrpc !== '2.0' || typeof req.method !== 'string') return error(-32600, 'invalid request');
    const params = Array.isArray(req.params) ? req.params : [];
    switch (req.method) {
      case 'eth_chainId':
        return result(`0x${chain.chainId.toString(16)}`);
      case 'net_version':
        return result(String(chain.chainId));
      case 'eth_blockNumber':
        return result(`0x${blockNumber().toString(16)}`);
      case 'eth_getCode':
        return result('0x');
      case 'eth_call': {
        const call = params[0] as { to?: unknown; data?: unknown; input?: unknown } | undefined;
        const data = call?.data ?? call?.input;
        if (typeof call?.to !== 'string' || !isAddress(call.to) || typeof data !== 'string' || !isHex(data)) {
          return error(-32602, 'invalid argument 0: missing to or data');
        }
        try {
          return result(ethCall(getAddress(call.to), data));
        } catch {
          return error(3, 'execution reverted');
        }
      }
      default:
        return error(-32601, `the method ${req.method} does not exist/is not available`);
    }
  }

  function ethCall(to: Address, data: Hex): Hex {
    if (to === usdt) {
      const { functionName, args } = decodeFunctionData({ abi: erc20Abi, data });
      switch (functionName) {
        case 'balanceOf':
          return encodeFunctionResult({
            abi: erc20Abi,
            functionName,
            result: accounts.balanceOf(args[0]),
          });
        case 'decimals':
          return encodeFunctionResult({ abi: erc20Abi, functionName, result: 18 });
        case 'symbol':
          return encodeFunctionResult({ abi: erc20Abi, functionName, result: 'USDT' });
        default:
          throw new Error('unsupported');
      }
    }
    if (to === ECDSA_VALIDATOR) {
      const { args } = decodeFunctionData({ abi: validatorAbi, data });
      const owner = accounts.ownerOf(args[0]) ?? '0x0000000000000000000000000000000000000000';
      return encodeFunctionResult({
        abi: validatorAbi,
        functionName: 'ecdsaValidatorStorage',
        result: owner as Address,
      });
    }
    if (to === MULTICALL3) {
      const decoded = decodeFunctionData({ abi: multicallAbi, data });
      const run = (target: Address, callData: Hex, mayFail: boolean) => {
        try {
          return { success: true, returnData: ethCall(getAddress(target), callData) };
        } catch (error) {
          if (!mayFail) throw error;
          return { success: false, returnData: '0x' as Hex };
        }
      };
      if (decoded.functionName === 'tryAggregate') {
        const [requireSuccess, calls] = decoded.args;
        const result = calls.map((c) => run(c.target, c.callData, !requireSuccess));
        return encodeFunctionResult({ abi: multicallAbi, functionName: 'tryAggregate', result });
      }
      const result = decoded.args[0].map((c) => run(c.target, c.callData, c.allowFailure));
      return encodeFunctionResult({ abi: multicallAbi, functionName: 'aggregate3', result });
    }
    // A call to an address without code returns empty data on a real node.
    return '0x';
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST')
      return sendJson(res, 405, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'POST only' } });
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch {
      return sendJson(res, 200, {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: 'parse error' },
      });
    }
    if (Array.isArray(body))
      return sendJson(
        res,
        200,
        body.map((r) => answer((r ?? {}) as RpcRequest)),
      );
    return sendJson(res, 200, answer((body ?? {}) as RpcRequest));
  }

  return createServer((req, res) => {
    handle(req, res).catch(() =>
      sendJson(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } }),
    );
  });
}
