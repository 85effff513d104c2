namespace DivCon.Skeletons;

/// <summary>The ways a <see cref="Granularity"/> decides which nodes become tasks and where splitting stops.</summary>
public enum GranularityKind
{
    /// <summary>
    /// By measured time (the default): subtrees predicted to cost less than a lower bound run inline on the current
    /// thread, and a program that reports sizes keeps splitting leaves predicted to run longer than an upper bound.
    /// </summary>
    Automatic = 0,

    /// <summary>Split while a problem is larger than a fixed size.</summary>
    Fixed = 1,

    /// <summary>Never split: one execute for the whole problem (a sequential run).</summary>
    Sequential = 2,

    /// <summary>Split every problem until a given depth, whatever its size.</summary>
    Depth = 3,

    /// <summary>Aim at a number of leaves per worker of the run's scheduler (resolved per run from the problem size).</summary>
    LeafCount = 4,
}
