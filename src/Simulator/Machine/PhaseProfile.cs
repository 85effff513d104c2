namespace DivCon.Simulator.Machine;

/// <summary>
/// A program's phase profile on a described machine: the shares of a run's total time its splits and its merges took
/// there, measured on trees of <see cref="ProfileLeaves"/> leaves. The simulator scales the recorded split and merge
/// durations of the program's internal nodes so that the replayed tree has these shares (<see cref="Calibrate"/>):
/// what a recording on another runtime and machine gets wrong about the cost of the sweeps relative to the leaves.
/// </summary>
/// <param name="SplitShare">The splits' share of the total time (0 &lt;= s &lt; 1), or null: splits kept as recorded.</param>
/// <param name="MergeShare">The merges' share (0 &lt;= m &lt; 1, s + m &lt; 1), or null: merges kept as recorded.</param>
/// <param name="ProfileLeaves">
/// The leaf count of the trees the shares were measured on (at least 2), or null: the shares apply to any tree as they are.
/// </param>
/// <remarks>
/// <para><b>Trees of another depth: a per-level cost ratio.</b> The shares hold exactly for a tree of
/// <see cref="ProfileLeaves"/> leaves. A tree of L leaves has ln L / ln P times the profiled tree's levels (any uniform
/// branching), and a level of the sorts' sweeps covers the whole input whatever the depth, so what carries over is
/// the ratio of a level's sweeps to the rest of the work: a phase whose share is x in the profiled tree is given
/// <c>k x / (1 - s - m)</c> times the rest (leaves and phases kept as recorded), k = ln L / ln P, and the shares the
/// tree gets are those ratios normalised (<see cref="SharesFor"/>). Deeper trees get larger sweep shares, shallower
/// ones smaller; the leaves' own work is taken as independent of the depth (for a sort of n elements in L pieces it
/// is n log(n / L), 11% apart between 64 and 256 leaves at the thesis size, 2^26 elements).</para>
/// <para><b>What is scaled.</b> Every split phase by one factor and every merge phase by another: the work of a
/// nested run counts with the phase that started it and is scaled with it, and the leaves are kept. The factors make
/// the replayed shares equal the targets (<see cref="Factors"/>); the per-level distribution within a phase stays
/// the recording's.</para>
/// </remarks>
public sealed record PhaseProfile(double? SplitShare, double? MergeShare, double? ProfileLeaves)
{
    /// <summary>Checks the values; the message names the property.</summary>
    /// <param name="name">The program, named in messages.</param>
    /// <exception cref="ArgumentOutOfRangeException">A share is negative, not finite or at least 1, the two sum to 1 or more, or the leaf count is below 2.</exception>
    public void Validate(string name)
    {
        Share(SplitShare, $"{name}.{nameof(SplitShare)}");
        Share(MergeShare, $"{name}.{nameof(MergeShare)}");
        if ((SplitShare ?? 0) + (MergeShare ?? 0) >= 1)
        {
            throw new ArgumentOutOfRangeException($"{name}.{nameof(MergeShare)}", MergeShare,
                $"{name}: {nameof(SplitShare)} + {nameof(MergeShare)} must be below 1 (the leaves' share is what is left).");
        }

        if (ProfileLeaves is { } leaves && (!double.IsFinite(leaves) || leaves < 2))
        {
            throw new ArgumentOutOfRangeException($"{name}.{nameof(ProfileLeaves)}", leaves, $"{name}.{nameof(ProfileLeaves)} must be a finite number >= 2.");
        }
    }

    /// <summary>The shares a tree of <paramref name="leaves"/> leaves is given (see the remarks: per-level cost ratio).</summary>
    /// <param name="leaves">The tree's leaf count (at least 1).</param>
    /// <returns>The split and merge shares (null where the profile gives none).</returns>
    public (double? Split, double? Merge) SharesFor(int leaves)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(leaves, 1);
        if (ProfileLeaves is not { } profiled || leaves == profiled)
        {
            return (SplitShare, MergeShare);
        }

        // Ratios to the rest (leaves and phases kept as recorded), scaled by the levels, then normalised.
        double k = Math.Log(leaves) / Math.Log(profiled);
        double rest = 1 - (SplitShare ?? 0) - (MergeShare ?? 0);
        double x = k * (SplitShare ?? 0) / rest;
        double y = k * (MergeShare ?? 0) / rest;
        double total = 1 + x + y;
        return (SplitShare is null ? null : x / total, MergeShare is null ? null : y / total);
    }

    /// <summary>
    /// The factors that give a tree's splits and merges the target shares: with R the work kept as recorded (the
    /// leaves, and a phase without a target), T = R / (1 - targets), a phase of recorded work W and target x gets x T / W.
    /// </summary>
    /// <param name="leafWork">The leaves' work, ns.</param>
    /// <param name="splitWork">The splits' work (nested runs included), ns.</param>
    /// <param name="mergeWork">The merges' work, ns.</param>
    /// <param name="split">The splits' target share, or null (factor 1).</param>
    /// <param name="merge">The merges' target share, or null (factor 1).</param>
    /// <returns>The factors (1 for a phase without a target).</returns>
    /// <exception cref="ArgumentException">A phase has a positive target but no recorded work to scale.</exception>
    public static (double Split, double Merge) Factors(double leafWork, double splitWork, double mergeWork, double? split, double? merge)
    {
        double kept = leafWork + (split is null ? splitWork : 0) + (merge is null ? mergeWork : 0);
        double total = kept / (1 - (split ?? 0) - (merge ?? 0));
        return (Factor(split, splitWork, "split"), Factor(merge, mergeWork, "merge"));

        double Factor(double? share, double work, string phase)
        {
            if (share is not { } x)
            {
                return 1;
            }

            if (work <= 0)
            {
                return x == 0 ? 1 : throw new ArgumentException($"The tree has no {phase} work to scale to a share of {x}.", phase == "split" ? nameof(split) : nameof(merge));
            }

            return x * total / work;
        }
    }

    /// <summary>The graph with its split and merge durations scaled so that its shares are this profile's (for its leaf count).</summary>
    /// <param name="graph">The recorded graph.</param>
    /// <returns>The scaled graph (the same graph when both factors are 1).</returns>
    /// <exception cref="ArgumentException">A phase has a positive target but the graph no work in it.</exception>
    public TaskGraph Calibrate(TaskGraph graph)
    {
        ArgumentNullException.ThrowIfNull(graph);
        var (leaves, leafWork, splitWork, mergeWork) = graph.PhaseWork();
        var (split, merge) = SharesFor(Math.Max(1, leaves));
        var (a, b) = Factors(leafWork, splitWork, mergeWork, split, merge);
        return a == 1 && b == 1 ? graph : graph.ScalePhases(a, b);
    }

    private static void Share(double? value, string name)
    {
        if (value is { } x && (!double.IsFinite(x) || x < 0 || x >= 1))
        {
            throw new ArgumentOutOfRangeException(name, x, $"{name} must be a share from 0 to below 1.");
        }
    }
}
