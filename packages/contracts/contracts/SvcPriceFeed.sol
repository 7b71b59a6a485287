// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {SvcOwned} from "./SvcOwned.sol";

/// @title SvcPriceFeed
/// @notice A price feed with the Chainlink AggregatorV3Interface read functions, whose
/// rounds the owner writes: `setAnswer` starts a new round stamped with the block time,
/// `setRoundData` writes a round with chosen timestamps (for staleness tests). For tests
/// and the devnet only.
contract SvcPriceFeed is SvcOwned {
    /// @notice The round does not exist (or no round has been written).
    error NoDataPresent();
    /// @notice setRoundData with a roundId that is not above the latest round.
    error RoundNotIncreasing(uint80 roundId, uint80 latestRoundId);

    /// @notice setRoundData with updatedAt 0 (0 marks a round that does not exist).
    error ZeroUpdatedAt();

    /// @notice Chainlink's AnswerUpdated.
    event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt);
    /// @notice Chainlink's NewRound.
    event NewRound(uint256 indexed roundId, address indexed startedBy, uint256 startedAt);

    struct Round {
        int256 answer;
        uint256 startedAt;
        uint256 updatedAt;
        uint80 answeredInRound;
    }

    uint8 private _decimals;
    string private _description;
    uint80 private _latestRoundId;
    mapping(uint80 roundId => Round) private _rounds;

    /// @param decimals_ the answer's decimals (8 for most USD feeds)
    /// @param description_ for example "USDC / USD"
    /// @param initialAnswer the answer of round 1, written at deployment
    constructor(uint8 decimals_, string memory description_, int256 initialAnswer) SvcOwned(msg.sender) {
        _decimals = decimals_;
        _description = description_;
        _write(1, initialAnswer, block.timestamp, block.timestamp, 1);
    }

    function decimals() external view returns (uint8) {
        return _decimals;
    }

    function description() external view returns (string memory) {
        return _description;
    }

    /// @notice The interface version (1).
    function version() external pure returns (uint256) {
        return 1;
    }

    /// @notice The latest round.
    function latestRoundData()
        external
        view
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        return getRoundData(_latestRoundId);
    }

    /// @notice A round by id; reverts NoDataPresent when it was never written.
    function getRoundData(uint80 roundId)
        public
        view
        returns (uint80, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        Round storage round = _rounds[roundId];
        if (round.updatedAt == 0) revert NoDataPresent();
        return (roundId, round.answer, round.startedAt, round.updatedAt, round.answeredInRound);
    }

    /// @notice Starts the next round with `answer`, started and updated now (owner only).
    function setAnswer(int256 answer) external onlyOwner {
        uint80 next = _latestRoundId + 1;
        _write(next, answer, block.timestamp, block.timestamp, next);
    }

    /// @notice Writes round `roundId` (above the latest) with the given values and makes it
    /// the latest (owner only). updatedAt must be nonzero.
    function setRoundData(uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
        external
        onlyOwner
    {
        if (roundId <= _latestRoundId) revert RoundNotIncreasing(roundId, _latestRoundId);
        if (updatedAt == 0) revert ZeroUpdatedAt();
        _write(roundId, answer, startedAt, updatedAt, answeredInRound);
    }

    function _write(uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
        private
    {
        _rounds[roundId] = Round({
            answer: answer,
            startedAt: startedAt,
            updatedAt: updatedAt,
            answeredInRound: answeredInRound
        });
        _latestRoundId = roundId;
        emit NewRound(roundId, msg.sender, startedAt);
        emit AnswerUpdated(answer, roundId, updatedAt);
    }
}
