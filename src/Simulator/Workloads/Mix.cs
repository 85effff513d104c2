using System.Globalization;

namespace DivCon.Simulator.Workloads;

/// <summary>One program of a <see cref="Mix"/>: what it runs, at what size, when it arrives and when it leaves.</summary>
/// <param name="Name">Its name in the mix (unique there), e.g. <c>quicksort-thesis/d2</c> or <c>pi#2</c>.</param>
/// <param name="Program">The recorded program (a trace name, e.g. <c>quicksort-thesis</c>), or <see cref="PhasedProgram.Kind"/>.</param>
/// <param name="Path">The subproblem it runs (<see cref="Subproblem"/>): empty for the whole recorded problem.</param>
/// <param name="Phased">The synthetic program's shape, for <see cref="PhasedProgram.Kind"/> only.</param>
/// <param name="Arrival">When its first run starts.</param>
/// <param name="MaxRuns">It departs after this many runs (null: no limit).</param>
/// <param name="LeaveAt">It starts no run from this time on (null: only the test's limit).</param>
public sealed record MixProgram(string Name, string Program, IReadOnlyList<double> Path, PhasedProgram? Phased, TimeSpan Arrival, int? MaxRuns, TimeSpan? LeaveAt)
{
    /// <summary>A short description, e.g. <c>quicksort-thesis/d2 @3.1s x2 runs</c>.</summary>
    public string Describe()
    {
        var text = new System.Text.StringBuilder(Phased?.Label ?? (Path.Count == 0 ? Program : string.Create(CultureInfo.InvariantCulture, $"{Program}/d{Path.Count}")));
        if (Arrival > TimeSpan.Zero)
        {
            text.Append(CultureInfo.InvariantCulture, $" @{Arrival.TotalSeconds:0.0}s");
        }

        if (MaxRuns is { } runs)
        {
            text.Append(CultureInfo.InvariantCulture, $" x{runs} run{(runs == 1 ? string.Empty : "s")}");
        }

        if (LeaveAt is { } leave)
        {
            text.Append(CultureInfo.InvariantCulture, $" until {leave.TotalSeconds:0.0}s");
        }

        return text.ToString();
    }
}

/// <summary>
/// A workload: programs (sorted by arrival) with a stable id and a one-line description. Generated ones come from
/// <see cref="MixGenerator"/>; <see cref="Cyclic"/> makes the classic cyclic mixes (every program whole, from 0 to
/// the limit).
/// </summary>
/// <param name="Id">Stable id (a generated mix's id is its seed and index: the same id is the same mix).</param>
/// <param name="Description">One line.</param>
/// <param name="Programs">The programs, by arrival.</param>
public sealed record Mix(string Id, string Description, IReadOnlyList<MixProgram> Programs)
{
    /// <summary>A cyclic mix: each program whole, there from 0 to the limit.</summary>
    /// <param name="id">The id.</param>
    /// <param name="programs">Recorded program names (unique).</param>
    /// <returns>The mix.</returns>
    public static Mix Cyclic(string id, IReadOnlyList<string> programs)
    {
        ArgumentNullException.ThrowIfNull(programs);
        return new Mix(id, $"cyclic, {programs.Count} programs: {string.Join(", ", programs)}",
            [.. programs.Select(p => new MixProgram(p, p, [], null, TimeSpan.Zero, null, null))]);
    }
}
