namespace DivCon.Harness.Performance;

/// <summary>
/// Where the thread time of one parallel run went, by the component model of execution time: work
/// (split into the sequential work and its inflation), overhead, idle, and what the counters missed.
/// </summary>
/// <param name="Workers">P, the number of worker threads.</param>
/// <param name="Elapsed">T_P, the measured wall-clock time of the run.</param>
/// <param name="Work">Σ work over workers.</param>
/// <param name="Overhead">Σ overhead over workers.</param>
/// <param name="Idle">Σ idle over workers.</param>
/// <param name="SequentialWork">T_S, the time of the same work in a sequential run.</param>
/// <param name="CriticalPath">T_∞, the longest chain of dependent work; zero when unknown.</param>
public sealed record PerformanceBreakdown(
    int Workers,
    TimeSpan Elapsed,
    TimeSpan Work,
    TimeSpan Overhead,
    TimeSpan Idle,
    TimeSpan SequentialWork,
    TimeSpan CriticalPath)
{
    /// <summary>P · T_P: the thread time available to the run.</summary>
    public TimeSpan TotalThreadTime => Elapsed * Workers;

    /// <summary>Thread time the counters do not explain, P·T_P − (work + overhead + idle); negative if they overlap.</summary>
    public TimeSpan Unaccounted => TotalThreadTime - Work - Overhead - Idle;

    /// <summary>Work time inflation: Σ work − T_S (how much slower the same work ran in parallel; negative when faster).</summary>
    public TimeSpan WorkInflation => Work - SequentialWork;

    /// <summary>r = Σ work / T_S; 1 means no inflation.</summary>
    public double InflationRatio => Work / SequentialWork;

    /// <summary>The best speedup the inflation allows even with no overhead or idleness, P / r.</summary>
    public double MaxSpeedupUnderInflation => Workers / InflationRatio;

    /// <summary>Share of P·T_P spent on work.</summary>
    public double WorkShare => Work / TotalThreadTime;

    /// <summary>Share of P·T_P spent on overhead.</summary>
    public double OverheadShare => Overhead / TotalThreadTime;

    /// <summary>Share of P·T_P spent idle.</summary>
    public double IdleShare => Idle / TotalThreadTime;

    /// <summary>Share of P·T_P the counters do not explain.</summary>
    public double UnaccountedShare => Unaccounted / TotalThreadTime;

    /// <summary>Share of P·T_P that is inflation (Σ work − T_S).</summary>
    public double InflationShare => WorkInflation / TotalThreadTime;

    /// <summary>The lower bound on T_P of an ideal scheduler, max(T_S / P, T_∞).</summary>
    public TimeSpan LowerBound => TimeSpan.FromTicks(Math.Max(SequentialWork.Ticks / Workers, CriticalPath.Ticks));

    /// <summary>LowerBound / T_P: 1 means the run reached the bound; lower means time was lost.</summary>
    public double BoundEfficiency => LowerBound / Elapsed;

    /// <summary>Speedup T_S / T_P.</summary>
    public double Speedup => SequentialWork / Elapsed;
}
