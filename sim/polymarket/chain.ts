// The Polymarket simulator's hold on the sandbox chain (a local anvil with Polymarket's contracts at their Polygon
// addresses): it is the oracle that prepares and resolves conditions on the real ConditionalTokens contract, the
// paper-money faucet (it may mint the sandbox collateral) and the relayer's executor. A deposit wallet is not
// deployed as a contract here: the relayer, having checked the owner's signature as the wallet would, sends the
// wallet's calls from the wallet's own address (anvil impersonation), so balances and approvals are the wallet's.
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

export interface OnChainCondition {
  conditionId: Hex;
  questionId: Hex;
  /** ERC-1155 ids of YES and NO (index sets 1 and 2) on the collateral. */
  positionIds: [string, string];
}

export class SimChain {
  private readonly conditions = new Map<string, Hex>();
  /** One transaction at a time: the oracle's and minter's nonces, and impersonated senders, stay in order. */
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly options: SimChainOptions,
    private readonly client: ReturnType<typeof testClient>,
    private readonly oracleKey: Hex,
  ) {}

  static async connect(options: SimChainOptions): Promise<SimChain> {
    const client = testClient(options);
    const oracleKey = generatePrivateKey();
    await client.setBalance({
      address: privateKeyToAccount(oracleKey).address,
      value: parseEther('1000000'),
    });
    return new SimChain(options, client, oracleKey);
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

  /** A new binary condition with this simulator as its oracle. */
  createCondition(): Promise<OnChainCondition> {
    return this.serial(async () => {
      const questionId = `0x${randomBytes(32).toString('hex')}` as Hex;
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
      this.conditions.set(conditionId.toLowerCase(), questionId);
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

  /** Reports the payouts of a condition this simulator prepared: the winner takes 1, the loser 0. */
  resolve(conditionId: string, winner: 'Yes' | 'No'): Promise<Hex> | null {
    const questionId = this.conditions.get(conditionId.toLowerCase());
    if (!questionId) return null;
    const payouts = winner === 'Yes' ? [1n, 0n] : [0n, 1n];
    return this.serial(() =>
      this.send(this.oracleKey, this.options.contracts.conditionalTokens, 'reportPayouts', [
        questionId,
        payouts,
      ]),
    );
  }

  /**
   * The wallet's calls, in order, sent from the wallet's address; stops at the first that reverts. Returns the last
   * transaction's hash and whether every call succeeded.
   */
  executeAs(
    wallet: string,
    calls: readonly { target: Hex; data: Hex }[],
  ): Promise<{ hash: Hex | null; success: boolean }> {
    return this.serial(async () => {
      const from = wallet as Address;
      await this.client.impersonateAccount({ address: from });
      // The relayer pays the gas: the wallet gets what the calls cost, as the relayer's wallet would.
      await this.client.setBalance({ address: from, value: parseEther('10') });
      let hash: Hex | null = null;
      try {
        for (const call of calls) {
          try {
            hash = await this.client.sendTransaction({
              account: from,
              to: call.target,
              data: call.data,
              chain: null,
            });
          } catch {
            return { hash, success: false };
          }
          const receipt = await this.client.waitForTransactionReceipt({ hash });
          if (receipt.status !== 'success') return { hash, success: false };
        }
        return { hash, success: true };
      } finally {
        await this.client.stopImpersonatingAccount({ address: from });
      }
    });
  }

  private async send(
    key: Hex,
    to: Address,
    functionName: 'mint' | 'prepareCondition' | 'reportPayouts',
    args: readonly unknown[],
  ): Promise<Hex> {
    const wallet = createWalletClient({
      account: privateKeyToAccount(key),
      chain: this.client.chain,
      transport: http(this.options.rpcUrl),
    });
    const abi = functionName === 'mint' ? collateralAbi : ctfAbi;
    // biome-ignore lint/suspicious/noExplicitAny: one helper for three functions whose argument types differ
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
