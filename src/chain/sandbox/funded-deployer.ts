// A viem test client on the sandbox anvil for a fresh key that anvil has just funded: how the sandbox chain and the
// FeeEscrow deployment each get an account that deploys (and, for the minter and the operator, keeps acting).
import {
  createTestClient,
  type Hex,
  http,
  type LocalAccount,
  parseEther,
  publicActions,
  walletActions,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

export async function fundedDeployer(rpcUrl: string, chainId: number) {
  const key: Hex = generatePrivateKey();
  const account: LocalAccount = privateKeyToAccount(key);
  const client = createTestClient({
    mode: 'anvil',
    account,
    chain: {
      id: chainId,
      name: 'sandbox',
      nativeCurrency: { name: 'POL', symbol: 'POL', decimals: 18 },
      rpcUrls: { default: { http: [rpcUrl] } },
    },
    pollingInterval: 50,
    transport: http(rpcUrl),
  })
    .extend(publicActions)
    .extend(walletActions);
  await client.setBalance({ address: account.address, value: parseEther('1000000') });
  return { key, account, client };
}
