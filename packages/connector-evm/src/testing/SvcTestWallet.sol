// SPDX-License-Identifier: MIT
// Test contracts of @svc/connector-evm: a minimal ERC-1271 smart-contract wallet
// owned by one EOA, and a CREATE2 factory for counterfactual (ERC-6492) wallets.
// Not for production: isValidSignature accepts the owner's signature over any hash.
pragma solidity 0.8.37;

contract SvcTestWallet {
    bytes4 internal constant MAGIC_VALUE = 0x1626ba7e;
    uint256 internal constant HALF_N = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    address public immutable owner;

    constructor(address owner_) {
        owner = owner_;
    }

    /// ERC-1271: valid when `signature` is the owner's 65-byte r || s || v signature of `hash`.
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 65) return 0xffffffff;
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (uint256(s) > HALF_N) return 0xffffffff;
        address signer = ecrecover(hash, v, r, s);
        return signer != address(0) && signer == owner ? MAGIC_VALUE : bytes4(0xffffffff);
    }
}

contract SvcTestWalletFactory {
    /// Deploys the wallet of `owner` at its CREATE2 address (salt = `salt`).
    function deploy(address owner, bytes32 salt) external returns (address wallet) {
        wallet = address(new SvcTestWallet{salt: salt}(owner));
    }

    /// The CREATE2 address of the wallet of `owner` with `salt`, deployed or not.
    function addressOf(address owner, bytes32 salt) external view returns (address) {
        bytes32 codeHash = keccak256(abi.encodePacked(type(SvcTestWallet).creationCode, abi.encode(owner)));
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, codeHash)))));
    }
}
