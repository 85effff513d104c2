namespace DivCon.Simulator.Workloads;

/// <summary>One program's share of a mix's metrics.</summary>
/// <param name="Program">Its name in the mix.</param>
/// <param name="AloneSeconds">Its mean time alone on the whole machine (C_SP).</param>
/// <param name="Runs">Its counted runs (ended by the time limit).</param>
/// <param name="MeanTurnaround">Mean turnaround of those runs, seconds (C_MP; NaN without runs).</param>
/// <param name="Ntt">Normalized turnaround time C_MP / C_SP (NaN without runs).</param>
public sealed record MixProgramMetrics(string Program, double AloneSeconds, int Runs, double MeanTurnaround, double Ntt);

/// <summary>
/// A mix's system metrics under one scheme, with the cyclic tests' definitions (Eyerman and Eeckhout, as the
/// harness's <c>MultiprogramMetrics</c>): per program NTT = mean turnaround of its counted runs / its mean time alone
/// on the whole machine; ANTT = mean NTT; STP = sum of 1/NTT; worst NTT = max NTT.
/// </summary>
/// <remarks>
/// With arrivals and departures a program's turnaround is measured over the runs it made while it was there, so its
/// 1/NTT is the fraction of an alone machine it got then; STP sums those fractions, so it credits a program that
/// was there briefly as much as one there throughout (it is the sum of per-program speeds, not work done). A program
/// with no counted run (it never finished one by the limit) makes the metrics NaN: the scheme starved it, and the
/// mix counts as incomplete for that scheme.
/// </remarks>
/// <param name="Programs">Per program, in the mix's order.</param>
/// <param name="Stp">System throughput.</param>
/// <param name="Antt">Average normalized turnaround time.</param>
/// <param name="WorstNtt">The largest NTT.</param>
public sealed record MixMetrics(IReadOnlyList<MixProgramMetrics> Programs, double Stp, double Antt, double WorstNtt)
{
    /// <summary>Whether some program has no counted run (the metrics are then NaN).</summary>
    public bool Incomplete => Programs.Any(p => p.Runs == 0);

    /// <summary>Computes the metrics.</summary>
    /// <param name="programs">Per program: name, mean alone seconds (positive) and the turnarounds (seconds, positive) of its counted runs.</param>
    /// <returns>The metrics.</returns>
    /// <exception cref="ArgumentException">No programs, or an alone time or a turnaround not positive and finite.</exception>
    public static MixMetrics Compute(IReadOnlyList<(string Program, double AloneSeconds, IReadOnlyList<double> Turnarounds)> programs)
    {
        ArgumentNullException.ThrowIfNull(programs);
        if (programs.Count == 0)
        {
            throw new ArgumentException("A mix needs at least one program.", nameof(programs));
        }

        var per = new List<MixProgramMetrics>(programs.Count);
        foreach (var (name, alone, turnarounds) in programs)
        {
            if (!(alone > 0 && double.IsFinite(alone)) || turnarounds is null || turnarounds.Any(t => !(t > 0 && double.IsFinite(t))))
            {
                throw new ArgumentException($"Program '{name}': the alone time ({alone}) and every turnaround must be positive and finite.", nameof(programs));
            }

            double mean = turnarounds.Count == 0 ? double.NaN : turnarounds.Average();
            per.Add(new MixProgramMetrics(name, alone, turnarounds.Count, mean, mean / alone));
        }

        if (per.Any(p => p.Runs == 0))
        {
            return new MixMetrics(per, double.NaN, double.NaN, double.NaN);
        }

        return new MixMetrics(per, per.Sum(p => 1 / p.Ntt), per.Average(p => p.Ntt), per.Max(p => p.Ntt));
    }

    /// <summary>The metrics of a simulated test (counted runs only) given the programs' alone times.</summary>
    /// <param name="test">The test.</param>
    /// <param name="aloneSeconds">Mean alone seconds per program, in the test's program order.</param>
    /// <returns>The metrics.</returns>
    public static MixMetrics Of(SimulatedCyclicTest test, IReadOnlyList<double> aloneSeconds)
    {
        ArgumentNullException.ThrowIfNull(test);
        ArgumentNullException.ThrowIfNull(aloneSeconds);
        if (aloneSeconds.Count != test.Programs.Count)
        {
            throw new ArgumentException($"{test.Programs.Count} programs need as many alone times (got {aloneSeconds.Count}).", nameof(aloneSeconds));
        }

        return Compute([.. test.Programs.Select((name, i) => (name, aloneSeconds[i],
            (IReadOnlyList<double>)[.. test.Runs.Where(r => r.Counted && r.Program == name).Select(r => (r.End - r.Start).TotalSeconds)]))]);
    }
}
