// The deposit wallet address derived locally (src, viem, from the clone layout) against the official relayer
// client's own derivation (@polymarket/builder-relayer-client 0.0.10 dist/builder/derive.js): both clone kinds,
// many owners, Polygon and Amoy.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import type { Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import {
  DEPOSIT_WALLET_FACTORY,
  depositWalletCandidates,
} from '../../../../src/venues/polymarket/deposit-wallet-address.js';

const require = createRequire(import.meta.url);
const sdk = require('@polymarket/builder-relayer-client/dist/builder/derive.js') as {
  deriveUupsDepositWallet(owner: string, factory: string, implementation: string): string;
  deriveBeaconDepositWallet(owner: string, factory: string, beacon: string): string;
};
const sdkConfig = require('@polymarket/builder-relayer-client/dist/config/index.js') as {
  getContractConfig(chainId: number): { DepositWalletContracts: { DepositWalletImplementation: string } };
};
const POLYGON_BEACON = '0x7A18EDfe055488A3128f01F563e5B479D92ffc3a';

test("the UUPS and beacon clone addresses are the relayer client's, for any owner", () => {
  for (let i = 0; i < 40; i++) {
    const owner = privateKeyToAccount(generatePrivateKey()).address as Hex;
    for (const chainId of [137, 80002]) {
      const { uups, beacon } = depositWalletCandidates(owner, chainId);
      const implementation =
        sdkConfig.getContractConfig(chainId).DepositWalletContracts.DepositWalletImplementation;
      assert.equal(uups, sdk.deriveUupsDepositWallet(owner, DEPOSIT_WALLET_FACTORY, implementation), owner);
      if (chainId === 137)
        assert.equal(beacon, sdk.deriveBeaconDepositWallet(owner, DEPOSIT_WALLET_FACTORY, POLYGON_BEACON));
      else assert.equal(beacon, null);
    }
  }
});
