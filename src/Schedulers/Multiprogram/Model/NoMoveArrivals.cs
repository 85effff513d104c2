namespace DivCon.Schedulers.Multiprogram.Model;

/// <summary>The arrivals of a decision without moves: of a skipped decision, or of one no mechanism applied.</summary>
internal sealed class NoMoveArrivals : IMoveArrivals
{
    private NoMoveArrivals()
    {
    }

    public static NoMoveArrivals Instance { get; } = new();

    public int Count => 0;

    public int ArrivedCount => 0;

    public IReadOnlyList<TimeSpan?> Latencies => [];

    public TimeSpan? LatencyOf(int move) =>
        throw new ArgumentOutOfRangeException(nameof(move), move, "A decision without moves has no move index.");

    public override string ToString() => "0 moves, none arrived";
}
