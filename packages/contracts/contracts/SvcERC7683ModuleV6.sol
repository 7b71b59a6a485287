// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {SvcMainnetV6Types} from "./SvcV6Types.sol";
import {IERC165, ISvcRouterV6} from "./SvcV6Interfaces.sol";

/// @title SvcERC7683ModuleV6
/// @notice The ERC-7683 resolver module: turns the standard payload
/// `abi.encode(ExecutionPermit permit, bytes permitSignature)` into the one source
/// transaction that executes it, a `fillDirect` call to the router. Read-only; meant
/// for eth_call.
/// @dev No immutables (see SvcMainnetRouterV6).
contract SvcERC7683ModuleV6 is IERC165 {
    /// @notice The permit is for another router than this module's.
    error WrongSourceRouter(address permitRouter);
    /// @notice The permit is for another chain.
    error WrongSourceChain(uint256 permitChainId, uint256 currentChainId);
    /// @notice The constructor's router is zero.
    error ZeroAddress();

    /// @notice keccak256("ERC-7683").
    bytes32 public constant STANDARD_ID = keccak256("ERC-7683");
    /// @notice The V6 standard-module interface id: selector(standardId()) ^ selector(resolveExecution(bytes)).
    bytes4 public constant STANDARD_MODULE_INTERFACE_ID = 0x8d60d6f9;

    /// @notice An assumption the resolved order relies on: a name and ABI-encoded data.
    struct Assumption {
        string name;
        bytes data;
    }

    /// @notice The resolved order: steps, variables, payments and assumptions, each
    /// ABI-encoded as described in the README.
    struct ResolvedOrder {
        bytes[] steps;
        bytes[] variables;
        bytes[] payments;
        Assumption[] assumptions;
    }

    address private _router;

    /// @param router_ the router the resolved calls go to
    constructor(address router_) {
        if (router_ == address(0)) revert ZeroAddress();
        _router = router_;
    }

    /// @notice keccak256("ERC-7683").
    function standardId() external pure returns (bytes32) {
        return STANDARD_ID;
    }

    /// @notice The router the resolved calls go to.
    function router() external view returns (address) {
        return _router;
    }

    /// @notice ERC-165: true for ERC-165 itself (0x01ffc9a7) and the standard-module id (0x8d60d6f9).
    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == type(IERC165).interfaceId || interfaceId == STANDARD_MODULE_INTERFACE_ID;
    }

    /// @notice The source transaction of a payload: target = router, value = amountInRaw for
    /// a native-coin permit (sourceAsset zero) else 0, callData = `fillDirect(permit, signature)`
    /// (selector 0xeeff9007 followed by the payload, canonically re-encoded). Reverts when
    /// the payload does not decode or the permit is for another router or chain.
    function resolveExecution(bytes calldata payload) public view returns (SvcMainnetV6Types.Execution memory) {
        (SvcMainnetV6Types.ExecutionPermit memory permit, bytes memory signature) =
            abi.decode(payload, (SvcMainnetV6Types.ExecutionPermit, bytes));
        if (permit.sourceRouter != _router) revert WrongSourceRouter(permit.sourceRouter);
        if (permit.sourceChainId != block.chainid) revert WrongSourceChain(permit.sourceChainId, block.chainid);
        return SvcMainnetV6Types.Execution({
            routeId: permit.routeId,
            quoteId: permit.quoteId,
            target: _router,
            value: permit.sourceAsset == address(0) ? permit.amountInRaw : 0,
            callData: abi.encodeCall(ISvcRouterV6.fillDirect, (permit, signature))
        });
    }

    /// @notice The payload as an ERC-7683-style resolved order with one step (the fillDirect
    /// call), one payment (what the recipient gets on the destination chain) and two
    /// assumptions (the step's caller must be the permit's payer; the payment goes to the
    /// permit's recipient). Encodings: step = abi.encode(address target, bytes callData,
    /// uint256 value); payment = abi.encode(uint256 chainId, address token, address recipient,
    /// uint256 amount); assumption data = abi.encode(address).
    function resolve(bytes calldata payload) external view returns (ResolvedOrder memory order) {
        SvcMainnetV6Types.Execution memory execution = resolveExecution(payload);
        (SvcMainnetV6Types.ExecutionPermit memory permit,) =
            abi.decode(payload, (SvcMainnetV6Types.ExecutionPermit, bytes));

        order.steps = new bytes[](1);
        order.steps[0] = abi.encode(execution.target, execution.callData, execution.value);
        order.variables = new bytes[](0);
        order.payments = new bytes[](1);
        order.payments[0] = abi.encode(
            permit.destinationChainId, permit.destinationAsset, permit.recipient, uint256(permit.amountOutRaw)
        );
        order.assumptions = new Assumption[](2);
        order.assumptions[0] = Assumption({name: "SvcPermitPayerIsStepCaller", data: abi.encode(permit.payer)});
        order.assumptions[1] =
            Assumption({name: "SvcPermitRecipientIsPaymentRecipient", data: abi.encode(permit.recipient)});
    }
}
