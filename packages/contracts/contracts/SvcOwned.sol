// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title SvcOwned
/// @notice One-step ownership for the svc reference contracts. The owner is a
/// constructor argument (not msg.sender) so that contracts deployed through a
/// CREATE2 factory get the intended owner.
abstract contract SvcOwned {
    /// @notice The caller is not the owner.
    error NotOwner(address caller);
    /// @notice An address argument that must be set is zero.
    error ZeroAddress();

    /// @notice Ownership moved from `previousOwner` to `newOwner` (previousOwner is zero at construction).
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    address private _owner;

    constructor(address initialOwner) {
        if (initialOwner == address(0)) revert ZeroAddress();
        _owner = initialOwner;
        emit OwnershipTransferred(address(0), initialOwner);
    }

    modifier onlyOwner() {
        if (msg.sender != _owner) revert NotOwner(msg.sender);
        _;
    }

    /// @notice The current owner.
    function owner() public view returns (address) {
        return _owner;
    }

    /// @notice Hands ownership to `newOwner` (owner only, not zero).
    function transferOwnership(address newOwner) external onlyOwner {
        if (newOwner == address(0)) revert ZeroAddress();
        emit OwnershipTransferred(_owner, newOwner);
        _owner = newOwner;
    }
}
