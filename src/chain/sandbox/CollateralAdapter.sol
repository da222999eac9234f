// SPDX-License-Identifier: MIT
// The sandbox chain's stand-in for Polymarket's V2 CollateralAdapter (its bytecode is not in any package we can
// install): the CTF five-argument entry points the V2 SDK calls for a standard market, acting on the real
// ConditionalTokens with the sandbox collateral. Positions are pulled from the caller (who must have approved this
// contract, as on Polygon), the CTF call is made here, and what comes out goes back to the caller. Neg-risk markets
// have their own contracts (NegRiskAdapter.sol, NegRiskCollateralAdapter.sol). Compiled like Collateral.sol.
pragma solidity ^0.8.20;

interface IERC20Min {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
    function transfer(address to, uint256 amount) external returns (bool);
    function approve(address spender, uint256 amount) external returns (bool);
    function balanceOf(address owner) external view returns (uint256);
}

interface ICtf {
    function splitPosition(address collateral, bytes32 parent, bytes32 conditionId, uint256[] calldata partition, uint256 amount) external;
    function mergePositions(address collateral, bytes32 parent, bytes32 conditionId, uint256[] calldata partition, uint256 amount) external;
    function redeemPositions(address collateral, bytes32 parent, bytes32 conditionId, uint256[] calldata indexSets) external;
    function getCollectionId(bytes32 parent, bytes32 conditionId, uint256 indexSet) external view returns (bytes32);
    function getPositionId(address collateral, bytes32 collectionId) external pure returns (uint256);
    function balanceOf(address owner, uint256 id) external view returns (uint256);
    function safeBatchTransferFrom(address from, address to, uint256[] calldata ids, uint256[] calldata values, bytes calldata data) external;
}

contract CollateralAdapter {
    ICtf public immutable ctf;
    IERC20Min public immutable collateral;

    constructor(address ctf_, address collateral_) {
        ctf = ICtf(ctf_);
        collateral = IERC20Min(collateral_);
    }

    function splitPosition(address, bytes32, bytes32 conditionId, uint256[] calldata, uint256 amount) external {
        _split(conditionId, amount);
    }

    function mergePositions(address, bytes32, bytes32 conditionId, uint256[] calldata, uint256 amount) external {
        _merge(conditionId, amount);
    }

    /// Redeems everything the caller holds of the condition's two positions.
    function redeemPositions(address, bytes32, bytes32 conditionId, uint256[] calldata) external {
        uint256[] memory ids = _ids(conditionId);
        uint256[] memory amounts = new uint256[](2);
        amounts[0] = ctf.balanceOf(msg.sender, ids[0]);
        amounts[1] = ctf.balanceOf(msg.sender, ids[1]);
        _redeem(conditionId, ids, amounts);
    }

    function _split(bytes32 conditionId, uint256 amount) private {
        require(collateral.transferFrom(msg.sender, address(this), amount), "collateral transfer failed");
        collateral.approve(address(ctf), amount);
        ctf.splitPosition(address(collateral), bytes32(0), conditionId, _partition(), amount);
        ctf.safeBatchTransferFrom(address(this), msg.sender, _ids(conditionId), _pair(amount), "");
    }

    function _merge(bytes32 conditionId, uint256 amount) private {
        ctf.safeBatchTransferFrom(msg.sender, address(this), _ids(conditionId), _pair(amount), "");
        ctf.mergePositions(address(collateral), bytes32(0), conditionId, _partition(), amount);
        require(collateral.transfer(msg.sender, amount), "collateral transfer failed");
    }

    function _redeem(bytes32 conditionId, uint256[] memory ids, uint256[] memory amounts) private {
        ctf.safeBatchTransferFrom(msg.sender, address(this), ids, amounts, "");
        uint256 before = collateral.balanceOf(address(this));
        ctf.redeemPositions(address(collateral), bytes32(0), conditionId, _partition());
        uint256 paid = collateral.balanceOf(address(this)) - before;
        if (paid > 0) require(collateral.transfer(msg.sender, paid), "collateral transfer failed");
    }

    function _ids(bytes32 conditionId) private view returns (uint256[] memory ids) {
        ids = new uint256[](2);
        ids[0] = ctf.getPositionId(address(collateral), ctf.getCollectionId(bytes32(0), conditionId, 1));
        ids[1] = ctf.getPositionId(address(collateral), ctf.getCollectionId(bytes32(0), conditionId, 2));
    }

    function _partition() private pure returns (uint256[] memory p) {
        p = new uint256[](2);
        p[0] = 1;
        p[1] = 2;
    }

    function _pair(uint256 amount) private pure returns (uint256[] memory p) {
        p = new uint256[](2);
        p[0] = amount;
        p[1] = amount;
    }

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
}
