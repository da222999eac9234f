// SPDX-License-Identifier: MIT
// The sandbox chain's equivalent of Polymarket's WrappedCollateral (Polymarket/neg-risk-ctf-adapter
// src/WrappedCollateral.sol, read for its interface, not copied): the ERC-20 that collateralises every neg-risk
// position on the ConditionalTokens contract, one wrapped unit per unit of the underlying collateral held here.
// Only its owner, the NegRiskAdapter, wraps, mints, burns and releases; anyone unwraps what they hold.
// Unlike the original it takes its owner as a constructor argument (the original's owner is the adapter that
// deployed it): the sandbox deploys it normally and copies its runtime code to the Polygon address, so the owner
// must be the adapter's Polygon address, not a deployer's. Name, symbol and decimals are constants or immutables
// for the same reason (a code copy carries no storage). Compiled by scripts/compile-sandbox-contracts.mjs.
pragma solidity ^0.8.20;

interface IUnderlying {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
    function transfer(address to, uint256 amount) external returns (bool);
}

contract WrappedCollateral {
    error OnlyOwner();

    string public constant name = "Wrapped Collateral";
    string public constant symbol = "WCOL";

    address public immutable owner;
    address public immutable underlying;
    uint8 public immutable decimals;

    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    modifier onlyOwner() {
        if (msg.sender != owner) revert OnlyOwner();
        _;
    }

    constructor(address owner_, address underlying_, uint8 decimals_) {
        owner = owner_;
        underlying = underlying_;
        decimals = decimals_;
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        _move(msg.sender, to, amount);
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) {
            require(allowed >= amount, "allowance too low");
            allowance[from][msg.sender] = allowed - amount;
        }
        _move(from, to, amount);
        return true;
    }

    /// Burns the caller's wrapped units and pays out as much of the underlying to `to`.
    function unwrap(address to, uint256 amount) external {
        _burn(msg.sender, amount);
        require(IUnderlying(underlying).transfer(to, amount), "underlying transfer failed");
    }

    /// Takes `amount` of the underlying from the owner and mints as many wrapped units to `to`.
    function wrap(address to, uint256 amount) external onlyOwner {
        require(IUnderlying(underlying).transferFrom(msg.sender, address(this), amount), "underlying transfer failed");
        _mint(to, amount);
    }

    /// Unbacked units for the owner: convertPositions splits YES sets it pays out partly in released underlying.
    function mint(uint256 amount) external onlyOwner {
        _mint(msg.sender, amount);
    }

    function burn(uint256 amount) external onlyOwner {
        _burn(msg.sender, amount);
    }

    /// Pays out underlying without burning: the collateral convertPositions frees.
    function release(address to, uint256 amount) external onlyOwner {
        require(IUnderlying(underlying).transfer(to, amount), "underlying transfer failed");
    }

    function _move(address from, address to, uint256 amount) private {
        require(balanceOf[from] >= amount, "balance too low");
        balanceOf[from] -= amount;
        balanceOf[to] += amount;
        emit Transfer(from, to, amount);
    }

    function _mint(address to, uint256 amount) private {
        totalSupply += amount;
        balanceOf[to] += amount;
        emit Transfer(address(0), to, amount);
    }

    function _burn(address from, uint256 amount) private {
        require(balanceOf[from] >= amount, "balance too low");
        balanceOf[from] -= amount;
        totalSupply -= amount;
        emit Transfer(from, address(0), amount);
    }
}
