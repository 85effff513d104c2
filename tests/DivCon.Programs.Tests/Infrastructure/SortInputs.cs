namespace DivCon.Programs.Tests.Infrastructure;

/// <summary>Sort inputs of every <see cref="SortInputKind"/>, seeded.</summary>
public static class SortInputs
{
    public const int Length = 6000;

    public static int[] Create(SortInputKind kind, int seed = 11)
    {
        var random = new Random(seed);
        return kind switch
        {
            SortInputKind.Random => Enumerable.Range(0, Length).Select(_ => random.Next()).ToArray(),
            SortInputKind.Sorted => Enumerable.Range(0, Length).ToArray(),
            SortInputKind.Reversed => Enumerable.Range(0, Length).Reverse().ToArray(),
            SortInputKind.AllEqual => Enumerable.Repeat(7, Length).ToArray(),
            SortInputKind.FewDistinct => Enumerable.Range(0, Length).Select(_ => random.Next(3)).ToArray(),
            SortInputKind.Extremes => Enumerable.Range(0, Length).Select(_ => random.Next(3) switch { 0 => int.MinValue, 1 => int.MaxValue, _ => 0 }).ToArray(),
            SortInputKind.Empty => [],
            SortInputKind.OneElement => [42],
            SortInputKind.TwoElements => [9, -3],
            _ => throw new ArgumentOutOfRangeException(nameof(kind), kind, null),
        };
    }
}
