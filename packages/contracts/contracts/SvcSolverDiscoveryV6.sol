// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {SvcMainnetV6Types} from "./SvcV6Types.sol";
import {ISvcRegistryV6, ISvcRouterV6} from "./SvcV6Interfaces.sol";

/// @title SvcSolverDiscoveryV6
/// @notice The public on-chain discovery facade: deployed at the same CREATE2 address
/// on every supported chain, it points a scanner at the solver's discovery document
/// (`discoveryURI`), says whether the deployment is live, and lists the registry's
/// routes. It has no owner and nothing can be changed after deployment.
/// @dev No immutables (see SvcMainnetRouterV6).
contract SvcSolverDiscoveryV6 {
    /// @notice The registry answered for another route than the one asked for.
    error InvalidPublicDiscoveryConfiguration();
    /// @notice A constructor address argument is zero.
    error ZeroAddress();

    /// @notice keccak256("SVC_MAINNET_V6").
    bytes32 public constant RELEASE_ID = SvcMainnetV6Types.RELEASE_ID;
    /// @notice The deployment version (6).
    uint256 public constant DEPLOYMENT_VERSION = 6;

    address private _registry;
    address private _router;
    string private _discoveryURI;

    /// @param registry_ the route registry
    /// @param router_ the source router
    /// @param discoveryURI_ the URL of the solver's discovery document
    constructor(address registry_, address router_, string memory discoveryURI_) {
        if (registry_ == address(0) || router_ == address(0)) revert ZeroAddress();
        _registry = registry_;
        _router = router_;
        _discoveryURI = discoveryURI_;
    }

    /// @notice The route registry.
    function registry() external view returns (address) {
        return _registry;
    }

    /// @notice The source router.
    function router() external view returns (address) {
        return _router;
    }

    /// @notice block.chainid.
    function chainId() external view returns (uint256) {
        return block.chainid;
    }

    /// @notice The URL of the solver's discovery document, as given at deployment.
    function discoveryURI() external view returns (string memory) {
        return _discoveryURI;
    }

    /// @notice True when the registry and the router both report RELEASE_ID, the router
    /// points at this facade's registry and the router's source intake is enabled. Any
    /// call that reverts, has no code behind it or answers malformed data makes it false.
    function isLive() public view returns (bool) {
        address registry_ = _registry;
        address router_ = _router;
        (bool ok, bytes32 word) = _read(registry_, ISvcRegistryV6.releaseId.selector);
        if (!ok || word != RELEASE_ID) return false;
        (ok, word) = _read(router_, ISvcRouterV6.releaseId.selector);
        if (!ok || word != RELEASE_ID) return false;
        (ok, word) = _read(router_, ISvcRouterV6.registry.selector);
        if (!ok || word != bytes32(uint256(uint160(registry_)))) return false;
        (ok, word) = _read(router_, ISvcRouterV6.sourceIntakeEnabled.selector);
        return ok && uint256(word) == 1;
    }

    /// @notice Everything a scanner checks in one call. discoverableRouteCount is the
    /// registry's routeCount (0 if that call fails).
    function systemState()
        external
        view
        returns (
            uint256 currentChainId,
            bytes32 release,
            address publicRegistry,
            address publicRouter,
            uint256 discoverableRouteCount,
            bool live
        )
    {
        (bool ok, bytes32 count) = _read(_registry, ISvcRegistryV6.routeCount.selector);
        return (block.chainid, RELEASE_ID, _registry, _router, ok ? uint256(count) : 0, isLive());
    }

    /// @notice The registry's route count.
    function routeCount() external view returns (uint256) {
        return ISvcRegistryV6(_registry).routeCount();
    }

    /// @notice The registry's routeId at `index`.
    function routeAt(uint256 index) external view returns (bytes32) {
        return ISvcRegistryV6(_registry).routeAt(index);
    }

    /// @notice A route with its generation and status; reverts
    /// InvalidPublicDiscoveryConfiguration when the registry does not know it.
    function route(bytes32 routeId)
        external
        view
        returns (
            bytes32 sourceNetworkId,
            bytes32 sourceAssetId,
            bytes32 destinationNetworkId,
            bytes32 destinationAssetId,
            bytes32 executionGeneration,
            uint8 status,
            bool executable
        )
    {
        ISvcRegistryV6 registry_ = ISvcRegistryV6(_registry);
        SvcMainnetV6Types.Route memory r = registry_.getRoute(routeId);
        if (r.routeId != routeId) revert InvalidPublicDiscoveryConfiguration();
        return (
            r.sourceNetworkId,
            r.sourceAssetId,
            r.destinationNetworkId,
            r.destinationAssetId,
            registry_.executionGeneration(routeId),
            registry_.routeStatus(routeId),
            registry_.isRouteExecutable(routeId)
        );
    }

    /// @dev staticcall of a no-argument getter; ok only when the call succeeds and returns at
    /// least one word. Unlike try/catch this also turns "no code" and short return data into
    /// a false result instead of a revert in this contract.
    function _read(address target, bytes4 selector) private view returns (bool ok, bytes32 word) {
        bytes memory returned;
        (ok, returned) = target.staticcall(abi.encodeWithSelector(selector));
        if (!ok || returned.length < 32) return (false, bytes32(0));
        word = abi.decode(returned, (bytes32));
    }
}
