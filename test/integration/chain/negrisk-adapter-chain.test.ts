// Our NegRiskAdapter equivalent on the sandbox chain, driven directly with ethers (independent of the viem code
// that deploys it): the rules Polymarket's adapter documents (Polymarket/neg-risk-ctf-adapter docs/NegRiskAdapter.md,
// src/NegRiskAdapter.sol, src/modules/MarketDataManager.sol) — market and question ids, only the market's oracle
// prepares and reports, at most one YES per market, split / merge / redeem in wrapped-collateral positions, and
// convertPositions: NO of m questions, `amount` each, become (m − 1) · amount collateral plus `amount` YES of every
// other question, less the market's fee, which goes to the vault.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  AbiCoder,
  Contract,
  hexlify,
  JsonRpcProvider,
  keccak256,
  Network,
  NonceManager,
  solidityPacked,
  toBeHex,
  toUtf8Bytes,
  Wallet,
  ZeroHash,
} from 'ethers';
import {
  NEG_RISK_VAULT,
  NEG_RISK_WRAPPED_COLLATERAL,
  type SandboxChain,
  startSandboxChain,
} from '../../../src/chain/sandbox/sandbox-chain.js';

const MASK = (1n << 256n) - 256n;

let chain: SandboxChain;
let provider: JsonRpcProvider;
let oracle: NonceManager;
let oracleAddress: string;
let adapter: Contract;
let ctf: Contract;
let pusd: Contract;

before(async () => {
  chain = await startSandboxChain();
  // A plain network of chain id 137: ethers' built-in Polygon one would ask Polygon's gas station for fees.
  const network = new Network('sandbox', chain.chainId);
  provider = new JsonRpcProvider(chain.rpcUrl, network, { staticNetwork: network, cacheTimeout: -1 });
  // The collateral's minter doubles as market creator (so oracle) and trader here.
  const wallet = new Wallet(chain.minterKey, provider);
  oracleAddress = wallet.address;
  oracle = new NonceManager(wallet);
  adapter = new Contract(
    chain.contracts.negRiskAdapter,
    [
      'function prepareMarket(uint256 feeBips, bytes metadata) returns (bytes32)',
      'function prepareQuestion(bytes32 marketId, bytes metadata) returns (bytes32)',
      'function reportOutcome(bytes32 questionId, bool outcome)',
      'function getConditionId(bytes32 questionId) view returns (bytes32)',
      'function getPositionId(bytes32 questionId, bool outcome) view returns (uint256)',
      'function getQuestionCount(bytes32 marketId) view returns (uint256)',
      'function getFeeBips(bytes32 marketId) view returns (uint256)',
      'function splitPosition(bytes32 conditionId, uint256 amount)',
      'function mergePositions(bytes32 conditionId, uint256 amount)',
      'function redeemPositions(bytes32 conditionId, uint256[] amounts)',
      'function convertPositions(bytes32 marketId, uint256 indexSet, uint256 amount)',
      'function NO_TOKEN_BURN_ADDRESS() view returns (address)',
      'error OnlyOracle()',
      'error MarketAlreadyDetermined()',
      'error MarketAlreadyPrepared()',
      'error InvalidIndexSet()',
      'error FeeBipsOutOfBounds()',
    ],
    oracle,
  );
  ctf = new Contract(
    chain.contracts.conditionalTokens,
    [
      'function setApprovalForAll(address operator, bool approved)',
      'function balanceOf(address owner, uint256 id) view returns (uint256)',
      'function getCollectionId(bytes32, bytes32, uint256) view returns (bytes32)',
      'function getPositionId(address, bytes32) pure returns (uint256)',
      'function payoutNumerators(bytes32, uint256) view returns (uint256)',
    ],
    oracle,
  );
  pusd = new Contract(
    chain.contracts.collateral,
    [
      'function mint(address to, uint256 amount)',
      'function approve(address spender, uint256 amount) returns (bool)',
      'function balanceOf(address owner) view returns (uint256)',
    ],
    oracle,
  );
  await (await pusd.getFunction('mint')(oracleAddress, 1_000_000_000n)).wait();
  await (await pusd.getFunction('approve')(chain.contracts.negRiskAdapter, 2n ** 256n - 1n)).wait();
  await (await ctf.getFunction('setApprovalForAll')(chain.contracts.negRiskAdapter, true)).wait();
});
after(async () => {
  provider?.destroy();
  await chain?.close();
});

const send = async (name: string, ...args: unknown[]) => (await adapter.getFunction(name)(...args)).wait();
const balance = (id: bigint) => ctf.getFunction('balanceOf')(oracleAddress, id) as Promise<bigint>;
const collateral = (owner: string) => pusd.getFunction('balanceOf')(owner) as Promise<bigint>;

/** A market of `questions` questions with `feeBips`; ids as computed here, checked against the adapter's. */
async function market(
  feeBips: number,
  questions: number,
  tag: string,
): Promise<{ marketId: string; questionIds: string[] }> {
  const metadata = hexlify(toUtf8Bytes(tag));
  const marketId = toBeHex(
    BigInt(
      keccak256(
        AbiCoder.defaultAbiCoder().encode(
          ['address', 'uint256', 'bytes'],
          [oracleAddress, feeBips, metadata],
        ),
      ),
    ) & MASK,
    32,
  );
  assert.equal(await adapter.getFunction('prepareMarket').staticCall(feeBips, metadata), marketId);
  await send('prepareMarket', feeBips, metadata);
  const questionIds: string[] = [];
  for (let i = 0; i < questions; i++) {
    const questionId = toBeHex(BigInt(marketId) + BigInt(i), 32);
    assert.equal(await adapter.getFunction('prepareQuestion').staticCall(marketId, '0x'), questionId);
    await send('prepareQuestion', marketId, '0x');
    questionIds.push(questionId);
  }
  assert.equal(await adapter.getFunction('getQuestionCount')(marketId), BigInt(questions));
  return { marketId, questionIds };
}

const conditionOf = (questionId: string) =>
  keccak256(
    solidityPacked(['address', 'bytes32', 'uint256'], [chain.contracts.negRiskAdapter, questionId, 2]),
  );

async function ids(questionId: string): Promise<[bigint, bigint]> {
  const conditionId = conditionOf(questionId);
  const out = await Promise.all(
    [1, 2].map(async (indexSet) =>
      ctf.getFunction('getPositionId')(
        NEG_RISK_WRAPPED_COLLATERAL,
        await ctf.getFunction('getCollectionId')(ZeroHash, conditionId, indexSet),
      ),
    ),
  );
  return [out[0] as bigint, out[1] as bigint];
}

test('ids: conditions are the CTF conditions of (adapter, question, 2), positions on the wrapped collateral', async () => {
  const { questionIds } = await market(0, 2, 'ids');
  for (const q of questionIds) {
    assert.equal(await adapter.getFunction('getConditionId')(q), conditionOf(q));
    const [yes, no] = await ids(q);
    assert.equal(await adapter.getFunction('getPositionId')(q, true), yes);
    assert.equal(await adapter.getFunction('getPositionId')(q, false), no);
  }
});

test('split, merge and redeem with amounts; only the oracle reports; one YES per market', async () => {
  const { marketId, questionIds } = await market(0, 2, 'life');
  const [q0, q1] = questionIds as [string, string];
  const [yes, no] = await ids(q0);
  const start = await collateral(oracleAddress);
  await send('splitPosition', conditionOf(q0), 7_000_000n);
  assert.deepEqual([await balance(yes), await balance(no)], [7_000_000n, 7_000_000n]);
  await send('mergePositions', conditionOf(q0), 2_000_000n);
  assert.deepEqual([await balance(yes), await balance(no)], [5_000_000n, 5_000_000n]);
  assert.equal(await collateral(oracleAddress), start - 5_000_000n);

  const stranger = new Wallet(Wallet.createRandom().privateKey, provider);
  await provider.send('anvil_setBalance', [stranger.address, toBeHex(10n ** 18n)]);
  await assert.rejects(
    (adapter.connect(stranger) as Contract).getFunction('reportOutcome').staticCall(q0, true),
    (e: { revert?: { name: string } }) => e.revert?.name === 'OnlyOracle',
  );
  await assert.rejects(
    (adapter.connect(stranger) as Contract).getFunction('prepareQuestion').staticCall(marketId, '0x'),
    (e: { revert?: { name: string } }) => e.revert?.name === 'OnlyOracle',
  );
  await send('reportOutcome', q0, true);
  await assert.rejects(
    adapter.getFunction('reportOutcome').staticCall(q1, true),
    (e: { revert?: { name: string } }) => e.revert?.name === 'MarketAlreadyDetermined',
  );
  await send('reportOutcome', q1, false);
  assert.equal(await ctf.getFunction('payoutNumerators')(conditionOf(q1), 1), 1n);

  await send('redeemPositions', conditionOf(q0), [3_000_000n, 5_000_000n]);
  assert.deepEqual([await balance(yes), await balance(no)], [2_000_000n, 0n]);
  assert.equal(await collateral(oracleAddress), start - 5_000_000n + 3_000_000n);
});

test('convertPositions: NO of two of three questions become collateral plus YES of the third, fee to the vault', async () => {
  const feeBips = 100;
  const { marketId, questionIds } = await market(feeBips, 3, 'convert');
  assert.equal(await adapter.getFunction('getFeeBips')(marketId), BigInt(feeBips));
  const [q0, q1, q2] = questionIds as [string, string, string];
  const amount = 10_000_000n;
  await send('splitPosition', conditionOf(q0), amount);
  await send('splitPosition', conditionOf(q1), amount);
  const [, no0] = await ids(q0);
  const [, no1] = await ids(q1);
  const [yes2, no2] = await ids(q2);
  const [before, vaultBefore] = await Promise.all([collateral(oracleAddress), collateral(NEG_RISK_VAULT)]);

  await assert.rejects(
    adapter.getFunction('convertPositions').staticCall(marketId, 0b1000, amount),
    (e: { revert?: { name: string } }) => e.revert?.name === 'InvalidIndexSet',
  );
  await send('convertPositions', marketId, 0b011, amount);
  const fee = (amount * BigInt(feeBips)) / 10_000n;
  // Two NO given up: (2 − 1) · amount collateral, less the fee; and `amount` YES of question 2, less the fee.
  assert.equal(await collateral(oracleAddress), before + (amount - fee));
  assert.equal(await collateral(NEG_RISK_VAULT), vaultBefore + fee);
  assert.equal(await balance(yes2), amount - fee);
  assert.equal(await balance(no2), 0n);
  assert.deepEqual([await balance(no0), await balance(no1)], [0n, 0n]);
  const burn = (await adapter.getFunction('NO_TOKEN_BURN_ADDRESS')()) as string;
  assert.equal(await ctf.getFunction('balanceOf')(burn, no0), amount);
  assert.equal(await ctf.getFunction('balanceOf')(burn, no2), amount);
});
