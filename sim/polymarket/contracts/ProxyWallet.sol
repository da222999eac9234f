// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title The simulator's stand-in for a Polymarket proxy wallet (signature type 1).
/// @notice Polymarket's ProxyWallet (Polymarket/proxy-factories `packages/proxy-factory/contracts/ProxyWallet/
/// ProxyWallet.sol`) runs a list of calls for its owner — the ProxyWalletFactory, which the GSN RelayHub calls with the
/// user's relayed, signed `proxy(calls)`; a reverting call reverts them all. Its clones live where the factory's CREATE2
/// puts them, with an init-code hash whose bytecode is not published, so the simulator places this contract's runtime
/// code at that address (anvil_setCode) and writes `owner` (slot 0) as the simulated relayer's account, which plays
/// the hub and factory after checking the user's relay signature. Same function and call layout as the real wallet,
/// so the relayer can send the client's `proxy(calls)` data to it unchanged.
contract ProxyWallet {
    /// Polymarket's ProxyWalletLib.ProxyCall: typeCode 1 = CALL (2, DELEGATECALL, is refused here).
    struct ProxyCall {
        uint8 typeCode;
        address to;
        uint256 value;
        bytes data;
    }

    address public owner;

    function proxy(ProxyCall[] calldata calls) external payable returns (bytes[] memory returnValues) {
        require(msg.sender == owner, "must be called be owner");
        returnValues = new bytes[](calls.length);
        for (uint256 i = 0; i < calls.length; i++) {
            require(calls[i].typeCode == 1, "only CALL");
            (bool success, bytes memory returnData) = calls[i].to.call{value: calls[i].value}(calls[i].data);
            if (!success) {
                assembly {
                    revert(add(returnData, 32), mload(returnData))
                }
            }
            returnValues[i] = returnData;
        }
    }

    // The real wallet takes outcome tokens (ERC-1155) from split, merge and trades.
    function onERC1155Received(address, address, uint256, uint256, bytes calldata) external pure returns (bytes4) {
        return this.onERC1155Received.selector;
    }

    function onERC1155BatchReceived(address, address, uint256[] calldata, uint256[] calldata, bytes calldata)
        external
        pure
        returns (bytes4)
    {
        return this.onERC1155BatchReceived.selector;
    }

    receive() external payable {}
}
