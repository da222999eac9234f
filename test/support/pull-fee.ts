// The FeeEscrow's EIP-712 PullFee type as the tests spell it for ethers, independently of the viem types in
// src/chain/fee-escrow, so a misreading on one side cannot cancel out on the other.
export const PULL_FEE_TYPES = {
  PullFee: [
    { name: 'orderId', type: 'bytes32' },
    { name: 'payer', type: 'address' },
    { name: 'feeAmount', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
};
