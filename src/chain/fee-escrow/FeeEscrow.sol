// SPDX-License-Identifier: MIT
// Omnibook's fee escrow for builder orders (wire contract §5). A builder's end-user signs an EIP-712 `PullFee`
// (orderId, payer, feeAmount, deadline); our service (the operator) presents it here before the order reaches an
// exchange, and the fee moves from the payer into escrow (ERC-20 transferFrom, so the payer approved this contract).
// Once the order's fate is known the operator settles it: the filled share of the fee goes to the affiliate (its bps
// of it) and the treasury (the rest), the unfilled share back to the payer — all of it on a cancel or expiry. An order
// id escrows once, which is what makes a signature single-use. Should the operator never settle, the payer takes
// the fee back itself after RECLAIM_DELAY. Compiled by scripts/compile-sandbox-contracts.mjs with the `solc` npm
// package; fee-escrow-contract.json beside it is the output, and a test recompiles and compares.
pragma solidity ^0.8.20;

interface IERC20Like {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
    function transfer(address to, uint256 amount) external returns (bool);
}

contract FeeEscrow {
    string public constant NAME = "Omnibook FeeEscrow";
    string public constant VERSION = "1";
    bytes32 public constant PULL_FEE_TYPEHASH =
        keccak256("PullFee(bytes32 orderId,address payer,uint256 feeAmount,uint256 deadline)");
    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    /// secp256k1n / 2: a larger s is the malleable twin of a valid signature.
    uint256 private constant HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0;
    uint256 public constant BPS = 10_000;
    uint256 public constant RECLAIM_DELAY = 30 days;

    IERC20Like public immutable token;
    address public immutable operator;
    address public immutable treasury;

    enum State { None, Held, Settled }

    struct Escrowed {
        address payer;
        address affiliate;
        uint256 amount;
        uint16 affiliateBps;
        uint64 pulledAt;
        State state;
    }

    mapping(bytes32 => Escrowed) public escrows;

    event FeePulled(bytes32 indexed orderId, address indexed payer, uint256 amount, address affiliate, uint16 affiliateBps);
    event FeeSettled(bytes32 indexed orderId, uint256 toAffiliate, uint256 toTreasury, uint256 refunded);

    constructor(address token_, address operator_, address treasury_) {
        require(token_ != address(0) && operator_ != address(0) && treasury_ != address(0), "zero address");
        token = IERC20Like(token_);
        operator = operator_;
        treasury = treasury_;
    }

    modifier onlyOperator() {
        require(msg.sender == operator, "only the operator");
        _;
    }

    function domainSeparator() public view returns (bytes32) {
        return keccak256(
            abi.encode(DOMAIN_TYPEHASH, keccak256(bytes(NAME)), keccak256(bytes(VERSION)), block.chainid, address(this))
        );
    }

    /// The EIP-712 digest the payer signs.
    function pullFeeDigest(bytes32 orderId, address payer, uint256 feeAmount, uint256 deadline)
        public
        view
        returns (bytes32)
    {
        bytes32 structHash = keccak256(abi.encode(PULL_FEE_TYPEHASH, orderId, payer, feeAmount, deadline));
        return keccak256(abi.encodePacked("\x19\x01", domainSeparator(), structHash));
    }

    /// The address that signed `signature` (65 bytes r‖s‖v) over the PullFee; zero when none validly did.
    function pullFeeSigner(bytes32 orderId, address payer, uint256 feeAmount, uint256 deadline, bytes calldata signature)
        public
        view
        returns (address)
    {
        if (signature.length != 65) return address(0);
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (v < 27) v += 27;
        if (v != 27 && v != 28) return address(0);
        if (uint256(s) > HALF_N) return address(0);
        return ecrecover(pullFeeDigest(orderId, payer, feeAmount, deadline), v, r, s);
    }

    /// Takes the fee into escrow against the payer's signature. `affiliate` receives `affiliateBps` of what is
    /// distributed (none when it is the zero address).
    function pullFee(
        bytes32 orderId,
        address payer,
        uint256 feeAmount,
        uint256 deadline,
        bytes calldata signature,
        address affiliate,
        uint16 affiliateBps
    ) external onlyOperator {
        require(block.timestamp <= deadline, "authorization expired");
        require(feeAmount > 0, "zero fee");
        require(affiliateBps <= BPS, "affiliate bps over 10000");
        require(escrows[orderId].state == State.None, "order id already used");
        address signer = pullFeeSigner(orderId, payer, feeAmount, deadline, signature);
        require(signer != address(0) && signer == payer, "not signed by the payer");
        escrows[orderId] = Escrowed({
            payer: payer,
            affiliate: affiliate,
            amount: feeAmount,
            affiliateBps: affiliate == address(0) ? 0 : affiliateBps,
            pulledAt: uint64(block.timestamp),
            state: State.Held
        });
        require(token.transferFrom(payer, address(this), feeAmount), "transferFrom failed");
        emit FeePulled(orderId, payer, feeAmount, affiliate, affiliateBps);
    }

    /// Settles once the order is closed: `filled` of `size` (any common unit) is distributed, the rest refunded.
    /// A cancel or expiry with nothing filled is settle(orderId, 0, size): a full refund.
    function settle(bytes32 orderId, uint256 filled, uint256 size) external onlyOperator {
        require(size > 0 && filled <= size, "filled must be within size");
        _close(orderId, filled, size);
    }

    /// The payer's way out if the operator never settles: a full refund after RECLAIM_DELAY.
    function reclaim(bytes32 orderId) external {
        Escrowed storage e = escrows[orderId];
        require(msg.sender == e.payer, "only the payer");
        require(block.timestamp >= uint256(e.pulledAt) + RECLAIM_DELAY, "too early to reclaim");
        _close(orderId, 0, 1);
    }

    function _close(bytes32 orderId, uint256 filled, uint256 size) private {
        Escrowed storage e = escrows[orderId];
        require(e.state == State.Held, "no fee held for this order");
        e.state = State.Settled;
        uint256 distributed = (e.amount * filled) / size;
        uint256 toAffiliate = (distributed * e.affiliateBps) / BPS;
        uint256 toTreasury = distributed - toAffiliate;
        uint256 refunded = e.amount - distributed;
        if (toAffiliate > 0) require(token.transfer(e.affiliate, toAffiliate), "transfer failed");
        if (toTreasury > 0) require(token.transfer(treasury, toTreasury), "transfer failed");
        if (refunded > 0) require(token.transfer(e.payer, refunded), "transfer failed");
        emit FeeSettled(orderId, toAffiliate, toTreasury, refunded);
    }
}
