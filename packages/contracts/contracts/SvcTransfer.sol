// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {IERC20Minimal} from "./SvcV6Interfaces.sol";

/// @title SvcTransfer
/// @notice Token and native-coin transfers that report failure instead of trusting
/// the token: a call that reverts, returns false, or targets an address without code
/// counts as failed; a token that returns nothing is accepted (pre-ERC-20-final tokens).
library SvcTransfer {
    /// @notice `token.transferFrom(from, to, amount)`; true on success.
    function tryTransferFrom(address token, address from, address to, uint256 amount) internal returns (bool) {
        return _succeeded(token, abi.encodeCall(IERC20Minimal.transferFrom, (from, to, amount)));
    }

    /// @notice `token.transfer(to, amount)`; true on success.
    function tryTransfer(address token, address to, uint256 amount) internal returns (bool) {
        return _succeeded(token, abi.encodeCall(IERC20Minimal.transfer, (to, amount)));
    }

    /// @notice Sends `amount` of the native coin to `to` with all remaining gas; true on success.
    function trySendNative(address to, uint256 amount) internal returns (bool ok) {
        (ok,) = to.call{value: amount}("");
    }

    function _succeeded(address token, bytes memory callData) private returns (bool) {
        (bool ok, bytes memory returned) = token.call(callData);
        if (!ok) return false;
        if (returned.length == 0) return token.code.length > 0;
        return returned.length >= 32 && abi.decode(returned, (uint256)) == 1;
    }
}
