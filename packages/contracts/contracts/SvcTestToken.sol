// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {SvcOwned} from "./SvcOwned.sol";

/// @title SvcTestToken
/// @notice A minimal ERC-20 for tests and the devnet: name, symbol and decimals are set
/// at deployment, the deployer is the owner and the only account that can mint. An
/// allowance of 2^256 - 1 is never decreased. Not for production use.
contract SvcTestToken is SvcOwned {
    /// @notice The sender's balance is below the amount.
    error InsufficientBalance(address account, uint256 balance, uint256 needed);
    /// @notice The spender's allowance is below the amount.
    error InsufficientAllowance(address spender, uint256 allowance, uint256 needed);
    /// @notice Transfer or mint to the zero address.
    error InvalidReceiver(address receiver);

    /// @notice ERC-20 Transfer (from zero for a mint).
    event Transfer(address indexed from, address indexed to, uint256 value);
    /// @notice ERC-20 Approval.
    event Approval(address indexed owner, address indexed spender, uint256 value);

    string private _name;
    string private _symbol;
    uint8 private _decimals;
    uint256 private _totalSupply;
    mapping(address account => uint256) private _balances;
    mapping(address account => mapping(address spender => uint256)) private _allowances;

    constructor(string memory name_, string memory symbol_, uint8 decimals_) SvcOwned(msg.sender) {
        _name = name_;
        _symbol = symbol_;
        _decimals = decimals_;
    }

    function name() external view returns (string memory) {
        return _name;
    }

    function symbol() external view returns (string memory) {
        return _symbol;
    }

    function decimals() external view returns (uint8) {
        return _decimals;
    }

    function totalSupply() external view returns (uint256) {
        return _totalSupply;
    }

    function balanceOf(address account) external view returns (uint256) {
        return _balances[account];
    }

    function allowance(address account, address spender) external view returns (uint256) {
        return _allowances[account][spender];
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _move(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        _allowances[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = _allowances[from][msg.sender];
        if (allowed != type(uint256).max) {
            if (allowed < value) revert InsufficientAllowance(msg.sender, allowed, value);
            _allowances[from][msg.sender] = allowed - value;
        }
        _move(from, to, value);
        return true;
    }

    /// @notice Creates `value` tokens for `to` (owner only).
    function mint(address to, uint256 value) external onlyOwner {
        if (to == address(0)) revert InvalidReceiver(to);
        _totalSupply += value;
        _balances[to] += value;
        emit Transfer(address(0), to, value);
    }

    function _move(address from, address to, uint256 value) private {
        if (to == address(0)) revert InvalidReceiver(to);
        uint256 balance = _balances[from];
        if (balance < value) revert InsufficientBalance(from, balance, value);
        unchecked {
            _balances[from] = balance - value;
        }
        _balances[to] += value;
        emit Transfer(from, to, value);
    }
}
