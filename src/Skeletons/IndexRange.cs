namespace DivCon.Skeletons;

/// <summary>A half-open range of indexes [<see cref="Start"/>, <see cref="End"/>): the problem type of <see cref="MapReduce{TResult}"/>.</summary>
public readonly record struct IndexRange
{
    /// <summary>Creates the range [<paramref name="start"/>, <paramref name="end"/>).</summary>
    /// <param name="start">The first index, at least 0.</param>
    /// <param name="end">One past the last index, at least <paramref name="start"/>.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="start"/> is negative or <paramref name="end"/> is less than <paramref name="start"/>.</exception>
    public IndexRange(int start, int end)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(start);
        ArgumentOutOfRangeException.ThrowIfLessThan(end, start);
        Start = start;
        End = end;
    }

    /// <summary>The first index.</summary>
    public int Start { get; }

    /// <summary>One past the last index.</summary>
    public int End { get; }

    /// <summary>The number of indexes, <c>End - Start</c>.</summary>
    public int Length => End - Start;

    /// <summary>
    /// Cuts the range into <paramref name="parts"/> consecutive ranges whose lengths differ by at most one (the
    /// first <c>Length % parts</c> get the extra index). Fewer parts than asked when the range is shorter (never an
    /// empty part, except for an empty range, which gives one empty part).
    /// </summary>
    /// <param name="parts">How many parts, at least 1.</param>
    /// <returns>The parts, in order, covering the range exactly.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="parts"/> is less than 1.</exception>
    public IndexRange[] Split(int parts)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(parts, 1);
        int count = Math.Max(1, Math.Min(parts, Length));
        var result = new IndexRange[count];
        int quotient = Math.DivRem(Length, count, out int remainder);
        int start = Start;
        for (int i = 0; i < count; i++)
        {
            int end = start + quotient + (i < remainder ? 1 : 0);
            result[i] = new IndexRange(start, end);
            start = end;
        }

        return result;
    }

    /// <inheritdoc/>
    public override string ToString() => $"[{Start}, {End})";
}
