// SPDX-License-Identifier: MIT
// The sandbox chain's equivalent of Polymarket's NegRiskAdapter (Polymarket/neg-risk-ctf-adapter
// src/NegRiskAdapter.sol, src/modules/MarketDataManager.sol, src/libraries/NegRiskIdLib.sol and
// docs/NegRiskAdapter.md, read for the interface and rules, not copied): a neg-risk market is a set of binary
// questions of which at most one resolves YES. The adapter is the oracle of every question's CTF condition
// (conditionId = the CTF condition of (this adapter, questionId, 2)), and every position is collateralised by the
// WrappedCollateral ERC-20 instead of the collateral itself, so neg-risk position ids differ from standard ones and
// convertPositions can free collateral (NO of m questions = m - 1 collateral + YES of the other questions).
// Same external functions, ids, events and errors as the original for what Omnibook and the V2 SDK use:
// prepareMarket / prepareQuestion / reportOutcome (the market's creator is its oracle), split / merge (two- and
// five-argument forms), redeemPositions(conditionId, amounts), convertPositions, balanceOf(Batch), getConditionId,
// getPositionId and the market getters. Differences, all because the sandbox copies runtime code to the Polygon
// address (anvil_setCode, no constructor storage survives): the WrappedCollateral is passed in rather than deployed
// here, and its and the CTF's allowances are granted per call rather than once in the constructor. Not carried
// over: the admin list (Auth) and the admin-only safeTransferFrom the real neg-risk exchange uses, since our
// simulator's exchange moves tokens on the CTF itself. Compiled by scripts/compile-sandbox-contracts.mjs.
pragma solidity ^0.8.20;

interface INegRiskCollateral {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
    function approve(address spender, uint256 amount) external returns (bool);
}

interface IWrapped {
    function wrap(address to, uint256 amount) external;
    function unwrap(address to, uint256 amount) external;
    function mint(uint256 amount) external;
    function release(address to, uint256 amount) external;
    function approve(address spender, uint256 amount) external returns (bool);
    function balanceOf(address owner) external view returns (uint256);
}

interface INegRiskCtf {
    function prepareCondition(address oracle, bytes32 questionId, uint256 outcomeSlotCount) external;
    function reportPayouts(bytes32 questionId, uint256[] calldata payouts) external;
    function getOutcomeSlotCount(bytes32 conditionId) external view returns (uint256);
    function splitPosition(address collateral, bytes32 parent, bytes32 conditionId, uint256[] calldata partition, uint256 amount) external;
    function mergePositions(address collateral, bytes32 parent, bytes32 conditionId, uint256[] calldata partition, uint256 amount) external;
    function redeemPositions(address collateral, bytes32 parent, bytes32 conditionId, uint256[] calldata indexSets) external;
    function getCollectionId(bytes32 parent, bytes32 conditionId, uint256 indexSet) external view returns (bytes32);
    function getPositionId(address collateral, bytes32 collectionId) external pure returns (uint256);
    function balanceOf(address owner, uint256 id) external view returns (uint256);
    function balanceOfBatch(address[] calldata owners, uint256[] calldata ids) external view returns (uint256[] memory);
    function safeBatchTransferFrom(address from, address to, uint256[] calldata ids, uint256[] calldata values, bytes calldata data) external;
}

contract NegRiskAdapter {
    error InvalidIndexSet();
    error UnexpectedCollateralToken();
    error NoConvertiblePositions();
    error IndexOutOfBounds();
    error OnlyOracle();
    error MarketNotPrepared();
    error MarketAlreadyPrepared();
    error MarketAlreadyDetermined();
    error FeeBipsOutOfBounds();

    event MarketPrepared(bytes32 indexed marketId, address indexed oracle, uint256 feeBips, bytes data);
    event QuestionPrepared(bytes32 indexed marketId, bytes32 indexed questionId, uint256 index, bytes data);
    event OutcomeReported(bytes32 indexed marketId, bytes32 indexed questionId, bool outcome);
    event PositionSplit(address indexed stakeholder, bytes32 indexed conditionId, uint256 amount);
    event PositionsMerge(address indexed stakeholder, bytes32 indexed conditionId, uint256 amount);
    event PositionsConverted(
        address indexed stakeholder, bytes32 indexed marketId, uint256 indexed indexSet, uint256 amount
    );
    event PayoutRedemption(address indexed redeemer, bytes32 indexed conditionId, uint256[] amounts, uint256 payout);

    struct Market {
        address oracle;
        uint16 feeBips;
        uint16 questionCount;
        bool determined;
        uint8 result;
    }

    INegRiskCtf public immutable ctf;
    INegRiskCollateral public immutable col;
    IWrapped public immutable wcol;
    address public immutable vault;

    address public constant NO_TOKEN_BURN_ADDRESS = address(bytes20(bytes32(keccak256("NO_TOKEN_BURN_ADDRESS"))));
    uint256 public constant FEE_DENOMINATOR = 10_000;
    /// Market ids end in a zero byte; a question id is its market id plus the question's index in that byte.
    bytes32 private constant MARKET_MASK = bytes32(type(uint256).max << 8);

    mapping(bytes32 => Market) private markets;

    constructor(address ctf_, address collateral_, address wcol_, address vault_) {
        ctf = INegRiskCtf(ctf_);
        col = INegRiskCollateral(collateral_);
        wcol = IWrapped(wcol_);
        vault = vault_;
    }

    // ---- ids ----

    function getConditionId(bytes32 questionId) public view returns (bytes32) {
        // The CTF's own formula: keccak256(oracle, questionId, outcomeSlotCount), this adapter being the oracle.
        return keccak256(abi.encodePacked(address(this), questionId, uint256(2)));
    }

    function getPositionId(bytes32 questionId, bool outcome) public view returns (uint256) {
        return _positionId(getConditionId(questionId), outcome ? 1 : 2);
    }

    // ---- market state ----

    function getOracle(bytes32 marketId) external view returns (address) {
        return markets[marketId].oracle;
    }

    function getQuestionCount(bytes32 marketId) external view returns (uint256) {
        return markets[marketId].questionCount;
    }

    function getDetermined(bytes32 marketId) external view returns (bool) {
        return markets[marketId].determined;
    }

    function getResult(bytes32 marketId) external view returns (uint256) {
        return markets[marketId].result;
    }

    function getFeeBips(bytes32 marketId) external view returns (uint256) {
        return markets[marketId].feeBips;
    }

    /// A new market whose oracle is the caller; its id depends on the caller, the fee and the metadata only.
    function prepareMarket(uint256 feeBips, bytes calldata metadata) external returns (bytes32 marketId) {
        marketId = keccak256(abi.encode(msg.sender, feeBips, metadata)) & MARKET_MASK;
        if (markets[marketId].oracle != address(0)) revert MarketAlreadyPrepared();
        if (feeBips > FEE_DENOMINATOR) revert FeeBipsOutOfBounds();
        markets[marketId] = Market(msg.sender, uint16(feeBips), 0, false, 0);
        emit MarketPrepared(marketId, msg.sender, feeBips, metadata);
    }

    /// The market's next question (index = questions so far), prepared on the CTF with this adapter as oracle.
    function prepareQuestion(bytes32 marketId, bytes calldata metadata) external returns (bytes32 questionId) {
        Market storage m = markets[marketId];
        if (m.oracle == address(0)) revert MarketNotPrepared();
        if (m.oracle != msg.sender) revert OnlyOracle();
        uint256 index = m.questionCount;
        if (index > 255) revert IndexOutOfBounds();
        questionId = bytes32(uint256(marketId) + index);
        m.questionCount = uint16(index + 1);
        bytes32 conditionId = getConditionId(questionId);
        if (ctf.getOutcomeSlotCount(conditionId) == 0) ctf.prepareCondition(address(this), questionId, 2);
        emit QuestionPrepared(marketId, questionId, index, metadata);
    }

    /// The market's oracle reports one question; a second YES in the same market is refused.
    function reportOutcome(bytes32 questionId, bool outcome) external {
        bytes32 marketId = questionId & MARKET_MASK;
        uint256 index = uint8(uint256(questionId));
        Market storage m = markets[marketId];
        if (m.oracle == address(0)) revert MarketNotPrepared();
        if (m.oracle != msg.sender) revert OnlyOracle();
        if (index >= m.questionCount) revert IndexOutOfBounds();
        if (outcome) {
            if (m.determined) revert MarketAlreadyDetermined();
            m.determined = true;
            m.result = uint8(index);
        }
        uint256[] memory payouts = new uint256[](2);
        payouts[outcome ? 0 : 1] = 1;
        ctf.reportPayouts(questionId, payouts);
        emit OutcomeReported(marketId, questionId, outcome);
    }

    // ---- split / merge / redeem ----

    /// The CTF's signature, so callers written for the CTF work unchanged; the collateral must be this adapter's.
    function splitPosition(address collateralToken, bytes32, bytes32 conditionId, uint256[] calldata, uint256 amount)
        external
    {
        if (collateralToken != address(col)) revert UnexpectedCollateralToken();
        splitPosition(conditionId, amount);
    }

    /// Collateral from the caller, wrapped, split into YES + NO of the condition, both sent to the caller.
    function splitPosition(bytes32 conditionId, uint256 amount) public {
        require(col.transferFrom(msg.sender, address(this), amount), "collateral transfer failed");
        col.approve(address(wcol), amount);
        wcol.wrap(address(this), amount);
        _split(conditionId, amount);
        ctf.safeBatchTransferFrom(address(this), msg.sender, _ids(conditionId), _same(2, amount), "");
        emit PositionSplit(msg.sender, conditionId, amount);
    }

    function mergePositions(address collateralToken, bytes32, bytes32 conditionId, uint256[] calldata, uint256 amount)
        external
    {
        if (collateralToken != address(col)) revert UnexpectedCollateralToken();
        mergePositions(conditionId, amount);
    }

    /// A full YES + NO set from the caller merged back, the wrapped collateral unwrapped to the caller.
    function mergePositions(bytes32 conditionId, uint256 amount) public {
        ctf.safeBatchTransferFrom(msg.sender, address(this), _ids(conditionId), _same(2, amount), "");
        ctf.mergePositions(address(wcol), bytes32(0), conditionId, _partition(), amount);
        wcol.unwrap(msg.sender, amount);
        emit PositionsMerge(msg.sender, conditionId, amount);
    }

    /// amounts = [YES, NO] taken from the caller and redeemed; what they pay out comes back as collateral.
    function redeemPositions(bytes32 conditionId, uint256[] calldata amounts) external {
        ctf.safeBatchTransferFrom(msg.sender, address(this), _ids(conditionId), amounts, "");
        uint256 before = wcol.balanceOf(address(this));
        ctf.redeemPositions(address(wcol), bytes32(0), conditionId, _partition());
        uint256 payout = wcol.balanceOf(address(this)) - before;
        if (payout > 0) wcol.unwrap(msg.sender, payout);
        emit PayoutRedemption(msg.sender, conditionId, amounts, payout);
    }

    // ---- convert ----

    /// NO of the questions in `indexSet` (bit i = question i), `amount` each, become `amount` YES of every other
    /// question plus (NO count - 1) * `amount` collateral, less the market's fee (sent to the vault). The NO tokens
    /// given up, and the NO half of the YES sets split here, go to the burn address and are never redeemed.
    function convertPositions(bytes32 marketId, uint256 indexSet, uint256 amount) external {
        Market memory m = markets[marketId];
        if (m.oracle == address(0)) revert MarketNotPrepared();
        uint256 count = m.questionCount;
        if (count <= 1) revert NoConvertiblePositions();
        if (indexSet == 0 || (indexSet >> count) != 0) revert InvalidIndexSet();
        if (amount == 0) return;

        uint256 noCount;
        for (uint256 i = 0; i < count; i++) {
            if (indexSet & (1 << i) != 0) noCount++;
        }
        (uint256[] memory given, uint256[] memory yes, uint256[] memory splitNo) =
            _convertIds(marketId, indexSet, count, noCount);

        // The YES of every question outside the set is split here from unbacked wrapped units: the burnt NO
        // tokens of the set are what backs them.
        if (yes.length > 0) {
            wcol.mint(yes.length * amount);
            wcol.approve(address(ctf), yes.length * amount);
            for (uint256 i = 0; i < count; i++) {
                if (indexSet & (1 << i) == 0) {
                    ctf.splitPosition(
                        address(wcol),
                        bytes32(0),
                        getConditionId(bytes32(uint256(marketId) + i)),
                        _partition(),
                        amount
                    );
                }
            }
        }
        ctf.safeBatchTransferFrom(msg.sender, NO_TOKEN_BURN_ADDRESS, given, _same(given.length, amount), "");
        if (splitNo.length > 0) {
            ctf.safeBatchTransferFrom(address(this), NO_TOKEN_BURN_ADDRESS, splitNo, _same(splitNo.length, amount), "");
        }
        _payConverted(m.feeBips, noCount, yes, amount);
        emit PositionsConverted(msg.sender, marketId, indexSet, amount);
    }

    // ---- ERC-1155 views, proxied to the CTF (the V2 SDK reads neg-risk balances here) ----

    function balanceOf(address owner, uint256 id) external view returns (uint256) {
        return ctf.balanceOf(owner, id);
    }

    function balanceOfBatch(address[] calldata owners, uint256[] calldata ids) external view returns (uint256[] memory) {
        return ctf.balanceOfBatch(owners, ids);
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

    // ---- internal ----

    function _split(bytes32 conditionId, uint256 amount) private {
        wcol.approve(address(ctf), amount);
        ctf.splitPosition(address(wcol), bytes32(0), conditionId, _partition(), amount);
    }

    function _convertIds(bytes32 marketId, uint256 indexSet, uint256 count, uint256 noCount)
        private
        view
        returns (uint256[] memory given, uint256[] memory yes, uint256[] memory splitNo)
    {
        given = new uint256[](noCount);
        yes = new uint256[](count - noCount);
        splitNo = new uint256[](count - noCount);
        uint256 g;
        uint256 y;
        for (uint256 i = 0; i < count; i++) {
            bytes32 questionId = bytes32(uint256(marketId) + i);
            if (indexSet & (1 << i) != 0) {
                given[g++] = getPositionId(questionId, false);
            } else {
                yes[y] = getPositionId(questionId, true);
                splitNo[y++] = getPositionId(questionId, false);
            }
        }
    }

    function _payConverted(uint256 feeBips, uint256 noCount, uint256[] memory yes, uint256 amount) private {
        uint256 fee = (amount * feeBips) / FEE_DENOMINATOR;
        uint256 out = amount - fee;
        if (noCount > 1) {
            if (fee > 0) wcol.release(vault, (noCount - 1) * fee);
            wcol.release(msg.sender, (noCount - 1) * out);
        }
        if (yes.length > 0) {
            if (fee > 0) ctf.safeBatchTransferFrom(address(this), vault, yes, _same(yes.length, fee), "");
            ctf.safeBatchTransferFrom(address(this), msg.sender, yes, _same(yes.length, out), "");
        }
    }

    function _positionId(bytes32 conditionId, uint256 indexSet) private view returns (uint256) {
        return ctf.getPositionId(address(wcol), ctf.getCollectionId(bytes32(0), conditionId, indexSet));
    }

    function _ids(bytes32 conditionId) private view returns (uint256[] memory ids) {
        ids = new uint256[](2);
        ids[0] = _positionId(conditionId, 1);
        ids[1] = _positionId(conditionId, 2);
    }

    function _partition() private pure returns (uint256[] memory p) {
        p = new uint256[](2);
        p[0] = 1;
        p[1] = 2;
    }

    function _same(uint256 length, uint256 value) private pure returns (uint256[] memory values) {
        values = new uint256[](length);
        for (uint256 i = 0; i < length; i++) values[i] = value;
    }
}
