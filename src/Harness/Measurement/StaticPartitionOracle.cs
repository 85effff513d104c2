using System.Diagnostics;

namespace DivCon.Harness.Measurement;

/// <summary>
/// Finds the static partition of N cores among m programs that maximises system throughput, given each
/// program's speedup table: the yardstick for the dynamic schemes.
/// </summary>
/// <remarks>
/// <para>
/// Under a static partition program i runs alone on c_i cores, so its turnaround is <c>T_seq / S_i(c_i)</c>
/// against <c>T_seq / S_i(N)</c> in isolation: <c>NP_i = S_i(c_i) / S_i(N)</c>, and
/// <c>STP = Σ S_i(c_i) / S_i(N)</c>. The oracle maximises it over every partition with c_i ≥ 1 and
/// Σ c_i ≤ N (cores may stay unused if a table falls with more cores).
/// </para>
/// <para>
/// Algorithm: dynamic programming over (programs so far, cores used), O(m·N²) time, O(m·N) space; exact for
/// the tables given. Ties are broken towards giving more cores to earlier programs, so results are
/// deterministic. The oracle ignores interference between partitions (shared caches, memory bandwidth):
/// it is an upper bound only in that model.
/// </para>
/// </remarks>
public static class StaticPartitionOracle
{
    /// <summary>Solves for the best static partition.</summary>
    /// <param name="programs">One speedup table per program (names unique), each covering up to <paramref name="cores"/>.</param>
    /// <param name="cores">Cores in the machine, at least the number of programs.</param>
    /// <returns>The best partition and its STP.</returns>
    /// <exception cref="ArgumentException">No programs, duplicate names, or a table too short.</exception>
    /// <exception cref="ArgumentOutOfRangeException">Fewer cores than programs.</exception>
    public static OracleResult Solve(IReadOnlyList<SpeedupTable> programs, int cores)
    {
        ArgumentNullException.ThrowIfNull(programs);
        if (programs.Count == 0)
        {
            throw new ArgumentException("At least one program is needed.", nameof(programs));
        }

        if (cores < programs.Count)
        {
            throw new ArgumentOutOfRangeException(nameof(cores), cores, $"Each of the {programs.Count} programs needs at least one core.");
        }

        var names = new HashSet<string>(StringComparer.Ordinal);
        foreach (SpeedupTable table in programs)
        {
            ArgumentNullException.ThrowIfNull(table, nameof(programs));
            if (!names.Add(table.Program))
            {
                throw new ArgumentException($"Program '{table.Program}' appears twice.", nameof(programs));
            }

            if (table.MaxCores < cores)
            {
                throw new ArgumentException($"The table of '{table.Program}' stops at {table.MaxCores} cores; the machine has {cores}.", nameof(programs));
            }
        }

        int m = programs.Count;

        // np[i][c] = NP of program i on c cores.
        var np = new double[m][];
        for (int i = 0; i < m; i++)
        {
            double alone = programs[i].SpeedupAt(cores);
            np[i] = new double[cores + 1];
            for (int c = 1; c <= cores; c++)
            {
                np[i][c] = programs[i].SpeedupAt(c) / alone;
            }
        }

        // best[i][u] = max STP of programs 0..i-1 using at most u cores, each at least one; -inf if impossible.
        var best = new double[m + 1][];
        var choice = new int[m + 1][];
        for (int i = 0; i <= m; i++)
        {
            best[i] = new double[cores + 1];
            choice[i] = new int[cores + 1];
            Array.Fill(best[i], i == 0 ? 0.0 : double.NegativeInfinity);
        }

        for (int i = 1; i <= m; i++)
        {
            for (int budget = i; budget <= cores; budget++)
            {
                // Larger shares first: with a strict '>' a tie keeps the larger share for program i - 1.
                for (int c = budget - (i - 1); c >= 1; c--)
                {
                    double candidate = best[i - 1][budget - c] + np[i - 1][c];
                    if (candidate > best[i][budget])
                    {
                        best[i][budget] = candidate;
                        choice[i][budget] = c;
                    }
                }
            }
        }

        var allocation = new int[m];
        int remaining = cores;
        for (int i = m; i >= 1; i--)
        {
            allocation[i - 1] = choice[i][remaining];
            remaining -= allocation[i - 1];
        }

        Debug.Assert(remaining >= 0 && allocation.All(c => c >= 1), "the reconstruction follows recorded choices");
        var shares = new PartitionShare[m];
        for (int i = 0; i < m; i++)
        {
            shares[i] = new PartitionShare(programs[i].Program, allocation[i], np[i][allocation[i]]);
        }

        return new OracleResult(cores, shares, best[m][cores]);
    }
}

/// <summary>The best static partition of the machine for a workload and the system throughput it reaches.</summary>
/// <param name="Cores">Cores in the machine.</param>
/// <param name="Shares">Each program's cores and NP, in input order.</param>
/// <param name="Stp">The oracle's STP, Σ NP over <paramref name="Shares"/>.</param>
public sealed record OracleResult(int Cores, IReadOnlyList<PartitionShare> Shares, double Stp)
{
    /// <summary>
    /// How close a measured scheme came to the oracle: <c>measuredStp / Stp</c> (1 = as good as the best static
    /// partition; above 1 is possible for dynamic schemes, which can move cores as programs' needs change).
    /// </summary>
    /// <param name="measuredStp">A scheme's measured STP (positive).</param>
    /// <returns>The fraction.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="measuredStp"/> is not positive and finite.</exception>
    public double FractionOfOracle(double measuredStp)
    {
        if (!(measuredStp > 0) || double.IsInfinity(measuredStp))
        {
            throw new ArgumentOutOfRangeException(nameof(measuredStp), measuredStp, "A measured STP is positive and finite.");
        }

        return measuredStp / Stp;
    }
}

/// <summary>One program's share of a static partition and the progress it makes there.</summary>
/// <param name="Program">Program name.</param>
/// <param name="Cores">Cores given to it (≥ 1).</param>
/// <param name="NormalizedProgress">Its NP on those cores: speedup(cores) / speedup(all cores).</param>
public sealed record PartitionShare(string Program, int Cores, double NormalizedProgress);
