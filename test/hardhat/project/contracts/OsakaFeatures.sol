// SPDX-License-Identifier: MIT
pragma solidity ^0.8.31;

/// @notice Osaka's new instruction and precompile, used as a contract compiled for `osaka` uses them.
contract OsakaFeatures {
    error MissingPrecompile(address precompile);

    /// EIP-7939: count leading zeros.
    function leadingZeros(uint256 x) external pure returns (uint256 r) {
        assembly {
            r := clz(x)
        }
    }

    /// EIP-7951: P256VERIFY at 0x100 answers 1 for a valid signature and nothing otherwise.
    /// An empty answer for a valid signature means the chain has no such precompile.
    function verifyP256(bytes32 h, bytes32 r, bytes32 s, bytes32 x, bytes32 y) external view returns (bool) {
        (bool ok, bytes memory out) = address(0x100).staticcall(abi.encode(h, r, s, x, y));
        return ok && out.length == 32 && abi.decode(out, (uint256)) == 1;
    }
}
