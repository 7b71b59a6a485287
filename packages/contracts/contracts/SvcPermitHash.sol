// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {SvcMainnetV6Types} from "./SvcV6Types.sol";

/// @title SvcPermitHash
/// @notice EIP-712 hashing of an ExecutionPermit (docs/protocol.md, "permitDigest").
library SvcPermitHash {
    /// @notice keccak256 of the ExecutionPermit type string (0x3c56605f...f499).
    bytes32 internal constant TYPEHASH = keccak256(
        "ExecutionPermit(bytes32 releaseId,bytes32 fillId,bytes32 routeId,bytes32 quoteId,bytes32 policyHash,"
        "bytes32 permitNonce,bytes32 sourceNetworkId,bytes32 sourceAssetId,bytes32 destinationNetworkId,"
        "bytes32 destinationAssetId,bytes32 sourceVaultAccountId,bytes32 destinationVaultAccountId,"
        "bytes32 payerAccountId,bytes32 recipientAccountId,uint64 dataVersion,bytes32 executionGeneration,"
        "uint64 validAfter,uint64 validUntil,uint32 sourceFinalityBlocks,uint32 settlementWindowSeconds,"
        "uint256 sourceChainId,uint256 destinationChainId,address sourceAsset,address destinationAsset,"
        "address sourceVault,address destinationVault,address sourceRouter,address payer,address recipient,"
        "uint128 amountInRaw,uint128 amountOutRaw)"
    );

    /// @notice keccak256 of the EIP712Domain type string (0x8b73c3c6...400f).
    bytes32 internal constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");

    /// @notice keccak256("Svc V6 Router").
    bytes32 internal constant NAME_HASH = keccak256("Svc V6 Router");

    /// @notice keccak256("6").
    bytes32 internal constant VERSION_HASH = keccak256("6");

    /// @notice The EIP-712 struct hash of a permit.
    /// @dev Every member of ExecutionPermit is a static type, so `abi.encode(TYPEHASH, permit)`
    /// is the typehash followed by the 31 members as one 32-byte word each, in declaration
    /// order: exactly EIP-712's `typeHash || encodeData(permit)`. Encoding the struct as
    /// one argument avoids the stack limit that 32 separate arguments would hit.
    function structHash(SvcMainnetV6Types.ExecutionPermit calldata permit) internal pure returns (bytes32) {
        return keccak256(abi.encode(TYPEHASH, permit));
    }

    /// @notice The EIP-712 domain separator for `chainId` and `verifyingContract`.
    function domainSeparator(uint256 chainId, address verifyingContract) internal pure returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, VERSION_HASH, chainId, verifyingContract));
    }

    /// @notice keccak256(0x19 0x01 || domainSeparator || structHash).
    function digest(bytes32 separator, bytes32 hashOfStruct) internal pure returns (bytes32) {
        return keccak256(abi.encodePacked(hex"1901", separator, hashOfStruct));
    }
}
