// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {SvcMainnetV6Types} from "./SvcV6Types.sol";
import {ISvcRegistryV6} from "./SvcV6Interfaces.sol";
import {SvcOwned} from "./SvcOwned.sol";

/// @title SvcMainnetRegistryV6
/// @notice The public route registry: which routes exist (by routeId and the four ids
/// a routeId is derived from), their current execution generation, their status
/// (1 registered, 2 active; only active routes are executable) and, per network, the
/// local address of an asset id. Routes are listed in registration order.
/// @dev No immutables (see SvcMainnetRouterV6).
contract SvcMainnetRegistryV6 is ISvcRegistryV6, SvcOwned {
    /// @notice A routeId of zero.
    error ZeroRouteId();
    /// @notice The route is registered already.
    error RouteAlreadyRegistered(bytes32 routeId);
    /// @notice The route is not registered.
    error RouteNotRegistered(bytes32 routeId);
    /// @notice A status other than 1 (registered) or 2 (active).
    error InvalidRouteStatus(uint8 status);
    /// @notice routeAt past the end of the list.
    error RouteIndexOutOfRange(uint256 index, uint256 count);

    /// @notice A route was registered (its status is 1, registered).
    event RouteRegisteredV6(
        bytes32 indexed routeId,
        bytes32 indexed sourceNetworkId,
        bytes32 indexed destinationNetworkId,
        bytes32 sourceAssetId,
        bytes32 destinationAssetId
    );
    /// @notice A route's status changed; `generation` is the registry's configuration
    /// generation after the change (see {generation}).
    event RouteStatusChangedV6(
        bytes32 indexed routeId, uint8 previousStatus, uint8 status, address indexed actor, uint64 generation
    );
    /// @notice A route's execution generation changed.
    event ExecutionGenerationChangedV6(
        bytes32 indexed routeId, bytes32 previousExecutionGeneration, bytes32 executionGeneration, uint64 generation
    );
    /// @notice The local address of `assetId` on `networkId` was set.
    event LocalAssetAddressSetV6(
        bytes32 indexed networkId, bytes32 indexed assetId, address localAddress, uint64 generation
    );

    struct LocalAsset {
        address localAddress;
        bool configured;
    }

    mapping(bytes32 routeId => SvcMainnetV6Types.Route) private _routes;
    mapping(bytes32 routeId => bytes32) private _executionGeneration;
    mapping(bytes32 routeId => uint8) private _status;
    bytes32[] private _routeIds;
    mapping(bytes32 networkId => mapping(bytes32 assetId => LocalAsset)) private _localAssets;
    uint64 private _generation;

    /// @param initialOwner the owner (the only account that can change the registry)
    constructor(address initialOwner) SvcOwned(initialOwner) {}

    // ------------------------------------------------------------------ views

    /// @notice keccak256("SVC_MAINNET_V6").
    function releaseId() external pure returns (bytes32) {
        return SvcMainnetV6Types.RELEASE_ID;
    }

    /// @notice The route; all zero (routeId 0) when it is not registered.
    function getRoute(bytes32 routeId) external view returns (SvcMainnetV6Types.Route memory) {
        return _routes[routeId];
    }

    /// @notice The route's current execution generation (0 when not registered).
    function executionGeneration(bytes32 routeId) external view returns (bytes32) {
        return _executionGeneration[routeId];
    }

    /// @notice The route's status: 0 unknown, 1 registered, 2 active.
    function routeStatus(bytes32 routeId) external view returns (uint8) {
        return _status[routeId];
    }

    /// @notice Whether the route is active.
    function isRouteExecutable(bytes32 routeId) external view returns (bool) {
        return _status[routeId] == SvcMainnetV6Types.ROUTE_ACTIVE;
    }

    /// @notice The number of registered routes.
    function routeCount() external view returns (uint256) {
        return _routeIds.length;
    }

    /// @notice The routeId at `index` (registration order).
    function routeAt(uint256 index) external view returns (bytes32) {
        if (index >= _routeIds.length) revert RouteIndexOutOfRange(index, _routeIds.length);
        return _routeIds[index];
    }

    /// @notice The local address of `assetId` on `networkId` (the zero address stands for
    /// the native coin) and whether it was configured.
    function localAssetAddress(bytes32 networkId, bytes32 assetId)
        external
        view
        returns (address localAddress, bool configured)
    {
        LocalAsset storage entry = _localAssets[networkId][assetId];
        return (entry.localAddress, entry.configured);
    }

    /// @notice The configuration generation: starts at 0 and grows by one with every
    /// change the owner makes (route registration, status, execution generation, asset address).
    function generation() external view returns (uint64) {
        return _generation;
    }

    // ------------------------------------------------------------------ owner

    /// @notice Registers a route with status 1 (registered); activate it with {setRouteStatus}.
    function registerRoute(
        bytes32 routeId,
        bytes32 sourceNetworkId,
        bytes32 sourceAssetId,
        bytes32 destinationNetworkId,
        bytes32 destinationAssetId,
        bytes32 executionGeneration_
    ) external onlyOwner {
        if (routeId == bytes32(0)) revert ZeroRouteId();
        if (_status[routeId] != 0) revert RouteAlreadyRegistered(routeId);
        _routes[routeId] = SvcMainnetV6Types.Route({
            routeId: routeId,
            sourceNetworkId: sourceNetworkId,
            sourceAssetId: sourceAssetId,
            destinationNetworkId: destinationNetworkId,
            destinationAssetId: destinationAssetId
        });
        _executionGeneration[routeId] = executionGeneration_;
        _status[routeId] = SvcMainnetV6Types.ROUTE_REGISTERED;
        _routeIds.push(routeId);
        uint64 next = ++_generation;
        emit RouteRegisteredV6(routeId, sourceNetworkId, destinationNetworkId, sourceAssetId, destinationAssetId);
        emit RouteStatusChangedV6(routeId, 0, SvcMainnetV6Types.ROUTE_REGISTERED, msg.sender, next);
    }

    /// @notice Sets a registered route's status to 1 (registered) or 2 (active).
    function setRouteStatus(bytes32 routeId, uint8 status) external onlyOwner {
        uint8 previous = _status[routeId];
        if (previous == 0) revert RouteNotRegistered(routeId);
        if (status != SvcMainnetV6Types.ROUTE_REGISTERED && status != SvcMainnetV6Types.ROUTE_ACTIVE) {
            revert InvalidRouteStatus(status);
        }
        _status[routeId] = status;
        emit RouteStatusChangedV6(routeId, previous, status, msg.sender, ++_generation);
    }

    /// @notice Replaces a registered route's execution generation.
    function setExecutionGeneration(bytes32 routeId, bytes32 executionGeneration_) external onlyOwner {
        if (_status[routeId] == 0) revert RouteNotRegistered(routeId);
        bytes32 previous = _executionGeneration[routeId];
        _executionGeneration[routeId] = executionGeneration_;
        emit ExecutionGenerationChangedV6(routeId, previous, executionGeneration_, ++_generation);
    }

    /// @notice Sets the local address of `assetId` on `networkId` (zero address: the native coin).
    function setLocalAssetAddress(bytes32 networkId, bytes32 assetId, address localAddress) external onlyOwner {
        _localAssets[networkId][assetId] = LocalAsset({localAddress: localAddress, configured: true});
        emit LocalAssetAddressSetV6(networkId, assetId, localAddress, ++_generation);
    }
}
