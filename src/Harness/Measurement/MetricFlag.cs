using System.Globalization;

namespace DivCon.Harness.Measurement;
/// <summary>
/// A warning attached to metrics that cannot be true or cannot be trusted: a system throughput above the core count,
/// a program faster beside others than alone, too few runs for a confidence interval. Reports show the
/// <see cref="Code"/> beside the numbers and the <see cref="Detail"/> below them.
/// </summary>
/// <param name="Code">Short form for table cells (e.g. "STP>cores").</param>
/// <param name="Detail">One sentence: the value, the bound and the likely cause.</param>
public sealed record MetricFlag(string Code, string Detail)
{
    /// <summary>Code of an STP above the core count.</summary>
    public const string StpAboveCores = "STP>cores";

    /// <summary>Code of a mean NTT below 1.</summary>
    public const string NttBelowOne = "NTT<1";

    /// <summary>Code of a sample too small for a useful interval.</summary>
    public const string FewRuns = "few runs";

    /// <summary>The fewest values a sample needs for a flag-free interval: one value has none, and with two the 99%
    /// Student-t critical value is 63.66, an interval too wide to say anything.</summary>
    public const int MinimumRunsForInterval = 3;

    /// <summary>The flags of one scheme's metrics (none when all is plausible).</summary>
    /// <param name="metrics">The metrics.</param>
    /// <param name="cores">The cores (workers) the workload shared.</param>
    /// <returns>The flags, STP first, then per program.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="cores"/> is below 1.</exception>
    public static IReadOnlyList<MetricFlag> Of(WorkloadMetrics metrics, int cores)
    {
        ArgumentNullException.ThrowIfNull(metrics);
        ArgumentOutOfRangeException.ThrowIfLessThan(cores, 1);
        var flags = new List<MetricFlag>();
        if (metrics.Stp > cores)
        {
            flags.Add(new MetricFlag(StpAboveCores, string.Create(CultureInfo.InvariantCulture,
                $"STP {metrics.Stp:F3} exceeds the {cores} cores the programs shared, which no schedule can do: the isolated times (C_SP) are too long, e.g. measured under load or before warm-up.")));
        }

        foreach (ProgramMetrics program in metrics.Programs)
        {
            if (program.NormalizedTurnaroundTime < 1)
            {
                flags.Add(new MetricFlag(NttBelowOne, string.Create(CultureInfo.InvariantCulture,
                    $"{program.Program}: NTT {program.NormalizedTurnaroundTime:F3} is below 1, i.e. faster beside other programs than alone on the whole machine: its C_SP is suspect.")));
            }

            int fewest = Math.Min(program.Multiprogram.Count, program.SingleProgram.Count);
            if (fewest < MinimumRunsForInterval)
            {
                flags.Add(new MetricFlag(FewRuns, string.Create(CultureInfo.InvariantCulture,
                    $"{program.Program}: {program.Multiprogram.Count} counted and {program.SingleProgram.Count} isolated runs; at least {MinimumRunsForInterval} each are needed for a useful interval (use a longer --duration or more --runs).")));
            }
        }

        return flags;
    }

    /// <summary>The flags of a summary across repetitions.</summary>
    /// <param name="repetitions">How many repetitions gave metrics.</param>
    /// <param name="perRepetition">The flags of the individual repetitions.</param>
    /// <returns>Their distinct flags, and <see cref="FewRuns"/> when there are too few repetitions.</returns>
    public static IReadOnlyList<MetricFlag> OfRepetitions(int repetitions, IEnumerable<MetricFlag> perRepetition)
    {
        ArgumentNullException.ThrowIfNull(perRepetition);
        var flags = perRepetition.Distinct().ToList();
        if (repetitions < MinimumRunsForInterval)
        {
            flags.Add(new MetricFlag(FewRuns, string.Create(CultureInfo.InvariantCulture,
                $"{repetitions} repetition(s); at least {MinimumRunsForInterval} are needed for a useful interval (use a larger --repeat).")));
        }

        return flags;
    }

    /// <summary>The distinct codes of some flags, for a table cell ("" when none).</summary>
    /// <param name="flags">The flags.</param>
    /// <returns>The codes, comma-separated.</returns>
    public static string Codes(IEnumerable<MetricFlag> flags)
    {
        ArgumentNullException.ThrowIfNull(flags);
        return string.Join(", ", flags.Select(f => f.Code).Distinct(StringComparer.Ordinal));
    }
}
