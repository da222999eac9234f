// SPDX-License-Identifier: MIT
// The sandbox chain's stand-in for Polymarket's V2 NegRiskCollateralAdapter (its source is in no package or
// repository we can read): the contract the V2 SDK (`@polymarket/client` src/actions/positions.ts) sends a neg-risk
// market's split / merge / redeem to, with the CTF's five-argument forms and the collateral as collateral token.
// Here it forwards to the NegRiskAdapter's two-argument forms, so the positions are the adapter's (collateralised
// by the WrappedCollateral). Positions and collateral are pulled from the caller (who must have approved this
// contract, as on Polygon) and what comes out goes back to the caller. On the sandbox chain the NegRiskAdapter's
// collateral is the pUSD stand-in itself, so nothing is converted on the way. Compiled like Collateral.sol.
pragma solidity ^0.8.20;

interface IPusd {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
    function transfer(address to, uint256 amount) external returns (bool);
    function approve(address spender, uint256 amount) external returns (bool);
    function balanceOf(address owner) external view returns (uint256);
}

interface INegRiskAdapterLike {
    function wcol() external view returns (address);
    function splitPosition(bytes32 conditionId, uint256 amount) external;
    function mergePositions(bytes32 conditionId, uint256 amount) external;
    function redeemPositions(bytes32 conditionId, uint256[] calldata amounts) external;
}

interface IPositions {
    function getCollectionId(bytes32 parent, bytes32 conditionId, uint256 indexSet) external view returns (bytes32);
    function getPositionId(address collateral, bytes32 collectionId) external pure returns (uint256);
    function balanceOf(address owner, uint256 id) external view returns (uint256);
    function isApprovedForAll(address owner, address operator) external view returns (bool);
    function setApprovalForAll(address operator, bool approved) external;
    function safeBatchTransferFrom(address from, address to, uint256[] calldata ids, uint256[] calldata values, bytes calldata data) external;
}

contract NegRiskCollateralAdapter {
    IPositions public immutable ctf;
    INegRiskAdapterLike public immutable negRiskAdapter;
    IPusd public immutable collateral;

    constructor(address ctf_, address negRiskAdapter_, address collateral_) {
        ctf = IPositions(ctf_);
        negRiskAdapter = INegRiskAdapterLike(negRiskAdapter_);
        collateral = IPusd(collateral_);
    }

    function splitPosition(address collateralToken, bytes32, bytes32 conditionId, uint256[] calldata, uint256 amount)
        external
    {
        require(collateralToken == address(collateral), "unexpected collateral token");
        require(collateral.transferFrom(msg.sender, address(this), amount), "collateral transfer failed");
        collateral.approve(address(negRiskAdapter), amount);
        negRiskAdapter.splitPosition(conditionId, amount);
        ctf.safeBatchTransferFrom(address(this), msg.sender, _ids(conditionId), _pair(amount, amount), "");
    }

    function mergePositions(address collateralToken, bytes32, bytes32 conditionId, uint256[] calldata, uint256 amount)
        external
    {
        require(collateralToken == address(collateral), "unexpected collateral token");
        ctf.safeBatchTransferFrom(msg.sender, address(this), _ids(conditionId), _pair(amount, amount), "");
        _allowAdapter();
        negRiskAdapter.mergePositions(conditionId, amount);
        require(collateral.transfer(msg.sender, amount), "collateral transfer failed");
    }

    /// Redeems everything the caller holds of the condition's two neg-risk positions.
    function redeemPositions(address collateralToken, bytes32, bytes32 conditionId, uint256[] calldata) external {
        require(collateralToken == address(collateral), "unexpected collateral token");
        uint256[] memory ids = _ids(conditionId);
        uint256[] memory amounts = _pair(ctf.balanceOf(msg.sender, ids[0]), ctf.balanceOf(msg.sender, ids[1]));
        ctf.safeBatchTransferFrom(msg.sender, address(this), ids, amounts, "");
        _allowAdapter();
        uint256 before = collateral.balanceOf(address(this));
        negRiskAdapter.redeemPositions(conditionId, amounts);
        uint256 paid = collateral.balanceOf(address(this)) - before;
        if (paid > 0) require(collateral.transfer(msg.sender, paid), "collateral transfer failed");
    }

    /// The adapter pulls positions from whoever merges or redeems through it: this contract, here. Granted on first
    /// use, since a code copy to the Polygon address carries no storage a constructor could have set.
    function _allowAdapter() private {
        if (!ctf.isApprovedForAll(address(this), address(negRiskAdapter))) {
            ctf.setApprovalForAll(address(negRiskAdapter), true);
        }
    }

    function _ids(bytes32 conditionId) private view returns (uint256[] memory ids) {
        address wcol = negRiskAdapter.wcol();
        ids = new uint256[](2);
        ids[0] = ctf.getPositionId(wcol, ctf.getCollectionId(bytes32(0), conditionId, 1));
        ids[1] = ctf.getPositionId(wcol, ctf.getCollectionId(bytes32(0), conditionId, 2));
    }

    function _pair(uint256 a, uint256 b) private pure returns (uint256[] memory p) {
        p = new uint256[](2);
        p[0] = a;
        p[1] = b;
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
