// The Polymarket simulator's hold on the sandbox chain (a local anvil with Polymarket's contracts at their Polygon
// addresses): it is the oracle that prepares and resolves conditions on the real ConditionalTokens contract (a
// neg-risk market's through the NegRiskAdapter, which is then the CTF oracle and the simulator the market's), the
// paper-money faucet (it may mint the sandbox collateral) and the relayer, whose own key deploys deposit wallets
// (real ERC-1271 contracts, deposit-wallet-chain.ts) and sends their signed batches, each as one transaction.
// Imports nothing from src/.
import { randomBytes } from 'node:crypto';
import {
  type Address,
  createTestClient,
  createWalletClient,
  type Hex,
  http,
  parseAbi,
  parseEther,
  publicActions,
  walletActions,
  zeroHash,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { CONTRACTS } from './contracts.js';
import {
  deployDepositWallet,
  executeWalletBatch,
  installDepositWalletContracts,
  type WalletBatch,
  walletAcceptsSignature,
  walletNonce,
} from './deposit-wallet-chain.js';
import {
  execProxyCalls,
  execSafeTransaction,
  installSafeProxyContracts,
  placeProxyWallet,
  placeSafe,
  type SafeTx,
  safeNonce,
} from './safe-proxy-chain.js';
import {
  approveExchanges,
  balanceAllowances,
  type ChainSettlement,
  houseSplit,
  installSettlementExchange,
  sendSettlement,
  tradingFunds,
} from './settlement-chain.js';

export interface SimChainOptions {
  rpcUrl: string;
  chainId: number;
  contracts: { collateral: Address; conditionalTokens: Address };
  /** The key allowed to mint the collateral. */
  minterKey: Hex;
}

const ctfAbi = parseAbi([
  'function prepareCondition(address oracle, bytes32 questionId, uint256 outcomeSlotCount)',
  'function reportPayouts(bytes32 questionId, uint256[] payouts)',
  'function getConditionId(address oracle, bytes32 questionId, uint256 outcomeSlotCount) pure returns (bytes32)',
  'function getCollectionId(bytes32 parentCollectionId, bytes32 conditionId, uint256 indexSet) view returns (bytes32)',
  'function getPositionId(address collateralToken, bytes32 collectionId) pure returns (uint256)',
]);
const collateralAbi = parseAbi(['function mint(address to, uint256 amount)']);
/** Polymarket/neg-risk-ctf-adapter's NegRiskAdapter, as the simulator (the markets' oracle) drives it. */
const negRiskAdapterAbi = parseAbi([
  'function prepareMarket(uint256 feeBips, bytes metadata) returns (bytes32)',
  'function prepareQuestion(bytes32 marketId, bytes metadata) returns (bytes32)',
  'function reportOutcome(bytes32 questionId, bool outcome)',
  'function getConditionId(bytes32 questionId) view returns (bytes32)',
  'function getPositionId(bytes32 questionId, bool outcome) view returns (uint256)',
]);

export interface OnChainCondition {
  conditionId: Hex;
  questionId: Hex;
  /** ERC-1155 ids of YES and NO (index sets 1 and 2) on the collateral. */
  positionIds: [string, string];
}

export class SimChain {
  /** condition id → its question, and whether the NegRiskAdapter (not this simulator) is the CTF oracle. */
  private readonly conditions = new Map<string, { questionId: Hex; negRisk: boolean }>();
  /** One transaction at a time: the oracle's, minter's and relayer's nonces stay in order. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Runtime code of the proxy wallet stand-in (safe-proxy-chain.ts), placed at each proxy wallet's address. */
  private proxyWalletCode: Hex = '0x';

  private constructor(
    private readonly options: SimChainOptions,
    private readonly client: ReturnType<typeof testClient>,
    private readonly oracleKey: Hex,
    /** The relayer's own account: deploys deposit wallets and submits their batches, paying the gas. */
    private readonly relayerKey: Hex,
    /** The exchange operator's account: the only caller of the settlement exchange's `settle`. */
    private readonly operatorKey: Hex,
  ) {}

  static async connect(options: SimChainOptions): Promise<SimChain> {
    const client = testClient(options);
    const oracleKey = generatePrivateKey();
    await client.setBalance({
      address: privateKeyToAccount(oracleKey).address,
      value: parseEther('1000000'),
    });
    const relayerKey = generatePrivateKey();
    await installDepositWalletContracts(client, options.rpcUrl, relayerKey);
    const operatorKey = generatePrivateKey();
    await installSettlementExchange(client, options.rpcUrl, operatorKey, options.contracts);
    const { proxyWalletCode } = await installSafeProxyContracts(client, options.rpcUrl, relayerKey);
    const chain = new SimChain(options, client, oracleKey, relayerKey, operatorKey);
    chain.proxyWalletCode = proxyWalletCode;
    return chain;
  }

  get oracle(): Address {
    return privateKeyToAccount(this.oracleKey).address;
  }

  fundCollateral(address: string, amount: bigint): Promise<Hex> {
    return this.serial(() =>
      this.send(this.options.minterKey, this.options.contracts.collateral, 'mint', [
        address as Address,
        amount,
      ]),
    );
  }

  async fundGas(address: string, wei: bigint): Promise<void> {
    await this.client.setBalance({ address: address as Address, value: wei });
  }

  /** A new binary condition with this simulator as its oracle (a random question id). */
  createCondition(): Promise<OnChainCondition> {
    return this.prepare(`0x${randomBytes(32).toString('hex')}` as Hex);
  }

  /** The binary condition of this question id, with this simulator as its oracle (a catalogue market's). */
  prepare(questionId: Hex): Promise<OnChainCondition> {
    return this.serial(async () => {
      await this.send(this.oracleKey, this.options.contracts.conditionalTokens, 'prepareCondition', [
        this.oracle,
        questionId,
        2n,
      ]);
      const ctf = { address: this.options.contracts.conditionalTokens, abi: ctfAbi } as const;
      const conditionId = await this.client.readContract({
        ...ctf,
        functionName: 'getConditionId',
        args: [this.oracle, questionId, 2n],
      });
      this.conditions.set(conditionId.toLowerCase(), { questionId, negRisk: false });
      const positionIds = await Promise.all(
        [1n, 2n].map(async (indexSet) => {
          const collection = await this.client.readContract({
            ...ctf,
            functionName: 'getCollectionId',
            args: [zeroHash, conditionId, indexSet],
          });
          const id = await this.client.readContract({
            ...ctf,
            functionName: 'getPositionId',
            args: [this.options.contracts.collateral, collection],
          });
          return id.toString();
        }),
      );
      return { conditionId, questionId, positionIds: [positionIds[0] as string, positionIds[1] as string] };
    });
  }

  /**
   * A neg-risk market on the NegRiskAdapter with this simulator as its oracle (no conversion fee); its id is the
   * adapter's (a hash of oracle, fee and `metadata`, last byte zero).
   */
  prepareNegRiskMarket(metadata: Hex): Promise<Hex> {
    return this.serial(async () => {
      const { result } = await this.client.simulateContract({
        account: privateKeyToAccount(this.oracleKey),
        address: CONTRACTS.negRiskAdapter,
        abi: negRiskAdapterAbi,
        functionName: 'prepareMarket',
        args: [0n, metadata],
      });
      await this.send(this.oracleKey, CONTRACTS.negRiskAdapter, 'prepareMarket', [0n, metadata]);
      return result;
    });
  }

  /**
   * The market's next question (its index = questions prepared before it). The adapter prepares its CTF condition
   * as oracle; the token ids are the adapter's position ids, on its wrapped collateral.
   */
  prepareNegRiskQuestion(marketId: Hex, metadata: Hex): Promise<OnChainCondition> {
    return this.serial(async () => {
      const adapter = { address: CONTRACTS.negRiskAdapter, abi: negRiskAdapterAbi } as const;
      const { result: questionId } = await this.client.simulateContract({
        ...adapter,
        account: privateKeyToAccount(this.oracleKey),
        functionName: 'prepareQuestion',
        args: [marketId, metadata],
      });
      await this.send(this.oracleKey, CONTRACTS.negRiskAdapter, 'prepareQuestion', [marketId, metadata]);
      const [conditionId, yes, no] = await Promise.all([
        this.client.readContract({ ...adapter, functionName: 'getConditionId', args: [questionId] }),
        this.client.readContract({ ...adapter, functionName: 'getPositionId', args: [questionId, true] }),
        this.client.readContract({ ...adapter, functionName: 'getPositionId', args: [questionId, false] }),
      ]);
      this.conditions.set(conditionId.toLowerCase(), { questionId, negRisk: true });
      return { conditionId, questionId, positionIds: [yes.toString(), no.toString()] };
    });
  }

  /**
   * Reports the payouts of a condition this simulator prepared: the winner takes 1, the loser 0. A neg-risk
   * question is reported through the NegRiskAdapter, which refuses a second YES in the same market.
   */
  resolve(conditionId: string, winner: 'Yes' | 'No'): Promise<Hex> | null {
    const condition = this.conditions.get(conditionId.toLowerCase());
    if (!condition) return null;
    const { questionId, negRisk } = condition;
    if (negRisk) {
      return this.serial(() =>
        this.send(this.oracleKey, CONTRACTS.negRiskAdapter, 'reportOutcome', [questionId, winner === 'Yes']),
      );
    }
    const payouts = winner === 'Yes' ? [1n, 0n] : [0n, 1n];
    return this.serial(() =>
      this.send(this.oracleKey, this.options.contracts.conditionalTokens, 'reportPayouts', [
        questionId,
        payouts,
      ]),
    );
  }

  /**
   * Deploys the owner's deposit wallet through the factory. `expected` is where the simulator's registry (and the
   * official client) derive it; a factory that put it anywhere else is a bug, not a wallet.
   */
  deployDepositWallet(owner: string, expected: string): Promise<Hex> {
    return this.serial(async () => {
      const { hash, wallet } = await deployDepositWallet(
        this.client,
        this.options.rpcUrl,
        this.relayerKey,
        owner,
      );
      if (wallet !== expected.toLowerCase())
        throw new Error(`sandbox chain: the factory deployed ${wallet}, the registry expected ${expected}`);
      return hash;
    });
  }

  /** One transaction through the factory: the wallet checks the signature, nonce and deadline, then runs every call or none. */
  executeBatch(batch: WalletBatch, signature: Hex): Promise<{ hash: Hex; success: boolean }> {
    return this.serial(() =>
      executeWalletBatch(this.client, this.options.rpcUrl, this.relayerKey, batch, signature),
    );
  }

  /**
   * Sets `owner` up as having approved both exchanges for collateral and outcome tokens (a paper account created
   * approved, or the house), through anvil's impersonation — the simulator holds no key for contract wallets.
   */
  approveExchanges(owner: string, opts: { splits?: boolean } = {}): Promise<void> {
    return this.serial(() =>
      approveExchanges(
        this.client,
        this.options.rpcUrl,
        this.options.contracts,
        owner as Address,
        opts.splits === true,
      ),
    );
  }

  /** The owner's collateral (tokenId null) or outcome-token balance, and what the exchange may move of it. */
  tradingFunds(
    owner: string,
    exchange: Address,
    tokenId: string | null,
  ): Promise<{ balance: bigint; allowance: bigint }> {
    return tradingFunds(
      this.client,
      this.options.contracts,
      owner as Address,
      exchange,
      tokenId === null ? null : BigInt(tokenId),
    );
  }

  /** The owner's collateral (tokenId null) or outcome-token balance and each spender's allowance, read on chain. */
  balanceAllowances(
    owner: string,
    spenders: readonly string[],
    tokenId: string | null,
  ): Promise<{ balance: bigint; allowances: bigint[] }> {
    return balanceAllowances(
      this.client,
      this.options.contracts,
      owner as Address,
      spenders as Address[],
      tokenId === null ? null : BigInt(tokenId),
    );
  }

  /**
   * One match settled on chain by the operator. `house` first receives what it must deliver (minted collateral,
   * and a split set when it sells outcome tokens), since the house is the simulator's paper market maker.
   */
  settleTrade(
    settlement: ChainSettlement,
    house: { address: Address; collateral: bigint; sets: bigint } | null,
  ): Promise<{ hash: Hex; success: boolean }> {
    return this.serial(async () => {
      if (house && house.collateral + house.sets > 0n) {
        await this.send(this.options.minterKey, this.options.contracts.collateral, 'mint', [
          house.address,
          house.collateral + house.sets,
        ]);
        if (house.sets > 0n) {
          await houseSplit(
            this.client,
            this.options.rpcUrl,
            this.options.contracts,
            house.address,
            settlement.market.conditionId,
            house.sets,
            settlement.exchange === CONTRACTS.negRiskExchangeV2,
          );
        }
      }
      return sendSettlement(this.client, this.options.rpcUrl, this.operatorKey, settlement);
    });
  }

  /** The relayer's own account: the `relay` of a PROXY request, and the only caller its proxy wallets obey. */
  get relayer(): Address {
    return privateKeyToAccount(this.relayerKey).address;
  }

  /** Places `owner`'s Safe at `at` (the address the official client derives) unless one is there already. */
  placeSafe(owner: string, at: string): Promise<Hex | null> {
    return this.serial(() =>
      placeSafe(this.client, this.options.rpcUrl, this.relayerKey, owner as Address, at as Address),
    );
  }

  /** Places a proxy wallet, obeying only the relayer, at `at` unless one is there already. */
  placeProxyWallet(at: string): Promise<void> {
    return placeProxyWallet(this.client, this.proxyWalletCode, this.relayer, at as Address);
  }

  /** The Safe's `execTransaction`: it checks the owner's signature and its nonce, then runs the call or reverts. */
  execSafe(safe: string, tx: SafeTx, signatures: Hex): Promise<{ hash: Hex; success: boolean }> {
    return this.serial(() =>
      execSafeTransaction(this.client, this.options.rpcUrl, this.relayerKey, safe as Address, tx, signatures),
    );
  }

  /** The proxy wallet's `proxy(calls)` from the relayer: every call or none. */
  execProxy(wallet: string, data: Hex): Promise<{ hash: Hex; success: boolean }> {
    return this.serial(() =>
      execProxyCalls(this.client, this.options.rpcUrl, this.relayerKey, wallet as Address, data),
    );
  }

  safeNonce(safe: string): Promise<bigint> {
    return safeNonce(this.client, safe as Address);
  }

  walletNonce(wallet: string): Promise<bigint> {
    return walletNonce(this.client, wallet);
  }

  /** The wallet's own ERC-1271 answer for this digest and signature (an eth_call of isValidSignature). */
  acceptsSignature(wallet: string, digest: Hex, signature: Hex): Promise<boolean> {
    return walletAcceptsSignature(this.client, wallet, digest, signature);
  }

  private async send(
    key: Hex,
    to: Address,
    functionName:
      | 'mint'
      | 'prepareCondition'
      | 'reportPayouts'
      | 'prepareMarket'
      | 'prepareQuestion'
      | 'reportOutcome',
    args: readonly unknown[],
  ): Promise<Hex> {
    const wallet = createWalletClient({
      account: privateKeyToAccount(key),
      chain: this.client.chain,
      transport: http(this.options.rpcUrl),
    });
    const abi =
      functionName === 'mint'
        ? collateralAbi
        : to.toLowerCase() === CONTRACTS.negRiskAdapter.toLowerCase()
          ? negRiskAdapterAbi
          : ctfAbi;
    // biome-ignore lint/suspicious/noExplicitAny: one helper for functions whose argument types differ
    const hash = await wallet.writeContract({ address: to, abi, functionName, args } as any);
    const receipt = await this.client.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`sandbox chain: ${functionName} reverted`);
    return hash;
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

export type SimChainClient = ReturnType<typeof testClient>;

function testClient(options: SimChainOptions) {
  return createTestClient({
    mode: 'anvil',
    chain: {
      id: options.chainId,
      name: 'sandbox',
      nativeCurrency: { name: 'POL', symbol: 'POL', decimals: 18 },
      rpcUrls: { default: { http: [options.rpcUrl] } },
    },
    pollingInterval: 50,
    transport: http(options.rpcUrl),
  })
    .extend(publicActions)
    .extend(walletActions);
}
