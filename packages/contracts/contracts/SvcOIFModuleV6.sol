// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {SvcMainnetV6Types} from "./SvcV6Types.sol";
import {IERC165} from "./SvcV6Interfaces.sol";

/// @title SvcOIFModuleV6
/// @notice The OIF description module: svc permits are not executable through OIF
/// (`resolveExecution` always reverts), but `describeMandate` describes what a permit
/// promises on the destination chain in OIF's output terms.
/// @dev No immutables (see SvcMainnetRouterV6).
contract SvcOIFModuleV6 is IERC165 {
    /// @notice OIF execution is not offered; execute through the router (or the ERC-7683 module).
    error OIFExecutionUnsupported();
    /// @notice The constructor's router is zero.
    error ZeroAddress();

    /// @notice keccak256("OIF").
    bytes32 public constant STANDARD_ID = keccak256("OIF");
    /// @notice keccak256("DISCOVERY_DESCRIPTION_ONLY").
    bytes32 public constant COMPATIBILITY_LEVEL = keccak256("DISCOVERY_DESCRIPTION_ONLY");
    /// @notice The V6 standard-module interface id: selector(standardId()) ^ selector(resolveExecution(bytes)).
    bytes4 public constant STANDARD_MODULE_INTERFACE_ID = 0x8d60d6f9;

    /// @notice A permit's destination output in OIF terms.
    struct MandateOutput {
        bytes32 oracle;
        bytes32 settler;
        uint256 chainId;
        bytes32 token;
        uint256 amount;
        bytes32 recipient;
        bytes callbackData;
        bytes context;
    }

    address private _router;

    /// @param router_ the router that executes permits
    constructor(address router_) {
        if (router_ == address(0)) revert ZeroAddress();
        _router = router_;
    }

    /// @notice keccak256("OIF").
    function standardId() external pure returns (bytes32) {
        return STANDARD_ID;
    }

    /// @notice keccak256("DISCOVERY_DESCRIPTION_ONLY").
    function compatibilityLevel() external pure returns (bytes32) {
        return COMPATIBILITY_LEVEL;
    }

    /// @notice The router that executes permits.
    function router() external view returns (address) {
        return _router;
    }

    /// @notice ERC-165: true for ERC-165 itself (0x01ffc9a7) and the standard-module id (0x8d60d6f9).
    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == type(IERC165).interfaceId || interfaceId == STANDARD_MODULE_INTERFACE_ID;
    }

    /// @notice Always reverts OIFExecutionUnsupported().
    function resolveExecution(bytes calldata) external pure returns (SvcMainnetV6Types.Execution memory) {
        revert OIFExecutionUnsupported();
    }

    /// @notice The destination output of a standard payload `abi.encode(ExecutionPermit, bytes)`:
    /// oracle and settler 0, chainId = destinationChainId, token = destinationAsset and
    /// recipient left-padded to 32 bytes, amount = amountOutRaw, no callback data, and
    /// context = abi.encode(releaseId, routeId, quoteId, fillId, permitNonce,
    /// executionGeneration, uint64 validUntil).
    function describeMandate(bytes calldata payload) external pure returns (MandateOutput memory) {
        (SvcMainnetV6Types.ExecutionPermit memory permit,) =
            abi.decode(payload, (SvcMainnetV6Types.ExecutionPermit, bytes));
        return MandateOutput({
            oracle: bytes32(0),
            settler: bytes32(0),
            chainId: permit.destinationChainId,
            token: bytes32(uint256(uint160(permit.destinationAsset))),
            amount: permit.amountOutRaw,
            recipient: bytes32(uint256(uint160(permit.recipient))),
            callbackData: "",
            context: abi.encode(
                permit.releaseId,
                permit.routeId,
                permit.quoteId,
                permit.fillId,
                permit.permitNonce,
                permit.executionGeneration,
                permit.validUntil
            )
        });
    }
}
