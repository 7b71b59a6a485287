// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {SvcOwned} from "./SvcOwned.sol";
import {SvcTransfer} from "./SvcTransfer.sol";

/// @title SvcVaultV6
/// @notice The solver's vault on one chain. As a source vault it simply holds what
/// the router moves in (ERC-20 balances and the native coin). As a destination vault
/// it pays fills out: the operator (the solver's payout key) calls `payout` once per
/// fillId; a second payout for the same fillId reverts, so a retried payout
/// transaction can never pay twice.
/// @dev No immutables (see SvcMainnetRouterV6).
contract SvcVaultV6 is SvcOwned {
    /// @notice The caller is not the operator.
    error NotOperator(address caller);
    /// @notice This fillId has been paid out already.
    error PayoutAlreadyPaid(bytes32 fillId);
    /// @notice A payout or withdrawal of zero.
    error ZeroAmount();
    /// @notice The ERC-20 transfer failed (reverted, returned false, or no code at the token).
    error TokenTransferFailed(address token);
    /// @notice Sending the native coin failed.
    error NativeTransferFailed(address to);

    /// @notice `amount` of `token` (zero address: the native coin) was paid to `recipient` for `fillId`.
    event PayoutV6(bytes32 indexed fillId, address indexed recipient, address indexed token, uint128 amount);
    /// @notice The operator changed.
    event OperatorChanged(address indexed previousOperator, address indexed newOperator);
    /// @notice The owner withdrew `amount` of `token` (zero address: the native coin) to `to`.
    event Withdrawal(address indexed token, address indexed to, uint256 amount);
    /// @notice The vault received `amount` of the native coin from `from`.
    event NativeReceived(address indexed from, uint256 amount);

    address private _operator;
    mapping(bytes32 fillId => bool) private _paidOut;

    /// @param initialOwner the owner (operator rotation, withdrawals)
    /// @param initialOperator the payout key
    constructor(address initialOwner, address initialOperator) SvcOwned(initialOwner) {
        if (initialOperator == address(0)) revert ZeroAddress();
        _operator = initialOperator;
        emit OperatorChanged(address(0), initialOperator);
    }

    /// @notice Accepts the native coin (source fills of native-coin routes, top-ups).
    receive() external payable {
        emit NativeReceived(msg.sender, msg.value);
    }

    /// @notice The payout key.
    function operator() external view returns (address) {
        return _operator;
    }

    /// @notice Whether `fillId` has been paid out.
    function paidOut(bytes32 fillId) external view returns (bool) {
        return _paidOut[fillId];
    }

    /// @notice Pays `amount` of `token` (zero address: the native coin) to `recipient` for
    /// `fillId` (operator only, once per fillId).
    function payout(bytes32 fillId, address token, address recipient, uint128 amount) external {
        if (msg.sender != _operator) revert NotOperator(msg.sender);
        if (_paidOut[fillId]) revert PayoutAlreadyPaid(fillId);
        if (recipient == address(0)) revert ZeroAddress();
        if (amount == 0) revert ZeroAmount();
        _paidOut[fillId] = true;
        emit PayoutV6(fillId, recipient, token, amount);
        _send(token, recipient, amount);
    }

    /// @notice Sets the payout key (owner only).
    function setOperator(address newOperator) external onlyOwner {
        if (newOperator == address(0)) revert ZeroAddress();
        emit OperatorChanged(_operator, newOperator);
        _operator = newOperator;
    }

    /// @notice Withdraws `amount` of `token` (zero address: the native coin) to `to` (owner only).
    function withdraw(address token, address to, uint256 amount) external onlyOwner {
        if (to == address(0)) revert ZeroAddress();
        if (amount == 0) revert ZeroAmount();
        emit Withdrawal(token, to, amount);
        _send(token, to, amount);
    }

    function _send(address token, address to, uint256 amount) private {
        if (token == address(0)) {
            if (!SvcTransfer.trySendNative(to, amount)) revert NativeTransferFailed(to);
        } else if (!SvcTransfer.tryTransfer(token, to, amount)) {
            revert TokenTransferFailed(token);
        }
    }
}
