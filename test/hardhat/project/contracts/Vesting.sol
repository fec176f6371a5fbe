// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice Time-gated like OpenZeppelin's vesting wallets and timelocks: release only after `start`.
contract Vesting {
    error NotYet(uint256 nowTs, uint256 start);

    event Released(uint256 at, uint256 blockNumber);

    uint256 public immutable start;
    uint256 public released;

    constructor(uint256 start_) {
        start = start_;
    }

    function release() external {
        if (block.timestamp <= start) revert NotYet(block.timestamp, start);
        released++;
        emit Released(block.timestamp, block.number);
    }
}
