// SPDX-License-Identifier: MIT
// The Polymarket simulator's deposit wallets on the sandbox chain. Polymarket's own DepositWallet and
// DepositWalletFactory sources are not published in anything we can install, so these are ours, built to the
// behaviour the public clients rely on (docs/venues/polymarket-sim.md, "Relayer"):
// - the factory deploys each owner's wallet with CREATE2 as a Solady (v0.1.26) ERC-1967 clone of the implementation,
//   immutable args abi.encode(factory, bytes32(owner)), salt keccak256(args) — so the wallet lands exactly where
//   `@polymarket/builder-relayer-client`'s deriveUupsDepositWallet puts it;
// - a wallet runs an EIP-712 `Batch{wallet, nonce, deadline, calls: Call{target, value, data}[]}` signed by its
//   owner in its own domain ("DepositWallet", "1", chain id, the wallet), all calls or none (any revert undoes the
//   batch and leaves the nonce unspent), and exposes `nonce()` as the client's ABI reads it;
// - `isValidSignature` (ERC-1271) accepts the ERC-7739 nested typed-data envelope the V2 order SDK builds for
//   signature type 3: inner(65) ‖ appDomainSeparator ‖ contentsHash ‖ contentsType ‖ uint16(len(contentsType)),
//   the owner having signed TypedDataSign{contents, name, version, chainId, verifyingContract, salt} under the app's
//   domain with this wallet's domain fields.
// Compiled by scripts/compile-deposit-wallet.mjs with the `solc` npm package; deposit-wallet.json beside it is
// the output, and test/unit/chain/deposit-wallet-contracts.test.ts recompiles and compares.
pragma solidity ^0.8.20;

contract DepositWallet {
    struct Call {
        address target;
        uint256 value;
        bytes data;
    }

    struct Batch {
        address wallet;
        uint256 nonce;
        uint256 deadline;
        Call[] calls;
    }

    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant CALL_TYPEHASH = keccak256("Call(address target,uint256 value,bytes data)");
    bytes32 private constant BATCH_TYPEHASH = keccak256(
        "Batch(address wallet,uint256 nonce,uint256 deadline,Call[] calls)Call(address target,uint256 value,bytes data)"
    );
    bytes32 private constant NAME_HASH = keccak256("DepositWallet");
    bytes32 private constant VERSION_HASH = keccak256("1");
    /// Runtime size of the clone: 0x3d bytes of proxy code, then the 64 bytes of immutable args.
    uint256 private constant CLONE_SIZE = 0x3d + 64;

    /// The next batch nonce (storage of the clone, not of the implementation).
    uint256 public nonce;

    event BatchExecuted(uint256 indexed nonce, uint256 calls);

    function factory() public view returns (address f) {
        (f,) = _args();
    }

    function owner() public view returns (address o) {
        (, bytes32 walletId) = _args();
        o = address(uint160(uint256(walletId)));
    }

    /// Runs the owner's signed batch; only through the factory, which is where the relayer sends it.
    function execute(Batch calldata batch, bytes calldata signature) external {
        require(msg.sender == factory(), "only the factory");
        require(batch.wallet == address(this), "batch for another wallet");
        require(batch.nonce == nonce, "invalid nonce");
        require(block.timestamp <= batch.deadline, "batch expired");
        require(_recover(_digest(_domainSeparator(), _batchHash(batch)), signature) == owner(), "invalid signature");
        nonce = batch.nonce + 1;
        for (uint256 i = 0; i < batch.calls.length; i++) {
            Call calldata c = batch.calls[i];
            (bool ok, bytes memory reason) = c.target.call{value: c.value}(c.data);
            if (!ok) {
                // Bubble the call's own revert: the whole batch, nonce included, is undone.
                assembly {
                    revert(add(reason, 0x20), mload(reason))
                }
            }
        }
        emit BatchExecuted(batch.nonce, batch.calls.length);
    }

    /// ERC-1271 through the ERC-7739 TypedDataSign envelope; anything else is not this wallet's signature.
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        return _typedDataSignValid(hash, signature) ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
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

    receive() external payable {}

    function _typedDataSignValid(bytes32 hash, bytes calldata sig) private view returns (bool) {
        if (sig.length < 65 + 64 + 2) return false;
        uint256 n = uint16(bytes2(sig[sig.length - 2:]));
        if (sig.length != 65 + 64 + n + 2) return false;
        bytes32 appSeparator = bytes32(sig[65:97]);
        bytes32 contents = bytes32(sig[97:129]);
        bytes calldata contentsType = sig[129:129 + n];
        // The envelope must describe the very hash being checked.
        if (_digest(appSeparator, contents) != hash) return false;
        uint256 nameEnd = _contentsNameLength(contentsType);
        if (nameEnd == 0) return false;
        bytes32 typeHash = keccak256(
            abi.encodePacked(
                "TypedDataSign(",
                contentsType[:nameEnd],
                " contents,string name,string version,uint256 chainId,address verifyingContract,bytes32 salt)",
                contentsType
            )
        );
        bytes32 structHash = keccak256(
            abi.encode(typeHash, contents, NAME_HASH, VERSION_HASH, block.chainid, address(this), bytes32(0))
        );
        return _recover(_digest(appSeparator, structHash), sig[:65]) == owner();
    }

    /// Length of the primary type's name in `Name(...)...`; 0 when it is not a well-formed EIP-712 type name.
    function _contentsNameLength(bytes calldata contentsType) private pure returns (uint256) {
        if (contentsType.length == 0) return 0;
        bytes1 first = contentsType[0];
        if (first >= "a" && first <= "z") return 0;
        for (uint256 i = 0; i < contentsType.length; i++) {
            bytes1 ch = contentsType[i];
            if (ch == "(") return i;
            if (ch == "," || ch == " " || ch == ")" || ch == 0x00) return 0;
        }
        return 0;
    }

    function _batchHash(Batch calldata batch) private pure returns (bytes32) {
        bytes32[] memory callHashes = new bytes32[](batch.calls.length);
        for (uint256 i = 0; i < batch.calls.length; i++) {
            Call calldata c = batch.calls[i];
            callHashes[i] = keccak256(abi.encode(CALL_TYPEHASH, c.target, c.value, keccak256(c.data)));
        }
        return keccak256(
            abi.encode(
                BATCH_TYPEHASH, batch.wallet, batch.nonce, batch.deadline, keccak256(abi.encodePacked(callHashes))
            )
        );
    }

    function _domainSeparator() private view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, VERSION_HASH, block.chainid, address(this)));
    }

    function _digest(bytes32 separator, bytes32 structHash) private pure returns (bytes32) {
        return keccak256(abi.encodePacked(hex"1901", separator, structHash));
    }

    /// ecrecover of a 65-byte r ‖ s ‖ v signature; address(0) for anything malformed or malleable.
    function _recover(bytes32 digest, bytes calldata sig) private pure returns (address) {
        if (sig.length != 65) return address(0);
        bytes32 r = bytes32(sig[0:32]);
        bytes32 s = bytes32(sig[32:64]);
        uint8 v = uint8(sig[64]);
        if (uint256(s) > 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0) return address(0);
        if (v != 27 && v != 28) return address(0);
        return ecrecover(digest, v, r, s);
    }

    /// The clone's immutable args (factory, walletId), read from the clone's own code as Solady's argsOnERC1967 does.
    function _args() private view returns (address f, bytes32 walletId) {
        require(address(this).code.length == CLONE_SIZE, "not a deposit wallet clone");
        bytes memory a = new bytes(64);
        assembly {
            extcodecopy(address(), add(a, 0x20), 0x3d, 64)
        }
        (f, walletId) = abi.decode(a, (address, bytes32));
    }
}

contract DepositWalletFactory {
    address public immutable implementation;

    event WalletDeployed(address indexed owner, address wallet);

    constructor(address implementation_) {
        implementation = implementation_;
    }

    /// Deploys `owner`'s wallet (anyone may: the address and owner are fixed by the owner alone).
    function deploy(address owner) external returns (address wallet) {
        bytes memory args = abi.encode(address(this), bytes32(uint256(uint160(owner))));
        // Solady LibClone.initCodeERC1967(implementation, args): store the implementation in the ERC-1967 slot,
        // return the 0x3d-byte delegating proxy followed by the args.
        bytes memory initCode = abi.encodePacked(
            hex"61",
            uint16(0x3d + args.length),
            hex"3d8160233d3973",
            implementation,
            hex"6009",
            hex"5155f3363d3d373d3d363d7f360894a13ba1a3210667c828492db98dca3e2076",
            hex"cc3735a920a3ca505d382bbc545af43d6000803e6038573d6000fd5b3d6000f3",
            args
        );
        bytes32 salt = keccak256(args);
        assembly {
            wallet := create2(0, add(initCode, 0x20), mload(initCode), salt)
        }
        require(wallet != address(0), "wallet already deployed");
        emit WalletDeployed(owner, wallet);
    }

    /// The relayer's entry for a `WALLET` transaction: the wallet checks the owner's signature, nonce and deadline.
    function execute(address wallet, DepositWallet.Batch calldata batch, bytes calldata signature) external {
        require(wallet.code.length > 0, "no wallet at that address");
        DepositWallet(payable(wallet)).execute(batch, signature);
    }
}
