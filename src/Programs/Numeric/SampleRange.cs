namespace DivCon.Programs.Numeric;

/// <summary>The half-open range of sample indexes [<see cref="Start"/>, <see cref="End"/>): the problem of <see cref="MonteCarloPi"/>.</summary>
/// <param name="Start">The first sample index.</param>
/// <param name="End">One past the last sample index.</param>
public readonly record struct SampleRange(long Start, long End)
{
    /// <summary>The number of samples.</summary>
    public long Count => End - Start;

    /// <summary>Cuts the range into up to <paramref name="parts"/> consecutive, non-empty ranges whose counts differ by at most one.</summary>
    /// <param name="parts">At least 1.</param>
    /// <returns>The parts in order (one empty part for an empty range).</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="parts"/> is less than 1.</exception>
    public SampleRange[] Split(int parts)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(parts, 1);
        int count = (int)Math.Max(1, Math.Min(parts, Count));
        var result = new SampleRange[count];
        long quotient = Math.DivRem(Count, count, out long remainder);
        long start = Start;
        for (int i = 0; i < count; i++)
        {
            long end = start + quotient + (i < remainder ? 1 : 0);
            result[i] = new SampleRange(start, end);
            start = end;
        }

        return result;
    }
}
