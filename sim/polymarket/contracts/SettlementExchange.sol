// SPDX-License-Identifier: MIT
// The Polymarket simulator's exchange on the sandbox chain: it settles the CLOB's matches the way the real CTF
// Exchange's matchOrders moves funds (docs/venues/polymarket-sim.md, "Settlement on the sandbox chain"), placed at
// the V2 exchange's and the neg-risk exchange's Polygon addresses — the very spenders/operators traders approve.
// Per fill, between a taker and one maker:
// - Transfer (one buys what the other sells): the buyer's collateral goes to the seller, the seller's outcome
//   tokens to the buyer (ERC-20 transferFrom, ERC-1155 safeTransferFrom, both on the traders' approvals);
// - Mint (both buy, complementary outcomes): both pay in, the exchange splits the collateral into a full YES+NO
//   set on the ConditionalTokens contract and hands each buyer its side;
// - Merge (both sell, complementary outcomes): both hand in their tokens, the exchange merges the set back into
//   collateral and pays each seller its part.
// Then the taker's fee goes to the fee collector. One call, one transaction, every fill or none.
// The instance at the neg-risk exchange's address is deployed with the NegRiskAdapter (`negRiskAdapter`, zero for
// the standard one) and mints and merges through its two-argument splitPosition / mergePositions, as the real
// NegRiskCtfExchange does, so the sets are the adapter's wrapped-collateral positions (Polymarket/
// neg-risk-ctf-adapter src/NegRiskCtfExchange.sol, docs/NegRiskAdapter.md: its CTF-compatible forms exist so the
// exchange works with it).
// Unlike the real exchange it does not verify order signatures on chain: the simulator's CLOB has checked them
// (EOA ecrecover, or the deposit wallet's own isValidSignature) before matching, and only its operator may call.
// Compiled by scripts/compile-sim-exchange.mjs with the `solc` npm package; settlement-exchange.json beside it is
// the output, and test/unit/chain/settlement-exchange-contract.test.ts recompiles and compares.
pragma solidity ^0.8.20;

interface IERC20Like {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
    function transfer(address to, uint256 amount) external returns (bool);
    function approve(address spender, uint256 amount) external returns (bool);
}

interface IConditionalTokensLike {
    function safeTransferFrom(address from, address to, uint256 id, uint256 value, bytes calldata data) external;
    function splitPosition(
        address collateralToken,
        bytes32 parentCollectionId,
        bytes32 conditionId,
        uint256[] calldata partition,
        uint256 amount
    ) external;
    function mergePositions(
        address collateralToken,
        bytes32 parentCollectionId,
        bytes32 conditionId,
        uint256[] calldata partition,
        uint256 amount
    ) external;
    function isApprovedForAll(address owner, address operator) external view returns (bool);
    function setApprovalForAll(address operator, bool approved) external;
}

interface INegRiskAdapterLike {
    function splitPosition(bytes32 conditionId, uint256 amount) external;
    function mergePositions(bytes32 conditionId, uint256 amount) external;
}

contract SettlementExchange {
    enum Kind {
        Transfer,
        Mint,
        Merge
    }

    struct Fill {
        Kind kind;
        // Transfer: the buyer. Mint: the YES buyer. Merge: the YES seller.
        address first;
        // Transfer: the seller. Mint: the NO buyer. Merge: the NO seller.
        address second;
        // Transfer only: the outcome token that changes hands.
        uint256 tokenId;
        uint256 shares;
        // Collateral: what the buyer pays (Transfer), the YES side pays (Mint) or the YES side receives (Merge).
        uint256 firstAmount;
        // Collateral: what the NO side pays (Mint) or receives (Merge); zero for a Transfer.
        uint256 secondAmount;
    }

    struct Market {
        bytes32 conditionId;
        uint256 yesId;
        uint256 noId;
    }

    address public immutable operator;
    IERC20Like public immutable collateral;
    IConditionalTokensLike public immutable ctf;
    /// Zero for the standard exchange; the NegRiskAdapter for the neg-risk exchange.
    INegRiskAdapterLike public immutable negRiskAdapter;

    event Settled(bytes32 indexed tradeId, bytes32 indexed conditionId, uint256 fills, uint256 fee);

    constructor(address operator_, address collateral_, address ctf_, address negRiskAdapter_) {
        operator = operator_;
        collateral = IERC20Like(collateral_);
        ctf = IConditionalTokensLike(ctf_);
        negRiskAdapter = INegRiskAdapterLike(negRiskAdapter_);
    }

    function settle(
        bytes32 tradeId,
        Market calldata market,
        Fill[] calldata fills,
        address feePayer,
        address feeCollector,
        uint256 fee
    ) external {
        require(msg.sender == operator, "only the operator");
        for (uint256 i = 0; i < fills.length; i++) {
            Fill calldata f = fills[i];
            if (f.kind == Kind.Transfer) {
                require(f.secondAmount == 0, "a transfer has one payment");
                require(collateral.transferFrom(f.first, f.second, f.firstAmount), "collateral transfer failed");
                ctf.safeTransferFrom(f.second, f.first, f.tokenId, f.shares, "");
            } else if (f.kind == Kind.Mint) {
                require(f.firstAmount + f.secondAmount == f.shares, "a minted set costs one per share");
                require(collateral.transferFrom(f.first, address(this), f.firstAmount), "collateral transfer failed");
                require(collateral.transferFrom(f.second, address(this), f.secondAmount), "collateral transfer failed");
                _split(market.conditionId, f.shares);
                ctf.safeTransferFrom(address(this), f.first, market.yesId, f.shares, "");
                ctf.safeTransferFrom(address(this), f.second, market.noId, f.shares, "");
            } else {
                require(f.firstAmount + f.secondAmount == f.shares, "a merged set pays one per share");
                ctf.safeTransferFrom(f.first, address(this), market.yesId, f.shares, "");
                ctf.safeTransferFrom(f.second, address(this), market.noId, f.shares, "");
                _merge(market.conditionId, f.shares);
                require(collateral.transfer(f.first, f.firstAmount), "collateral transfer failed");
                require(collateral.transfer(f.second, f.secondAmount), "collateral transfer failed");
            }
        }
        if (fee > 0) require(collateral.transferFrom(feePayer, feeCollector, fee), "fee transfer failed");
        emit Settled(tradeId, market.conditionId, fills.length, fee);
    }

    function _split(bytes32 conditionId, uint256 shares) private {
        if (address(negRiskAdapter) == address(0)) {
            require(collateral.approve(address(ctf), shares), "approve failed");
            ctf.splitPosition(address(collateral), bytes32(0), conditionId, _binary(), shares);
        } else {
            require(collateral.approve(address(negRiskAdapter), shares), "approve failed");
            negRiskAdapter.splitPosition(conditionId, shares);
        }
    }

    function _merge(bytes32 conditionId, uint256 shares) private {
        if (address(negRiskAdapter) == address(0)) {
            ctf.mergePositions(address(collateral), bytes32(0), conditionId, _binary(), shares);
        } else {
            // The adapter takes the set from this contract; granted on first use, as a code copy has no storage.
            if (!ctf.isApprovedForAll(address(this), address(negRiskAdapter))) {
                ctf.setApprovalForAll(address(negRiskAdapter), true);
            }
            negRiskAdapter.mergePositions(conditionId, shares);
        }
    }

    function _binary() private pure returns (uint256[] memory partition) {
        partition = new uint256[](2);
        partition[0] = 1;
        partition[1] = 2;
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
