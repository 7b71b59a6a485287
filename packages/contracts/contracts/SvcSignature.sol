// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title SvcSignature
/// @notice Strict recovery of a 65-byte `r || s || v` secp256k1 signature.
library SvcSignature {
    /// @notice Half the order of secp256k1: a signature with a larger s is malleable and refused.
    uint256 internal constant HALF_ORDER = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    /// @notice Outcome of {recover}.
    enum Status {
        Ok,
        BadLength,
        HighS,
        BadV,
        NoSigner
    }

    /// @notice Recovers the signer of `digest`: the signature must be 65 bytes, s at most
    /// HALF_ORDER, v 27 or 28, and ecrecover must yield an address.
    function recover(bytes32 digest, bytes calldata signature) internal pure returns (Status status, address signer) {
        if (signature.length != 65) return (Status.BadLength, address(0));
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (uint256(s) > HALF_ORDER) return (Status.HighS, address(0));
        if (v != 27 && v != 28) return (Status.BadV, address(0));
        signer = ecrecover(digest, v, r, s);
        if (signer == address(0)) return (Status.NoSigner, address(0));
        return (Status.Ok, signer);
    }
}
