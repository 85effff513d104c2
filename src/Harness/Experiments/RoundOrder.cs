namespace DivCon.Harness.Experiments;

/// <summary>
/// The order of the blocks of one round of a <see cref="CyclicExperiment"/>: slot 0 is the isolated measurement
/// (C_SP), slot i the i-th scheme. Round r starts at slot <c>r mod n</c> and goes round, so over n rounds every block
/// runs once in every position and after every other block's predecessor changes; round 0 is the natural order.
/// </summary>
public static class RoundOrder
{
    /// <summary>The slots of round <paramref name="round"/> in the order they run.</summary>
    /// <param name="slots">Blocks per round (the isolated measurement and the schemes); at least 1.</param>
    /// <param name="round">0-based round index; not negative.</param>
    /// <returns>A permutation of 0..slots-1.</returns>
    /// <exception cref="ArgumentOutOfRangeException">A count is out of range.</exception>
    public static IReadOnlyList<int> Rotated(int slots, int round)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(slots, 1);
        ArgumentOutOfRangeException.ThrowIfNegative(round);
        int first = round % slots;
        return [.. Enumerable.Range(0, slots).Select(i => (first + i) % slots)];
    }
}
