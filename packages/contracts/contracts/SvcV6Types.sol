// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title SvcMainnetV6Types
/// @notice Types and constants shared by the svc V6 reference contracts.
library SvcMainnetV6Types {
    /// @notice keccak256("SVC_MAINNET_V6"), the release every V6 contract reports.
    bytes32 internal constant RELEASE_ID = keccak256("SVC_MAINNET_V6");

    /// @notice Route status: known to the registry but not executable.
    uint8 internal constant ROUTE_REGISTERED = 1;
    /// @notice Route status: executable.
    uint8 internal constant ROUTE_ACTIVE = 2;

    /// @notice The on-chain execution permit: 31 static members in ABI order
    /// (docs/protocol.md, "The on-chain tuple"). The JSON-only fields of a permit
    /// (publicationLane, serviceCategory, feeMode, serviceFeeBps) are not here.
    struct ExecutionPermit {
        bytes32 releaseId;
        bytes32 fillId;
        bytes32 routeId;
        bytes32 quoteId;
        bytes32 policyHash;
        bytes32 permitNonce;
        bytes32 sourceNetworkId;
        bytes32 sourceAssetId;
        bytes32 destinationNetworkId;
        bytes32 destinationAssetId;
        bytes32 sourceVaultAccountId;
        bytes32 destinationVaultAccountId;
        bytes32 payerAccountId;
        bytes32 recipientAccountId;
        uint64 dataVersion;
        bytes32 executionGeneration;
        uint64 validAfter;
        uint64 validUntil;
        uint32 sourceFinalityBlocks;
        uint32 settlementWindowSeconds;
        uint256 sourceChainId;
        uint256 destinationChainId;
        address sourceAsset;
        address destinationAsset;
        address sourceVault;
        address destinationVault;
        address sourceRouter;
        address payer;
        address recipient;
        uint128 amountInRaw;
        uint128 amountOutRaw;
    }

    /// @notice A route of the registry: its id and the four ids it is derived from.
    struct Route {
        bytes32 routeId;
        bytes32 sourceNetworkId;
        bytes32 sourceAssetId;
        bytes32 destinationNetworkId;
        bytes32 destinationAssetId;
    }

    /// @notice What ERC-7683 `resolveExecution` returns: one call to make on the source chain.
    struct Execution {
        bytes32 routeId;
        bytes32 quoteId;
        address target;
        uint256 value;
        bytes callData;
    }
}
