// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {SvcMainnetV6Types} from "./SvcV6Types.sol";
import {ISvcRouterV6} from "./SvcV6Interfaces.sol";
import {SvcOwned} from "./SvcOwned.sol";
import {SvcPermitHash} from "./SvcPermitHash.sol";
import {SvcSignature} from "./SvcSignature.sol";
import {SvcTransfer} from "./SvcTransfer.sol";

/// @title SvcMainnetRouterV6
/// @notice Source-chain entry point of svc V6. A payer executes an ExecutionPermit,
/// signed (EIP-712) by the solver's authority key, with one `fillDirect` call: the
/// router checks the permit, moves `amountInRaw` of the source asset from the payer
/// to the solver's source vault and emits `SourceFillV6`, which the solver answers
/// with a payout on the destination chain. Each fillId can be used once.
/// @dev No immutables: every setting lives in storage, so the runtime code (and its
/// hash) is the same for every deployment and equals the compiled deployedBytecode.
contract SvcMainnetRouterV6 is ISvcRouterV6, SvcOwned {
    /// @notice Source intake is switched off by the owner.
    error SourceIntakeDisabled();
    /// @notice The permit names another release.
    error ReleaseMismatch(bytes32 permitReleaseId);
    /// @notice The permit is for another chain.
    error WrongSourceChain(uint256 permitChainId, uint256 currentChainId);
    /// @notice The permit is for another router.
    error WrongSourceRouter(address permitRouter);
    /// @notice The caller is not the permit's payer.
    error PayerMismatch(address payer, address caller);
    /// @notice `block.timestamp < validAfter`.
    error PermitNotYetValid(uint64 validAfter, uint256 currentTime);
    /// @notice `block.timestamp >= validUntil`.
    error PermitExpired(uint64 validUntil, uint256 currentTime);
    /// @notice The fillId was already filled.
    error FillAlreadyUsed(bytes32 fillId);
    /// @notice The signature is not 65 bytes.
    error InvalidSignatureLength(uint256 length);
    /// @notice The signature's s is in the upper half of the curve order (malleable).
    error InvalidSignatureS(bytes32 s);
    /// @notice The signature's v is neither 27 nor 28.
    error InvalidSignatureV(uint8 v);
    /// @notice The signature does not recover to the authority (zero when nothing recovers).
    error InvalidPermitSignature(address recovered);
    /// @notice amountInRaw or amountOutRaw is zero.
    error ZeroAmount();
    /// @notice msg.value differs from what the permit requires (amountInRaw for the native coin, else 0).
    error NativeValueMismatch(uint256 expected, uint256 received);
    /// @notice The ERC-20 transferFrom failed (reverted, returned false, or no code at the token).
    error TokenTransferFailed(address token);
    /// @notice Forwarding the native coin to the vault failed.
    error NativeTransferFailed(address to);

    /// @notice A permit was executed: the payer paid `amountInRaw` of `sourceAsset` into the source vault.
    event SourceFillV6(
        bytes32 indexed fillId,
        bytes32 indexed routeId,
        bytes32 indexed quoteId,
        address payer,
        address recipient,
        address sourceAsset,
        address destinationAsset,
        uint256 destinationChainId,
        uint128 amountInRaw,
        uint128 amountOutRaw,
        uint32 sourceFinalityBlocks,
        uint64 settlementDeadline,
        bytes32 permitNonce,
        bytes32 executionGeneration
    );
    /// @notice The permit-signing authority changed.
    event AuthorityChanged(address indexed previousAuthority, address indexed newAuthority);
    /// @notice Source intake was switched on or off.
    event SourceIntakeEnabledChanged(bool enabled);

    /// @dev The checks of a permit, in the order they run; `None` means all passed.
    enum Failure {
        None,
        SourceIntakeDisabled,
        ReleaseMismatch,
        WrongSourceChain,
        WrongSourceRouter,
        PayerMismatch,
        PermitNotYetValid,
        PermitExpired,
        FillAlreadyUsed,
        InvalidSignatureLength,
        InvalidSignatureS,
        InvalidSignatureV,
        InvalidPermitSignature,
        ZeroAmount
    }

    // authority and the intake switch share one slot: fillDirect reads both with one SLOAD.
    address private _authority;
    bool private _sourceIntakeEnabled;
    address private _registry;
    mapping(bytes32 fillId => bool) private _fillUsed;

    /// @param initialOwner the owner (settings, authority rotation, intake switch)
    /// @param initialAuthority the address of the permit-signing key (svc's feed signer)
    /// @param registry_ the route registry this router belongs to
    /// @dev Source intake starts enabled.
    constructor(address initialOwner, address initialAuthority, address registry_) SvcOwned(initialOwner) {
        if (initialAuthority == address(0) || registry_ == address(0)) revert ZeroAddress();
        _authority = initialAuthority;
        _registry = registry_;
        _sourceIntakeEnabled = true;
        emit AuthorityChanged(address(0), initialAuthority);
        emit SourceIntakeEnabledChanged(true);
    }

    // ------------------------------------------------------------------ views

    /// @notice keccak256("SVC_MAINNET_V6").
    function releaseId() external pure returns (bytes32) {
        return SvcMainnetV6Types.RELEASE_ID;
    }

    /// @notice The route registry.
    function registry() external view returns (address) {
        return _registry;
    }

    /// @notice The address whose signature a permit must carry.
    function authority() external view returns (address) {
        return _authority;
    }

    /// @notice Whether fillDirect accepts permits.
    function sourceIntakeEnabled() external view returns (bool) {
        return _sourceIntakeEnabled;
    }

    /// @notice Whether `fillId` has been filled.
    function isFillUsed(bytes32 fillId) external view returns (bool) {
        return _fillUsed[fillId];
    }

    /// @notice The EIP-712 domain separator of this router on this chain
    /// (name "Svc V6 Router", version "6", block.chainid, address(this)).
    function domainSeparator() public view returns (bytes32) {
        return SvcPermitHash.domainSeparator(block.chainid, address(this));
    }

    /// @notice The EIP-712 struct hash of `permit`.
    function hashPermit(SvcMainnetV6Types.ExecutionPermit calldata permit) external pure returns (bytes32) {
        return SvcPermitHash.structHash(permit);
    }

    /// @notice The digest the authority signs: EIP-712 under this router's domain. It equals
    /// svc's permitDigest for every permit whose sourceChainId and sourceRouter are this
    /// chain and this router (the only permits fillDirect accepts).
    function permitDigest(SvcMainnetV6Types.ExecutionPermit calldata permit) public view returns (bytes32) {
        return SvcPermitHash.digest(domainSeparator(), SvcPermitHash.structHash(permit));
    }

    /// @notice Runs the checks of fillDirect for a call by msg.sender (call it with `from`
    /// set to the payer) and reports the first failing one: `(true, 0)` when the permit
    /// would be accepted, else `(false, reason)` where reason is the custom error's name
    /// as left-aligned ASCII (`bytes32("PermitExpired")`). msg.value and the token
    /// transfer (balance, allowance) are not checked.
    function previewFillDirect(SvcMainnetV6Types.ExecutionPermit calldata permit, bytes calldata signature)
        external
        view
        returns (bool valid, bytes32 reason)
    {
        (Failure failure,) = _check(permit, signature, msg.sender);
        return (failure == Failure.None, _reasonOf(failure));
    }

    // ---------------------------------------------------------------- execute

    /// @notice Executes a permit: checks it (see the README for the order), marks its fillId
    /// used, moves amountInRaw of sourceAsset from the payer (msg.sender) to sourceVault
    /// (ERC-20 transferFrom with a prior approval, or msg.value for the native coin when
    /// sourceAsset is zero) and emits SourceFillV6.
    function fillDirect(SvcMainnetV6Types.ExecutionPermit calldata permit, bytes calldata signature)
        external
        payable
        returns (bytes32 fillId)
    {
        (Failure failure, address recovered) = _check(permit, signature, msg.sender);
        if (failure != Failure.None) _revertWith(failure, permit, signature, recovered);

        fillId = permit.fillId;
        _fillUsed[fillId] = true;

        uint128 amount = permit.amountInRaw;
        address asset = permit.sourceAsset;
        if (asset == address(0)) {
            if (msg.value != amount) revert NativeValueMismatch(amount, msg.value);
            if (!SvcTransfer.trySendNative(permit.sourceVault, amount)) revert NativeTransferFailed(permit.sourceVault);
        } else {
            if (msg.value != 0) revert NativeValueMismatch(0, msg.value);
            if (!SvcTransfer.tryTransferFrom(asset, msg.sender, permit.sourceVault, amount)) {
                revert TokenTransferFailed(asset);
            }
        }

        emit SourceFillV6(
            fillId,
            permit.routeId,
            permit.quoteId,
            permit.payer,
            permit.recipient,
            asset,
            permit.destinationAsset,
            permit.destinationChainId,
            amount,
            permit.amountOutRaw,
            permit.sourceFinalityBlocks,
            _settlementDeadline(permit.validUntil, permit.settlementWindowSeconds),
            permit.permitNonce,
            permit.executionGeneration
        );
    }

    // ------------------------------------------------------------------ owner

    /// @notice Rotates the permit-signing authority (owner only). Permits signed by the
    /// previous authority stop verifying at once.
    function setAuthority(address newAuthority) external onlyOwner {
        if (newAuthority == address(0)) revert ZeroAddress();
        emit AuthorityChanged(_authority, newAuthority);
        _authority = newAuthority;
    }

    /// @notice Switches source intake on or off (owner only).
    function setSourceIntakeEnabled(bool enabled) external onlyOwner {
        _sourceIntakeEnabled = enabled;
        emit SourceIntakeEnabledChanged(enabled);
    }

    // --------------------------------------------------------------- internal

    /// @dev The checks in order; returns the first failure and, for a wrong signer, the
    /// recovered address.
    function _check(SvcMainnetV6Types.ExecutionPermit calldata permit, bytes calldata signature, address caller)
        private
        view
        returns (Failure, address)
    {
        if (!_sourceIntakeEnabled) return (Failure.SourceIntakeDisabled, address(0));
        if (permit.releaseId != SvcMainnetV6Types.RELEASE_ID) return (Failure.ReleaseMismatch, address(0));
        if (permit.sourceChainId != block.chainid) return (Failure.WrongSourceChain, address(0));
        if (permit.sourceRouter != address(this)) return (Failure.WrongSourceRouter, address(0));
        if (caller != permit.payer) return (Failure.PayerMismatch, address(0));
        if (block.timestamp < permit.validAfter) return (Failure.PermitNotYetValid, address(0));
        if (block.timestamp >= permit.validUntil) return (Failure.PermitExpired, address(0));
        if (_fillUsed[permit.fillId]) return (Failure.FillAlreadyUsed, address(0));

        (SvcSignature.Status status, address signer) = SvcSignature.recover(permitDigest(permit), signature);
        if (status == SvcSignature.Status.BadLength) return (Failure.InvalidSignatureLength, address(0));
        if (status == SvcSignature.Status.HighS) return (Failure.InvalidSignatureS, address(0));
        if (status == SvcSignature.Status.BadV) return (Failure.InvalidSignatureV, address(0));
        if (signer != _authority) return (Failure.InvalidPermitSignature, signer);

        if (permit.amountInRaw == 0 || permit.amountOutRaw == 0) return (Failure.ZeroAmount, address(0));
        return (Failure.None, address(0));
    }

    /// @dev Reverts with the custom error of `failure`, with its arguments.
    function _revertWith(
        Failure failure,
        SvcMainnetV6Types.ExecutionPermit calldata permit,
        bytes calldata signature,
        address recovered
    ) private view {
        if (failure == Failure.SourceIntakeDisabled) revert SourceIntakeDisabled();
        if (failure == Failure.ReleaseMismatch) revert ReleaseMismatch(permit.releaseId);
        if (failure == Failure.WrongSourceChain) revert WrongSourceChain(permit.sourceChainId, block.chainid);
        if (failure == Failure.WrongSourceRouter) revert WrongSourceRouter(permit.sourceRouter);
        if (failure == Failure.PayerMismatch) revert PayerMismatch(permit.payer, msg.sender);
        if (failure == Failure.PermitNotYetValid) revert PermitNotYetValid(permit.validAfter, block.timestamp);
        if (failure == Failure.PermitExpired) revert PermitExpired(permit.validUntil, block.timestamp);
        if (failure == Failure.FillAlreadyUsed) revert FillAlreadyUsed(permit.fillId);
        if (failure == Failure.InvalidSignatureLength) revert InvalidSignatureLength(signature.length);
        if (failure == Failure.InvalidSignatureS) revert InvalidSignatureS(bytes32(signature[32:64]));
        if (failure == Failure.InvalidSignatureV) revert InvalidSignatureV(uint8(signature[64]));
        if (failure == Failure.InvalidPermitSignature) revert InvalidPermitSignature(recovered);
        revert ZeroAmount();
    }

    /// @dev The preview label of `failure`: the error's name as left-aligned ASCII, 0 for None.
    function _reasonOf(Failure failure) private pure returns (bytes32) {
        if (failure == Failure.None) return bytes32(0);
        if (failure == Failure.SourceIntakeDisabled) return "SourceIntakeDisabled";
        if (failure == Failure.ReleaseMismatch) return "ReleaseMismatch";
        if (failure == Failure.WrongSourceChain) return "WrongSourceChain";
        if (failure == Failure.WrongSourceRouter) return "WrongSourceRouter";
        if (failure == Failure.PayerMismatch) return "PayerMismatch";
        if (failure == Failure.PermitNotYetValid) return "PermitNotYetValid";
        if (failure == Failure.PermitExpired) return "PermitExpired";
        if (failure == Failure.FillAlreadyUsed) return "FillAlreadyUsed";
        if (failure == Failure.InvalidSignatureLength) return "InvalidSignatureLength";
        if (failure == Failure.InvalidSignatureS) return "InvalidSignatureS";
        if (failure == Failure.InvalidSignatureV) return "InvalidSignatureV";
        if (failure == Failure.InvalidPermitSignature) return "InvalidPermitSignature";
        return "ZeroAmount";
    }

    /// @dev validUntil + settlementWindowSeconds, capped at 2^64 - 1.
    function _settlementDeadline(uint64 validUntil, uint32 window) private pure returns (uint64) {
        uint256 deadline = uint256(validUntil) + window;
        return deadline > type(uint64).max ? type(uint64).max : uint64(deadline);
    }
}
