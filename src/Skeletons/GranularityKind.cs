namespace DivCon.Skeletons;

/// <summary>The ways a <see cref="Granularity"/> decides where splitting stops.</summary>
public enum GranularityKind
{
    /// <summary>Aim at a number of leaves per worker of the run's scheduler (resolved per run from the problem size).</summary>
    Automatic = 0,

    /// <summary>Split while a problem is larger than a fixed size.</summary>
    Fixed = 1,

    /// <summary>Never split: one execute for the whole problem (a sequential run).</summary>
    Sequential = 2,

    /// <summary>Split every problem until a given depth, whatever its size.</summary>
    Depth = 3,
}
