// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {SvcMainnetV6Types} from "./SvcV6Types.sol";

/// @notice The part of ERC-20 the reference contracts call.
interface IERC20Minimal {
    function balanceOf(address account) external view returns (uint256);
    function transfer(address to, uint256 amount) external returns (bool);
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// @notice The route registry's read interface (what the discovery facade calls).
interface ISvcRegistryV6 {
    function releaseId() external pure returns (bytes32);
    function getRoute(bytes32 routeId) external view returns (SvcMainnetV6Types.Route memory);
    function executionGeneration(bytes32 routeId) external view returns (bytes32);
    function isRouteExecutable(bytes32 routeId) external view returns (bool);
    function routeStatus(bytes32 routeId) external view returns (uint8);
    function routeCount() external view returns (uint256);
    function routeAt(uint256 index) external view returns (bytes32);
}

/// @notice The router's interface used by the facade and the standard modules.
interface ISvcRouterV6 {
    function releaseId() external pure returns (bytes32);
    function registry() external view returns (address);
    function sourceIntakeEnabled() external view returns (bool);
    function fillDirect(SvcMainnetV6Types.ExecutionPermit calldata permit, bytes calldata signature)
        external
        payable
        returns (bytes32 fillId);
}

/// @notice ERC-165.
interface IERC165 {
    function supportsInterface(bytes4 interfaceId) external view returns (bool);
}
